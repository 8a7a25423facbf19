//! Every sno vector through SQL, and the concurrency guarantee with real
//! connections.

use flake_core::sno::Sno;
use pg_flake_integration::*;
use postgres::types::{to_sql_checked, IsNull, ToSql, Type};

#[test]
fn every_sno_vector_through_sql() {
    let mut db = connect();
    let mut checked = 0;
    for v in vectors("sno.jsonl") {
        let name = v["name"].as_str().unwrap();
        if v["kind"] == "out_of_range" {
            let time = v["input"]["time"].as_str().unwrap();
            for sql in [
                "SELECT sno_from_time($1::text::timestamptz)",
                "SELECT sno_from_parts($1::text::timestamptz, 0, 0, 0)",
            ] {
                let state = sqlstate(db.query_one(sql, &[&time]));
                assert!(
                    accepts(&v["sqlstate"], &state),
                    "{name}: {sql} gave {state}"
                );
            }
            checked += 1;
            continue;
        }
        let text = v["text"].as_str().unwrap();
        let bytes = hex(v["bytes_hex"].as_str().unwrap());
        let p = &v["parts"];
        // Binary wire format: the client's sno is exactly the vector's bytes.
        let row = db.query_one("SELECT $1::text::sno", &[&text]).unwrap();
        let id: Sno = row.get(0);
        assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{name}");
        let row = db
            .query_one(
                "SELECT s::text, s::bytea, to_char(t, 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), tick_tock, meta, partition, sequence,
                        sno_from_parts(t, meta, partition, sequence, tick_tock) = s
                 FROM (SELECT $1::text::sno AS s) x, sno_parts(s) AS p(t, tick_tock, meta, partition, sequence)",
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
        assert_eq!(
            row.get::<_, bool>(3),
            p["tick_tock"].as_bool().unwrap(),
            "{name}"
        );
        assert_eq!(
            row.get::<_, i32>(4) as i64,
            p["meta"].as_i64().unwrap(),
            "{name}"
        );
        assert_eq!(
            row.get::<_, i32>(5) as i64,
            p["partition"].as_i64().unwrap(),
            "{name}"
        );
        assert_eq!(
            row.get::<_, i32>(6) as i64,
            p["sequence"].as_i64().unwrap(),
            "{name}"
        );
        assert!(
            row.get::<_, bool>(7),
            "{name}: from_parts(parts) round trip"
        );
        if let (Some(input_time), false) = (v.get("input_time"), p["tick_tock"].as_bool().unwrap())
        {
            // Truncated to microseconds (timestamptz precision), the input
            // time rounds down to the value's unit.
            let t = input_time.as_str().unwrap();
            let micros = &t[..t.len().min(26)];
            let row = db
                .query_one(
                    "SELECT sno_from_parts(($1 || 'Z')::timestamptz, $2, $3, $4) = $5::text::sno",
                    &[
                        &micros.trim_end_matches('Z'),
                        &(p["meta"].as_i64().unwrap() as i32),
                        &(p["partition"].as_i64().unwrap() as i32),
                        &(p["sequence"].as_i64().unwrap() as i32),
                        &text,
                    ],
                )
                .unwrap();
            assert!(row.get::<_, bool>(0), "{name}: input_time {t}");
        }
        checked += 1;
    }
    assert_eq!(checked, 82);
}

#[test]
fn every_invalid_sno_vector_through_sql() {
    let mut db = connect();
    let all = vectors("sno-invalid.jsonl");
    for v in &all {
        let name = v["name"].as_str().unwrap();
        let state = match v["kind"].as_str().unwrap() {
            "invalid_text" => {
                sqlstate(db.query_one("SELECT $1::text::sno", &[&v["input"].as_str().unwrap()]))
            }
            "invalid_bytes" => {
                let bytes = hex(v["input_bytes_hex"].as_str().unwrap());
                sqlstate(db.query_one("SELECT $1::bytea::sno", &[&bytes]))
            }
            other => panic!("unknown kind {other}"),
        };
        assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
    }
    assert_eq!(all.len(), 18);
}

#[test]
fn binary_parameters_round_trip() {
    let mut db = connect();
    let id: Sno = "brpk4q72xwf2m63l".parse().unwrap();
    let row = db
        .query_one("SELECT $1::sno::text, $1::sno", &[&id])
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "brpk4q72xwf2m63l");
    assert_eq!(row.get::<_, Sno>(1), id);
    // A wrong length in the binary protocol is 22P03, and the session goes on.
    for len in [0, 9, 11] {
        let state = sqlstate(db.query_one("SELECT $1::sno", &[&RawSno(vec![7; len])]));
        assert_eq!(state, "22P03", "{len} bytes");
    }
    assert_eq!(db.query_one("SELECT 1", &[]).unwrap().get::<_, i32>(0), 1);
}

/// Arbitrary bytes sent as a binary `sno` parameter.
#[derive(Debug)]
struct RawSno(Vec<u8>);

impl ToSql for RawSno {
    fn to_sql(
        &self,
        _ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }
    fn accepts(ty: &Type) -> bool {
        ty.name() == "sno"
    }
    to_sql_checked!();
}

const SNO_COUNTER: Counter = Counter {
    unit: "sno_timestamp(id)::text || sno_tick_tock(id)::text",
    sequence: "sno_sequence(id)",
    process: Some("sno_partition(id) % 256"),
};

#[test]
fn concurrent_backends_never_collide_and_each_one_increases() {
    assert_concurrent_generation(
        "sno",
        "sno_generate()",
        8,
        100_000,
        Order::Increasing,
        Some(SNO_COUNTER),
    );
}

#[test]
fn shared_mode_orders_ids_across_backends() {
    if mode() == "shared" {
        assert_increasing_across_connections("sno", "sno_generate()", 8, 250);
    }
}
