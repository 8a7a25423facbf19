//! Every Flax ID vector through SQL, text order, and concurrent generation.

use flake_core::flaxid::FlaxId;
use pg_flake_integration::*;

const MS: &str = r#"'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'"#;

#[test]
fn every_flaxid_vector_through_sql() {
    let mut db = connect();
    let mut checked = 0;
    for v in vectors("flaxid.jsonl") {
        let name = v["name"].as_str().unwrap();
        if v["kind"] == "out_of_range" {
            let time = v["input"]["time"].as_str().unwrap();
            let random = as_i64(&v["input"]["random"]);
            let from_time =
                db.query_one("SELECT flaxid_from_time($1::text::timestamptz)", &[&time]);
            let from_parts = db.query_one(
                "SELECT flaxid_from_parts($1::text::timestamptz, $2)",
                &[&time, &random],
            );
            for state in [sqlstate(from_time), sqlstate(from_parts)] {
                assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
            }
            checked += 1;
            continue;
        }
        let text = v["text"].as_str().unwrap();
        let bytes = hex(v["bytes_hex"].as_str().unwrap());
        let p = &v["parts"];
        // Binary wire format: the client's flaxid is exactly the vector's bytes.
        let id: FlaxId = db
            .query_one("SELECT $1::text::flaxid", &[&text])
            .unwrap()
            .get(0);
        assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{name}");
        let row = db
            .query_one(
                &format!(
                    "SELECT s::text, s::bytea, to_char(p.time, {MS}), p.random,
                            flaxid_from_parts(p.time, p.random) = s,
                            flaxid_timestamp(s) = p.time,
                            flaxid_from_time(p.time) = flaxid_from_parts(p.time, 0),
                            s::bytea::flaxid = s
                     FROM (SELECT $1::text::flaxid AS s) x, flaxid_parts(s) p"
                ),
                &[&text],
            )
            .unwrap();
        assert_eq!(row.get::<_, String>(0), text, "{name}");
        assert_eq!(row.get::<_, Vec<u8>>(1), bytes, "{name}");
        assert_eq!(
            row.get::<_, String>(2),
            p["time"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(row.get::<_, i64>(3), as_i64(&p["random"]), "{name}");
        for i in 4..8 {
            assert!(row.get::<_, bool>(i), "{name}: round trip {i}");
        }
        checked += 1;
    }
    assert_eq!(checked, 27);
}

#[test]
fn text_order_is_value_order() {
    let mut db = connect();
    let texts: Vec<String> = vectors("flaxid.jsonl")
        .iter()
        .filter_map(|v| v["text"].as_str().map(str::to_owned))
        .collect();
    let mismatched: i64 = db
        .query_one(
            "SELECT count(*) FROM (
                 SELECT row_number() OVER (ORDER BY t::flaxid) AS by_value,
                        row_number() OVER (ORDER BY t COLLATE \"C\") AS by_text
                 FROM unnest($1::text[]) t) s
             WHERE by_value <> by_text",
            &[&texts],
        )
        .unwrap()
        .get(0);
    assert_eq!(mismatched, 0);
}

#[test]
fn concurrent_flaxid_generation() {
    assert_concurrent_generation(
        "flaxid",
        "flaxid_generate()",
        8,
        100_000,
        Order::NonDecreasing("flaxid_timestamp"),
        None,
    );
}
