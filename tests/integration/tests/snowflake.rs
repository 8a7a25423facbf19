//! Every Snowflake vector through SQL, with the epoch as an argument and as
//! the setting, and concurrent generation.

use pg_flake_integration::*;

const MS: &str = r#"'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'"#;

#[test]
fn every_snowflake_vector_through_sql() {
    let mut db = connect();
    let mut checked = 0;
    for v in vectors("snowflake.jsonl") {
        let name = v["name"].as_str().unwrap();
        if v["kind"] == "out_of_range" {
            let i = &v["input"];
            let time = i["time"].as_str().unwrap();
            let epoch = as_i64(&i["epoch_ms"]);
            let state = if v["function"] == "snowflake_from_parts" {
                sqlstate(db.query_one(
                    "SELECT snowflake_from_parts($1::text::timestamptz, $2, $3, $4, $5)",
                    &[
                        &time,
                        &(as_i64(&i["worker"]) as i32),
                        &(as_i64(&i["process"]) as i32),
                        &(as_i64(&i["sequence"]) as i32),
                        &epoch,
                    ],
                ))
            } else {
                sqlstate(db.query_one(
                    "SELECT snowflake_from_time($1::text::timestamptz, $2)",
                    &[&time, &epoch],
                ))
            };
            assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
            checked += 1;
            continue;
        }
        let value: i64 = v["text"].as_str().unwrap().parse().unwrap();
        let bytes = hex(v["bytes_hex"].as_str().unwrap());
        let epoch = as_i64(&v["epoch_ms"]);
        let p = &v["parts"];
        let row = db
            .query_one(
                &format!(
                    "SELECT int8send($1), to_char(p.time, {MS}), p.worker, p.process, p.sequence,
                            snowflake_from_parts(p.time, p.worker, p.process, p.sequence, $2) = $1,
                            snowflake_timestamp($1, $2) = p.time,
                            snowflake_from_time(p.time, $2)
                                = snowflake_from_parts(p.time, 0, 0, 0, $2)
                     FROM snowflake_parts($1, $2) p"
                ),
                &[&value, &epoch],
            )
            .unwrap();
        assert_eq!(row.get::<_, Vec<u8>>(0), bytes, "{name}");
        assert_eq!(
            row.get::<_, String>(1),
            p["time"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(row.get::<_, i32>(2) as i64, as_i64(&p["worker"]), "{name}");
        assert_eq!(row.get::<_, i32>(3) as i64, as_i64(&p["process"]), "{name}");
        assert_eq!(
            row.get::<_, i32>(4) as i64,
            as_i64(&p["sequence"]),
            "{name}"
        );
        for i in 5..8 {
            assert!(row.get::<_, bool>(i), "{name}: round trip {i}");
        }
        // The forms without the epoch argument read pg_flake.snowflake_epoch.
        db.batch_execute(&format!("SET pg_flake.snowflake_epoch = {epoch}"))
            .unwrap();
        let same: bool = db
            .query_one(
                "SELECT snowflake_parts($1)::text = snowflake_parts($1, $2)::text
                        AND snowflake_timestamp($1) = snowflake_timestamp($1, $2)
                        AND snowflake_from_time(snowflake_timestamp($1))
                            = snowflake_from_time(snowflake_timestamp($1), $2)
                        AND snowflake_from_parts(p.time, p.worker, p.process, p.sequence) = $1
                 FROM snowflake_parts($1, $2) p",
                &[&value, &epoch],
            )
            .unwrap()
            .get(0);
        assert!(same, "{name}: the setting's forms agree");
        db.batch_execute("RESET pg_flake.snowflake_epoch").unwrap();
        checked += 1;
    }
    assert_eq!(checked, 13);
}

#[test]
fn concurrent_snowflake_generation() {
    assert_concurrent_generation(
        "bigint",
        "snowflake_generate()",
        8,
        100_000,
        Order::Increasing,
        Some(Counter {
            unit: "id >> 22",
            sequence: "id & 4095",
            process: Some("(id >> 12) & 31"),
        }),
    );
}

#[test]
fn shared_mode_orders_ids_across_backends() {
    if mode() == "shared" {
        assert_increasing_across_connections("bigint", "snowflake_generate()", 8, 250);
    }
}
