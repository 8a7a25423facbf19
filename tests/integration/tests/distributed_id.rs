//! Every DistributedId, DistributedId128 and alphanumeric vector through SQL
//! (the `generator_sequence` cases run against the core generators, in the
//! core's tests), binary input, per-backend random streams and concurrent
//! generation.

use flake_core::distributed_id::DistributedId;
use pg_flake_integration::*;
use serde_json::Value;
use std::collections::HashSet;

const MS: &str = r#"'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'"#;

fn text<'a>(v: &'a Value, field: &str) -> &'a str {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("{}: no {field}", v["name"]))
}

/// An integer field given as a JSON number or a decimal string, as text.
fn decimal(v: &Value) -> String {
    v.as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| v.to_string())
}

/// An `invalid` vector: its one-argument text `function` rejects `input`.
fn check_invalid(db: &mut postgres::Client, v: &Value) {
    let (function, input) = (text(v, "function"), text(v, "input"));
    let state = sqlstate(db.query_one(&format!("SELECT {function}($1::text)"), &[&input]));
    assert!(
        accepts(&v["sqlstate"], &state),
        "{}: got {state}",
        v["name"]
    );
}

#[test]
fn every_distributed_id_vector_through_sql() {
    let mut db = connect();
    let (mut checked, mut core_only) = (0, 0);
    for v in vectors("distributedid.jsonl") {
        let name = text(&v, "name");
        match text(&v, "kind") {
            "generator_sequence" => core_only += 1,
            "invalid" => {
                check_invalid(&mut db, &v);
                checked += 1;
            }
            "out_of_range" if v["input"].is_string() => {
                let state = sqlstate(db.query_one(
                    "SELECT $1::text::numeric::distributed_id",
                    &[&text(&v, "input")],
                ));
                assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
                checked += 1;
            }
            "out_of_range" => {
                let time = text(&v["input"], "time");
                let random = as_i64(&v["input"]["random"]);
                let from_time = db.query_one(
                    "SELECT distributed_id_from_time($1::text::timestamptz)",
                    &[&time],
                );
                let from_parts = db.query_one(
                    "SELECT distributed_id_from_parts($1::text::timestamptz, $2)",
                    &[&time, &random],
                );
                for state in [sqlstate(from_time), sqlstate(from_parts)] {
                    assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
                }
                checked += 1;
            }
            "bigint_alphanumeric" => {
                let integer = as_i64(&v["integer"]);
                let row = db
                    .query_one(
                        "SELECT alphanumeric_encode($1::bigint), alphanumeric_decode_bigint($2)",
                        &[&integer, &text(&v, "alphanumeric")],
                    )
                    .unwrap();
                assert_eq!(row.get::<_, String>(0), text(&v, "alphanumeric"), "{name}");
                assert_eq!(row.get::<_, i64>(1), integer, "{name}");
                checked += 1;
            }
            _ => {
                check_distributed_id_value(&mut db, &v);
                checked += 1;
            }
        }
    }
    assert_eq!((checked, core_only), (58, 24));
}

