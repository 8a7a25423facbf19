//! Every SIQ vector through SQL, and concurrent generation.

use flake_core::siq::Siq;
use pg_flake_integration::*;
use serde_json::Value;

#[test]
fn every_siq_vector_through_sql() {
    let mut db = connect();
    let mut checked = 0;
    for v in vectors("siq.jsonl") {
        let name = v["name"].as_str().unwrap();
        match v["kind"].as_str().unwrap() {
            "out_of_range" => {
                let i = &v["input"];
                let state = if let Some(ticks) = i.get("ticks") {
                    sqlstate(db.query_one(
                        "SELECT siq_from_tick_parts($1::bigint, $2, $3, $4, $5)",
                        &[
                            &as_i64(ticks),
                            &(as_i64(&i["shard"]) as i32),
                            &as_i64(&i["domain_hash"]),
                            &i["kind"].as_str().unwrap(),
                            &(as_i64(&i["serial"]) as i32),
                        ],
                    ))
                } else if let Some(time) = i.get("time") {
                    sqlstate(db.query_one(
                        "SELECT siq_from_time($1::text::timestamptz)",
                        &[&time.as_str().unwrap()],
                    ))
                } else {
                    let number = i["integer"]
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| i.to_string());
                    sqlstate(db.query_one("SELECT $1::text::numeric::siq", &[&number]))
                };
                assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
            }
            "invalid_domain" => {
                let state = sqlstate(db.query_one(
                    "SELECT siq_domain_name_hash($1::text)",
                    &[&v["input"].as_str().unwrap()],
                ));
                assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
            }
            _ => {
                let text = v["text"].as_str().unwrap();
                let bytes = hex(v["bytes_hex"].as_str().unwrap());
                let p = &v["parts"];
                let id: Siq = db
                    .query_one("SELECT $1::text::siq", &[&text])
                    .unwrap()
                    .get(0);
                assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{name}");
                let row = db
                    .query_one(
                        "SELECT s::text, siq_to_did(s), siq_to_hex(s), siq_to_base64(s), s::numeric::text,
                                to_char(p.time, 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), p.ticks, p.shard,
                                p.domain_hash, p.kind, p.serial, p.low16,
                                $2::text::siq = s, upper($1)::siq = s, siq_from_hex(upper(siq_to_hex(s))) = s,
                                $3::text::numeric::siq = s, s::bytea::siq = s
                         FROM (SELECT $1::text::siq AS s) x, siq_parts(s) p",
                        &[&text, &v["did"].as_str().unwrap(), &v["integer"].as_str().unwrap()],
                    )
                    .unwrap();
                assert_eq!(row.get::<_, String>(0), text, "{name}");
                assert_eq!(
                    row.get::<_, String>(1),
                    v["did"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    row.get::<_, String>(2),
                    v["hex"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    row.get::<_, String>(3),
                    v["base64"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    row.get::<_, String>(4),
                    v["integer"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    row.get::<_, String>(5),
                    p["time"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(row.get::<_, i64>(6), as_i64(&p["ticks"]), "{name}");
                assert_eq!(row.get::<_, i32>(7) as i64, as_i64(&p["shard"]), "{name}");
                assert_eq!(row.get::<_, i64>(8), as_i64(&p["domain_hash"]), "{name}");
                assert_eq!(
                    row.get::<_, Option<String>>(9).as_deref(),
                    p["kind"].as_str(),
                    "{name}"
                );
                assert_eq!(row.get::<_, i32>(10) as i64, as_i64(&p["serial"]), "{name}");
                assert_eq!(row.get::<_, i32>(11) as i64, as_i64(&p["low16"]), "{name}");
                for i in 12..17 {
                    assert!(row.get::<_, bool>(i), "{name}: round trip {i}");
                }
                if let Some(kind) = p["kind"].as_str() {
                    let same: bool = db
                        .query_one(
                            "SELECT siq_from_tick_parts($1::bigint, $2, $3, $4, $5) = $6::text::siq",
                            &[
                                &as_i64(&p["ticks"]),
                                &(as_i64(&p["shard"]) as i32),
                                &as_i64(&p["domain_hash"]),
                                &kind,
                                &(as_i64(&p["serial"]) as i32),
                                &text,
                            ],
                        )
                        .unwrap()
                        .get(0);
                    assert!(same, "{name}: siq_from_tick_parts");
                }
                if let Some(domain) = v.get("domain").and_then(Value::as_str) {
                    let hash: i64 = db
                        .query_one("SELECT siq_domain_name_hash($1::text)", &[&domain])
                        .unwrap()
                        .get(0);
                    let expected = v.get("domain_hash_of_domain").unwrap_or(&p["domain_hash"]);
                    if v.get("node").is_none() || v.get("domain_hash_of_domain").is_some() {
                        assert_eq!(hash, as_i64(expected), "{name}: domain hash");
                    }
                }
                if let Some(input_time) = v.get("input_time").and_then(Value::as_str) {
                    let row = db
                        .query_one(
                            "SELECT siq_from_time($1::text::timestamptz) = siq_from_tick_parts($2::bigint, 0, 0, 'user', 0)",
                            &[&input_time, &as_i64(&p["ticks"])],
                        )
                        .unwrap();
                    assert!(row.get::<_, bool>(0), "{name}: input_time rounds down");
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 39);
}

#[test]
fn generated_siqs_carry_kind_domain_and_node() {
    let mut db = connect();
    db.batch_execute("SET pg_flake.siq_domain = 'example.com'; SET pg_flake.siq_node = 0")
        .unwrap();
    let row = db
        .query_one(
            "SELECT siq_kind(s), siq_domain_hash(s), siq_domain_name_hash('example.com') FROM siq_generate('message') s",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, Option<String>>(0).as_deref(), Some("message"));
    assert_eq!(row.get::<_, i64>(1), 0x86ce1947);
    db.batch_execute("SET pg_flake.siq_node = 7").unwrap();
    let hash: i64 = db
        .query_one("SELECT siq_domain_hash(siq_generate('user'))", &[])
        .unwrap()
        .get(0);
    assert_eq!(hash, 0x07ce1947, "node replaces the top byte");
}

#[test]
fn concurrent_siq_generation() {
    assert_concurrent_generation(
        "siq",
        "siq_generate('message')",
        8,
        100_000,
        Order::Increasing,
        Some(SIQ_COUNTER),
    );
}

/// Each kind has its own counter: the unit is the kind's tick.
const SIQ_COUNTER: Counter = Counter {
    unit: "siq_kind(id) || ' ' || (siq_parts(id)).ticks",
    sequence: "siq_serial(id)",
    process: Some("siq_shard(id)"),
};

#[test]
fn concurrent_siq_generation_of_mixed_kinds() {
    // Kinds with 11-, 12- and 13-bit serials, in random order.
    assert_concurrent_generation(
        "siq",
        "siq_generate((ARRAY['user', 'thread', 'message', 'content'])[1 + floor(random() * 4)::int])",
        8,
        50_000,
        Order::IncreasingPer("siq_kind(id)"),
        Some(SIQ_COUNTER),
    );
}

#[test]
fn shared_mode_orders_ids_across_backends() {
    if mode() == "shared" {
        assert_increasing_across_connections("siq", "siq_generate('user')", 8, 250);
    }
}
