//! Every kuid64 and kuid96 vector through SQL, text order, and concurrent
//! generation of both.

use flake_core::kuid::Kuid96;
use pg_flake_integration::*;

const US: &str = r#"'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'"#;

#[test]
fn every_kuid64_vector_through_sql() {
    let mut db = connect();
    let mut checked = 0;
    for v in vectors("kuid64.jsonl") {
        let name = v["name"].as_str().unwrap();
        if v["kind"] == "out_of_range" {
            let time = v["input"]["time"].as_str().unwrap();
            let seq = as_i64(&v["input"]["seq"]) as i32;
            let from_time =
                db.query_one("SELECT kuid64_from_time($1::text::timestamptz)", &[&time]);
            let from_parts = db.query_one(
                "SELECT kuid64_from_parts($1::text::timestamptz, $2)",
                &[&time, &seq],
            );
            for state in [sqlstate(from_time), sqlstate(from_parts)] {
                assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
            }
            checked += 1;
            continue;
        }
        let value = as_i64(&v["integer"]);
        let text = v["text"].as_str().unwrap();
        let p = &v["parts"];
        let row = db
            .query_one(
                &format!(
                    "SELECT kuid64_encode($1), int8send($1), to_char(p.time, {US}),
                            p.megaseconds, p.seconds, p.microseconds, p.seq,
                            kuid64_decode($2) = $1,
                            kuid64_from_parts(p.time, p.seq) = $1,
                            kuid64_timestamp($1) = p.time,
                            kuid64_from_time(p.time) = kuid64_from_parts(p.time, 0)
                     FROM kuid64_parts($1) p"
                ),
                &[&value, &text],
            )
            .unwrap();
        assert_eq!(row.get::<_, String>(0), text, "{name}");
        assert_eq!(
            row.get::<_, Vec<u8>>(1),
            hex(v["bytes_hex"].as_str().unwrap()),
            "{name}"
        );
        assert_eq!(
            row.get::<_, String>(2),
            p["time"].as_str().unwrap(),
            "{name}"
        );
        for (i, field) in ["megaseconds", "seconds", "microseconds", "seq"]
            .iter()
            .enumerate()
        {
            assert_eq!(
                row.get::<_, i32>(3 + i) as i64,
                as_i64(&p[field]),
                "{name}: {field}"
            );
        }
        for i in 7..11 {
            assert!(row.get::<_, bool>(i), "{name}: round trip {i}");
        }
        if let Some(input_time) = v.get("input_time").and_then(|t| t.as_str()) {
            let same: bool = db
                .query_one(
                    "SELECT kuid64_from_parts($1::text::timestamptz, $2) = $3",
                    &[&input_time, &(as_i64(&p["seq"]) as i32), &value],
                )
                .unwrap()
                .get(0);
            assert!(same, "{name}: input_time rounds down to its unit");
        }
        checked += 1;
    }
    assert_eq!(checked, 25);
}