/// A vector with a value: text, bytes, alphanumeric, hex, numeric, parts.
fn check_distributed_id_value(db: &mut postgres::Client, v: &Value) {
    let name = text(v, "name");
    let value = text(v, "text");
    let bytes = hex(text(v, "bytes_hex"));
    // Binary wire format both ways: the client's value is the vector's bytes.
    let id: DistributedId = db
        .query_one("SELECT $1::text::distributed_id", &[&value])
        .unwrap()
        .get(0);
    assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{name}");
    let echoed: String = db
        .query_one("SELECT $1::distributed_id::text", &[&id])
        .unwrap()
        .get(0);
    assert_eq!(echoed, value, "{name}");
    let row = db
        .query_one(
            "SELECT d::text, d::bytea, alphanumeric_encode(d), distributed_id_to_hex(d), d::numeric::text,
                    alphanumeric_decode_distributed_id($2) = d, distributed_id_from_hex($3) = d,
                    distributed_id_from_hex(lower($3)) = d, $1::text::numeric::distributed_id = d,
                    d::bytea::distributed_id = d
             FROM (SELECT $1::text::distributed_id AS d) x",
            &[&value, &text(v, "alphanumeric"), &text(v, "hex")],
        )
        .unwrap();
    assert_eq!(row.get::<_, String>(0), value, "{name}");
    assert_eq!(row.get::<_, Vec<u8>>(1), bytes, "{name}");
    assert_eq!(row.get::<_, String>(2), text(v, "alphanumeric"), "{name}");
    assert_eq!(row.get::<_, String>(3), text(v, "hex"), "{name}");
    assert_eq!(row.get::<_, String>(4), value, "{name}");
    for i in 5..10 {
        assert!(row.get::<_, bool>(i), "{name}: round trip {i}");
    }
    if let Some(input) = v["input"].as_str() {
        let function = match text(v, "kind") {
            "hex_decode" => "distributed_id_from_hex",
            _ => "alphanumeric_decode_distributed_id",
        };
        let decoded: String = db
            .query_one(&format!("SELECT {function}($1)::text"), &[&input])
            .unwrap()
            .get(0);
        assert_eq!(decoded, value, "{name}: {function}");
    }
    let p = &v["parts"];
    if p.is_null() {
        return;
    }
    let row = db
        .query_one(
            &format!(
                "SELECT to_char(p.time, {MS}), p.random,
                        distributed_id_from_parts(p.time, p.random) = d,
                        distributed_id_timestamp(d) = p.time,
                        distributed_id_from_time(p.time) = distributed_id_from_parts(p.time, 0)
                 FROM (SELECT $1::text::distributed_id AS d) x, distributed_id_parts(d) p"
            ),
            &[&value],
        )
        .unwrap();
    assert_eq!(row.get::<_, String>(0), text(p, "time"), "{name}");
    assert_eq!(row.get::<_, i64>(1), as_i64(&p["random"]), "{name}");
    for i in 2..5 {
        assert!(row.get::<_, bool>(i), "{name}: parts round trip {i}");
    }
}

