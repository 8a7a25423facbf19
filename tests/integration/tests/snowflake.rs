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

/// Per-backend mode: a backend that takes over the slot of one that has
/// exited gets its process field and sequence range too, so only the
/// first-unit rule (docs/guarantees.md, "A slot's next holder") keeps it from
/// repeating the IDs its predecessor made last. Snowflake's 1 ms unit and
/// 5-bit process field make it the format where that matters most.
///
/// A new backend takes the lowest free slot (`MyBackendId`), so the next
/// connection normally gets the predecessor's; the test does not count on
/// it: connections are opened one after another, each generating at once and
/// reporting its slot, until one lands in the predecessor's (as needed where
/// slots are handed out first-in first-out, `MyProcNumber` from PostgreSQL
/// 17, which however runs shared mode without preloading too).
#[test]
fn backend_in_a_predecessors_slot_repeats_none_of_its_ids() {
    if mode() != "backend" {
        println!("predecessor's slot: shared mode has one generator for the server, nothing to take over");
        return;
    }
    const PREDECESSOR_IDS: i32 = 20_000;
    const CANDIDATE_IDS: i32 = 1_000;
    let mut db = connect();
    db.batch_execute(
        "DROP TABLE IF EXISTS snowflake_slot_ids;
         CREATE TABLE snowflake_slot_ids (id bigint PRIMARY KEY, backend int)",
    )
    .unwrap();
    let generate = "INSERT INTO snowflake_slot_ids
        SELECT snowflake_generate(), $1::int FROM generate_series(1, $2::int)";
    let state = "SELECT slot, nslots, process, range_first, range_last, pg_backend_pid()
                 FROM pg_flake_generator_state() WHERE format = 'snowflake'";

    // The predecessor generates, reports its slot and exits.
    let mut predecessor = connect();
    predecessor
        .execute(generate, &[&0, &PREDECESSOR_IDS])
        .unwrap();
    let row = predecessor.query_one(state, &[]).unwrap();
    let (slot, nslots, assignment, pid): (i32, i32, (i32, i32, i32), i32) = (
        row.get(0),
        row.get(1),
        (row.get(2), row.get(3), row.get(4)),
        row.get(5),
    );
    drop(predecessor);
    let waited = std::time::Instant::now();
    while db
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
            &[&pid],
        )
        .unwrap()
        .get::<_, i64>(0)
        > 0
    {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(10),
            "the predecessor's backend {pid} does not exit"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }

    // Candidates, one at a time; every one generates (a candidate in another
    // slot shows nothing, but inserts into the same primary key). One in a
    // lower slot stays connected until the end: a lowest-free allocator
    // would hand that slot out again, and never the predecessor's.
    let mut successor = None;
    let mut below = Vec::new();
    for backend in 1..=2 * nslots {
        let mut candidate = connect();
        candidate
            .execute(generate, &[&backend, &CANDIDATE_IDS])
            .unwrap_or_else(|e| panic!("candidate {backend}: {e:?}"));
        let row = candidate.query_one(state, &[]).unwrap();
        let candidate_slot: i32 = row.get(0);
        if candidate_slot == slot {
            assert_eq!(
                (row.get(2), row.get(3), row.get(4)),
                assignment,
                "the successor in slot {slot} has the predecessor's process field and range"
            );
            successor = Some(backend);
            break;
        }
        if candidate_slot < slot {
            below.push(candidate);
        }
    }
    drop(below);
    let successor = successor.unwrap_or_else(|| {
        panic!(
            "no new connection took slot {slot} of {nslots} within {} attempts",
            2 * nslots
        )
    });

    let row = db
        .query_one(
            "SELECT (SELECT count(*) FROM snowflake_slot_ids WHERE backend = 0),
                    (SELECT count(*) FROM snowflake_slot_ids WHERE backend = $1),
                    (SELECT min(id >> 22) FROM snowflake_slot_ids WHERE backend = $1)
                        - (SELECT max(id >> 22) FROM snowflake_slot_ids WHERE backend = 0)",
            &[&successor],
        )
        .unwrap();
    let (made_before, made_after, gap_ms): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(
        (made_before, made_after),
        (PREDECESSOR_IDS as i64, CANDIDATE_IDS as i64),
        "every ID of both backends in the primary key: none repeated"
    );
    assert!(
        gap_ms > 0,
        "the successor's first ID is in a later millisecond than the predecessor's last"
    );
    println!(
        "predecessor's slot: {PREDECESSOR_IDS} IDs from slot {slot} of {nslots} (process field {}, \
         sequence range {}-{}), then connection {successor} after it took that slot and made \
         {CANDIDATE_IDS} more: none repeated, its first {gap_ms} ms after the predecessor's last",
        assignment.0,
        assignment.1,
        assignment.2
    );
    db.batch_execute("DROP TABLE snowflake_slot_ids").unwrap();
}