#[test]
fn every_kuid96_vector_through_sql() {
    let mut db = connect();
    let mut checked = 0;
    for v in vectors("kuid96.jsonl") {
        let name = v["name"].as_str().unwrap();
        let text = v["text"].as_str().unwrap();
        let bytes = hex(v["bytes_hex"].as_str().unwrap());
        // Binary wire format: the client's kuid96 is exactly the vector's bytes.
        let id: Kuid96 = db
            .query_one("SELECT $1::text::kuid96", &[&text])
            .unwrap()
            .get(0);
        assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{name}");
        let row = db
            .query_one(
                "SELECT s::text, s::bytea, s::bytea::kuid96 = s FROM (SELECT $1::text::kuid96 AS s) x",
                &[&text],
            )
            .unwrap();
        assert_eq!(row.get::<_, String>(0), text, "{name}");
        assert_eq!(row.get::<_, Vec<u8>>(1), bytes, "{name}");
        assert!(row.get::<_, bool>(2), "{name}: bytea round trip");
        checked += 1;
        if v["kind"] == "encoding" {
            continue;
        }
        let interval = as_i64(&v["interval"]) as i32;
        let node = as_i64(&v["node"]);
        let p = &v["parts"];
        let row = db
            .query_one(
                &format!(
                    "SELECT to_char(p.time, {US}), p.node, p.seq,
                            kuid96_from_parts(p.time, p.node, p.seq, $2) = s,
                            kuid96_timestamp(s, $2) = p.time,
                            kuid96_node(s, $2) = p.node,
                            kuid96_from_time(p.time, $2) = kuid96_from_parts(p.time, 0, 0, $2)
                     FROM (SELECT $1::text::kuid96 AS s) x, kuid96_parts(s, $2) p"
                ),
                &[&text, &interval],
            )
            .unwrap();
        assert_eq!(
            row.get::<_, String>(0),
            p["time"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(row.get::<_, i64>(1), as_i64(&p["node"]), "{name}");
        assert_eq!(row.get::<_, i64>(1), node, "{name}: node");
        assert_eq!(row.get::<_, i32>(2) as i64, as_i64(&p["seq"]), "{name}");
        for i in 3..7 {
            assert!(row.get::<_, bool>(i), "{name}: round trip {i}");
        }
        if let Some(node_name) = v.get("node_name").and_then(|n| n.as_str()) {
            let fingerprint: i64 = db
                .query_one("SELECT kuid_node_fingerprint($1)", &[&node_name])
                .unwrap()
                .get(0);
            assert_eq!(fingerprint, node, "{name}: fingerprint of {node_name}");
        }
        let localized = db.query_one(
            "SELECT kuid96_localize($1::text::kuid96, $2)",
            &[&text, &interval],
        );
        match v.get("kuid64") {
            Some(kuid64) => {
                let kuid64 = as_i64(kuid64);
                assert_eq!(localized.unwrap().get::<_, i64>(0), kuid64, "{name}");
                let same: bool = db
                    .query_one(
                        "SELECT kuid96_globalize($1, $2, $3) = $4::text::kuid96",
                        &[&kuid64, &node, &interval, &text],
                    )
                    .unwrap()
                    .get(0);
                assert!(same, "{name}: globalize");
            }
            // Beyond kuid64's range there is no local ID.
            None => assert_eq!(sqlstate(localized), "22008", "{name}: localize"),
        }
        if let Some(input_time) = v.get("input_time").and_then(|t| t.as_str()) {
            let same: bool = db
                .query_one(
                    "SELECT kuid96_from_parts($1::text::timestamptz, $2, $3, $4) = $5::text::kuid96",
                    &[
                        &input_time,
                        &node,
                        &(as_i64(&p["seq"]) as i32),
                        &interval,
                        &text,
                    ],
                )
                .unwrap()
                .get(0);
            assert!(same, "{name}: input_time rounds down to its unit");
        }
        // The forms without the interval argument read pg_flake.kuid_interval.
        db.batch_execute(&format!("SET pg_flake.kuid_interval = {interval}"))
            .unwrap();
        let same: bool = db
            .query_one(
                "SELECT kuid96_parts(s)::text = kuid96_parts(s, $2)::text
                        AND kuid96_timestamp(s) = kuid96_timestamp(s, $2)
                        AND kuid96_node(s) = kuid96_node(s, $2)
                        AND kuid96_from_parts(p.time, p.node, p.seq) = s
                        AND kuid96_from_time(p.time) = kuid96_from_time(p.time, $2)
                 FROM (SELECT $1::text::kuid96 AS s) x, kuid96_parts(s, $2) p",
                &[&text, &interval],
            )
            .unwrap()
            .get(0);
        assert!(same, "{name}: the setting's forms agree");
        db.batch_execute("RESET pg_flake.kuid_interval").unwrap();
    }
    assert_eq!(checked, 25);
}

#[test]
fn text_order_is_value_order() {
    let mut db = connect();
    let kuid64: Vec<i64> = vectors("kuid64.jsonl")
        .iter()
        .filter_map(|v| v.get("integer").map(as_i64))
        .collect();
    let kuid96: Vec<String> = vectors("kuid96.jsonl")
        .iter()
        .map(|v| v["text"].as_str().unwrap().to_owned())
        .collect();
    let row = db
        .query_one(
            "SELECT (SELECT count(*) FROM (
                         SELECT row_number() OVER (ORDER BY k) AS by_value,
                                row_number() OVER (ORDER BY kuid64_encode(k) COLLATE \"C\") AS by_text
                         FROM unnest($1::bigint[]) k) s WHERE by_value <> by_text),
                    (SELECT count(*) FROM (
                         SELECT row_number() OVER (ORDER BY t::kuid96) AS by_value,
                                row_number() OVER (ORDER BY t COLLATE \"C\") AS by_text
                         FROM unnest($2::text[]) t) s WHERE by_value <> by_text)",
            &[&kuid64, &kuid96],
        )
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 0, "kuid64");
    assert_eq!(row.get::<_, i64>(1), 0, "kuid96");
}

#[test]
fn generated_kuid96_carry_the_node_setting() {
    let mut db = connect();
    db.batch_execute("SET pg_flake.kuid_node = 'uid@127.0.0.1'; SET pg_flake.kuid_interval = 5")
        .unwrap();
    let row = db
        .query_one(
            "SELECT kuid96_node(kuid96_generate()), kuid96_node(kuid96_generate(), 5),
                    kuid96_globalize(27084864703004673) = '.5.tXa0xODNvPN.0'",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 0x03eb_2731);
    assert_eq!(row.get::<_, i64>(1), 0x03eb_2731);
    assert!(
        row.get::<_, bool>(2),
        "globalize with this node and interval"
    );
}

#[test]
fn concurrent_kuid64_generation() {
    assert_concurrent_generation(
        "bigint",
        "kuid64_generate()",
        8,
        100_000,
        Order::Increasing,
        Some(Counter {
            unit: "id >> 14",
            sequence: "id & 16383",
            process: None,
        }),
    );
}

#[test]
fn concurrent_kuid96_generation() {
    assert_concurrent_generation(
        "kuid96",
        "kuid96_generate()",
        8,
        100_000,
        Order::Increasing,
        Some(Counter {
            unit: "kuid96_timestamp(id)",
            sequence: "(kuid96_parts(id)).seq",
            process: None,
        }),
    );
}

#[test]
fn shared_mode_orders_ids_across_backends() {
    if mode() == "shared" {
        assert_increasing_across_connections("bigint", "kuid64_generate()", 8, 250);
        assert_increasing_across_connections("kuid96", "kuid96_generate()", 8, 250);
    }
}