#[test]
fn every_distributed_id128_vector_through_sql() {
    let mut db = connect();
    let (mut checked, mut core_only) = (0, 0);
    for v in vectors("distributedid128.jsonl") {
        let name = text(&v, "name");
        match text(&v, "kind") {
            "generator_sequence" => core_only += 1,
            "invalid" => {
                check_invalid(&mut db, &v);
                checked += 1;
            }
            kind => {
                let uuid = text(&v, "text");
                let row = db
                    .query_one(
                        "SELECT u::text, uuid_send(u), distributed_id128_to_numeric(u)::text,
                                alphanumeric_encode(u), alphanumeric_decode_uuid($2) = u,
                                distributed_id128_from_numeric($3::text::numeric) = u
                         FROM (SELECT $1::text::uuid AS u) x",
                        &[&uuid, &text(&v, "alphanumeric"), &text(&v, "numeric")],
                    )
                    .unwrap();
                assert_eq!(row.get::<_, String>(0), uuid, "{name}");
                assert_eq!(
                    row.get::<_, Vec<u8>>(1),
                    hex(text(&v, "bytes_hex")),
                    "{name}"
                );
                assert_eq!(row.get::<_, String>(2), text(&v, "numeric"), "{name}");
                assert_eq!(row.get::<_, String>(3), text(&v, "alphanumeric"), "{name}");
                assert!(row.get::<_, bool>(4), "{name}: alphanumeric_decode_uuid");
                assert!(
                    row.get::<_, bool>(5),
                    "{name}: distributed_id128_from_numeric"
                );
                if kind == "value" {
                    let p = &v["parts"];
                    let row = db
                        .query_one(
                            &format!(
                                "SELECT to_char(p.time, {MS}), p.random::text,
                                        distributed_id128_from_parts(p.time, p.random) = u,
                                        distributed_id128_timestamp(u) = p.time,
                                        distributed_id128_from_time(p.time)
                                            = distributed_id128_from_parts(p.time, 0)
                                 FROM (SELECT $1::text::uuid AS u) x, distributed_id128_parts(u) p"
                            ),
                            &[&uuid],
                        )
                        .unwrap();
                    assert_eq!(row.get::<_, String>(0), text(p, "time"), "{name}");
                    assert_eq!(row.get::<_, String>(1), decimal(&p["random"]), "{name}");
                    for i in 2..5 {
                        assert!(row.get::<_, bool>(i), "{name}: parts round trip {i}");
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!((checked, core_only), (33, 22));
}

#[test]
fn binary_input_is_range_checked() {
    let mut db = connect();
    // 12 bytes hold up to 2^96 - 1; the type only up to 10^28 - 1.
    let largest = DistributedId::from_bytes(hex("204fce5e3e2502610fffffff").try_into().unwrap());
    let too_large = DistributedId::from_bytes(hex("204fce5e3e25026110000000").try_into().unwrap());
    let text: String = db
        .query_one("SELECT $1::distributed_id::text", &[&largest])
        .unwrap()
        .get(0);
    assert_eq!(text, "9999999999999999999999999999");
    for id in [too_large, DistributedId::from_bytes([0xff; 12])] {
        let state = sqlstate(db.query_one("SELECT $1::distributed_id::text", &[&id]));
        assert_eq!(state, "22003", "{}", id.to_hex());
    }
}

/// The random parts `query` returns, one per row, as text.
fn draws(db: &mut postgres::Client, query: &str) -> Vec<String> {
    db.query(query, &[])
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect()
}

const FLAXID_DRAWS: &str =
    "SELECT (flaxid_parts(flaxid_generate())).random::text FROM generate_series(1, 1000)";
const DISTRIBUTED_ID_DRAWS: &str =
    "SELECT (distributed_id_parts(distributed_id_generate())).random::text
     FROM generate_series(1, 1000)";
const DISTRIBUTED_ID128_DRAWS: &str =
    "SELECT (distributed_id128_parts(distributed_id128_generate())).random::text
     FROM generate_series(1, 1000)";

#[test]
fn backends_have_their_own_random_streams() {
    // Two backends forked from the same postmaster, used one after the other:
    // their random values never coincide (56, 48 and 75 random bits; equal
    // streams would repeat every value).
    let mut a = connect();
    let mut b = connect();
    for query in [FLAXID_DRAWS, DISTRIBUTED_ID_DRAWS, DISTRIBUTED_ID128_DRAWS] {
        let first: HashSet<String> = draws(&mut a, query).into_iter().collect();
        let second = draws(&mut b, query);
        assert_eq!(first.len(), 1000, "{query}");
        let shared = second.iter().filter(|d| first.contains(*d)).count();
        assert_eq!(shared, 0, "two backends share random values: {query}");
    }
    // A fresh backend never repeats another's first draws.
    let mut seen = HashSet::new();
    for _ in 0..16 {
        let mut db = connect();
        let row = db
            .query_one(
                "SELECT (flaxid_parts(flaxid_generate())).random::text,
                        (distributed_id_parts(distributed_id_generate())).random::text,
                        (distributed_id128_parts(distributed_id128_generate())).random::text",
                &[],
            )
            .unwrap();
        for i in 0..3 {
            let draw: String = row.get(i);
            assert!(
                seen.insert((i, draw.clone())),
                "first draw {i} repeated: {draw}"
            );
        }
    }
}

#[test]
fn parallel_workers_have_their_own_random_streams() {
    let mut db = connect();
    db.batch_execute(
        "DROP TABLE IF EXISTS random_rows;
         CREATE TABLE random_rows AS SELECT g FROM generate_series(1, 40000) g;
         ANALYZE random_rows;
         SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
         SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 4",
    )
    .unwrap();
    for generate in [
        "(flaxid_parts(flaxid_generate())).random",
        "(distributed_id_parts(distributed_id_generate())).random",
    ] {
        let query = format!(
            "SELECT count(*) - count(DISTINCT r) FROM (SELECT {generate} AS r FROM random_rows) s"
        );
        let plan: Vec<String> = db
            .query(&format!("EXPLAIN (ANALYZE, COSTS OFF) {query}"), &[])
            .unwrap()
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect();
        assert!(
            plan.iter()
                .any(|l| l.trim_start().starts_with("Workers Launched: ") && !l.ends_with(": 0")),
            "no parallel worker ran: {plan:?}"
        );
        let repeated: i64 = db.query_one(&query, &[]).unwrap().get(0);
        assert_eq!(repeated, 0, "workers repeated random values: {generate}");
    }
    db.batch_execute("DROP TABLE random_rows").unwrap();
}

#[test]
fn concurrent_distributed_id_generation() {
    assert_concurrent_generation(
        "distributed_id",
        "distributed_id_generate()",
        8,
        100_000,
        Order::Increasing,
        None,
    );
}
