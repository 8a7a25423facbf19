mod common;

use common::generators::{unit, T0};
use common::*;
use flake_core::clock::ScriptedClock;
use flake_core::slot::{SequenceRange, SlotAssignment};
use flake_core::snowflake::{
    from_parts, from_time, parts, timestamp, SnowflakeGenerator, SnowflakeParts,
    DEFAULT_EPOCH_MILLIS, SLOT_RULE,
};
use flake_core::ErrorKind;
use proptest::prelude::*;
use serde_json::Value;

fn millis(v: &Value) -> i64 {
    (time_nanos(v) / 1_000_000) as i64
}

#[test]
fn every_value_vector() {
    let all = vectors("snowflake.jsonl");
    let values: Vec<_> = all.iter().filter(|v| v.get("text").is_some()).collect();
    assert_eq!(values.len(), 11);
    for v in values {
        let n = name(v);
        let id: i64 = v["text"].as_str().unwrap().parse().unwrap();
        let epoch = int(&v["epoch_ms"]) as i64;
        let p = &v["parts"];
        assert_eq!(
            to_hex(&id.to_be_bytes()),
            v["bytes_hex"].as_str().unwrap(),
            "{n}"
        );
        let got = parts(id, epoch).unwrap();
        let want = SnowflakeParts {
            time: millis(&p["time"]) * 1000,
            worker: int(&p["worker"]) as u32,
            process: int(&p["process"]) as u32,
            sequence: int(&p["sequence"]) as u32,
        };
        assert_eq!(got, want, "{n}");
        assert_eq!(timestamp(id, epoch).unwrap(), want.time, "{n}");
        let rebuilt = from_parts(
            millis(&p["time"]),
            want.worker as i64,
            want.process as i64,
            want.sequence as i64,
            epoch,
        )
        .unwrap();
        assert_eq!(rebuilt, id, "{n}");
        assert_eq!(
            from_time(want.time + 999, epoch).unwrap(),
            id & !((1 << 22) - 1),
            "{n}"
        );
    }
}

#[test]
fn out_of_range_vectors() {
    let all = vectors("snowflake.jsonl");
    let cases = of_kind(&all, &["out_of_range"]);
    assert_eq!(cases.len(), 2);
    for v in cases {
        let i = &v["input"];
        let err = from_parts(
            millis(&i["time"]),
            int(&i["worker"]) as i64,
            int(&i["process"]) as i64,
            int(&i["sequence"]) as i64,
            int(&i["epoch_ms"]) as i64,
        )
        .unwrap_err();
        assert_eq!(
            err.kind().sqlstate(),
            v["sqlstate"].as_str().unwrap(),
            "{}",
            name(v)
        );
    }
}

#[test]
fn discord_example() {
    let p = parts(175_928_847_299_117_063, DEFAULT_EPOCH_MILLIS).unwrap();
    assert_eq!(
        flake_core::time::format_rfc3339_micros(p.time),
        "2016-04-30T11:18:25.796000Z"
    );
    assert_eq!((p.worker, p.process, p.sequence), (1, 0, 7));
}

#[test]
fn time_range() {
    let e = DEFAULT_EPOCH_MILLIS;
    let last = e + (1 << 41) - 1;
    assert_eq!(from_parts(e, 0, 0, 0, e).unwrap(), 0);
    assert_eq!(from_parts(last, 31, 31, 4095, e).unwrap(), i64::MAX);
    for ms in [e - 1, last + 1, i64::MIN, i64::MAX] {
        let err = from_parts(ms, 0, 0, 0, e).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DatetimeOverflow, "{ms}");
    }
    assert_eq!(
        from_time(e * 1000 - 1, e).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(
        from_time(i64::MIN, i64::MAX).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    // A negative epoch (before 1970) works the same way.
    assert_eq!(from_parts(-5, 0, 0, 0, -10).unwrap(), 5 << 22);
    assert_eq!(timestamp(5 << 22, -10).unwrap(), -5000);
}

#[test]
fn field_ranges() {
    let e = DEFAULT_EPOCH_MILLIS;
    for (worker, process, sequence) in [
        (32, 0, 0),
        (-1, 0, 0),
        (0, 32, 0),
        (0, -1, 0),
        (0, 0, 4096),
        (0, 0, -1),
    ] {
        let err = from_parts(e, worker, process, sequence, e).unwrap_err();
        assert_eq!(
            err.kind().sqlstate(),
            "22003",
            "{worker} {process} {sequence}"
        );
    }
    assert_eq!(
        parts(-1, e).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        timestamp(i64::MAX, i64::MAX).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parts_round_trip(
        ms in 0i64..(1 << 41),
        worker in 0i64..32,
        process in 0i64..32,
        sequence in 0i64..4096,
        epoch in -(1i64 << 42)..(1i64 << 42),
    ) {
        let id = from_parts(epoch + ms, worker, process, sequence, epoch).unwrap();
        prop_assert!(id >= 0);
        let p = parts(id, epoch).unwrap();
        prop_assert_eq!(p.time, (epoch + ms) * 1000);
        prop_assert_eq!((p.worker as i64, p.process as i64, p.sequence as i64), (worker, process, sequence));
    }

    #[test]
    fn time_order_is_value_order(a in 0i64..(1 << 41), b in 0i64..(1 << 41)) {
        let e = DEFAULT_EPOCH_MILLIS;
        let (x, y) = (from_parts(e + a, 31, 31, 4095, e).unwrap(), from_parts(e + b, 0, 0, 0, e).unwrap());
        prop_assert_eq!(a < b, x < y);
    }

    #[test]
    fn any_bigint_decodes_or_is_rejected(v in any::<i64>(), epoch in any::<i64>()) {
        match parts(v, epoch) {
            Ok(p) => {
                let again = from_parts(p.time / 1000, p.worker as i64, p.process as i64, p.sequence as i64, epoch);
                prop_assert_eq!(again.unwrap(), v);
            }
            Err(e) => prop_assert!(matches!(e.kind(), ErrorKind::NumericOutOfRange | ErrorKind::DatetimeOverflow)),
        }
    }
}

// --- generator, with a scripted clock -------------------------------------
// (docs/formats/snowflake.md; the rules every generator shares are tested
// for all of them in marks.rs)

const UNIT: i64 = 1_000_000;
const EPOCH: i64 = DEFAULT_EPOCH_MILLIS;

fn slot(n: u32) -> SlotAssignment {
    SLOT_RULE.assign(n, 100).unwrap()
}

#[test]
fn slot_rule_uses_the_process_field_then_splits_the_sequence() {
    // 100 slots: 4 groups of 32 process ids, 1024 sequence values each.
    assert_eq!(
        slot(3),
        SlotAssignment {
            process: 3,
            range: SequenceRange {
                first: 0,
                last: 1023
            }
        }
    );
    assert_eq!(
        slot(70),
        SlotAssignment {
            process: 6,
            range: SequenceRange {
                first: 2048,
                last: 3071
            }
        }
    );
}

#[test]
fn first_unit_is_skipped() {
    let mut clock = ScriptedClock::new(T0 + 1000, UNIT / 4);
    let mut g = SnowflakeGenerator::starting_now(slot(3), &mut clock).unwrap();
    assert_eq!(g.state().floor, unit::<SnowflakeGenerator>(T0));
    let first = g.generate(&mut clock, 9, EPOCH).unwrap();
    assert!(clock.pauses >= 1, "must wait for the next unit");
    let p = parts(first, EPOCH).unwrap();
    assert_eq!(p.time, (T0 + UNIT) / 1000);
    assert_eq!((p.worker, p.process, p.sequence), (9, 3, 0));
}

#[test]
fn sequence_counts_within_a_unit_and_restarts_on_a_new_one() {
    let mut g = SnowflakeGenerator::new(slot(70), unit::<SnowflakeGenerator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0, 1);
    let ids: Vec<i64> = (0..5)
        .map(|_| g.generate(&mut clock, 1, EPOCH).unwrap())
        .collect();
    let seqs: Vec<u32> = ids
        .iter()
        .map(|&i| parts(i, EPOCH).unwrap().sequence)
        .collect();
    assert_eq!(seqs, [2048, 2049, 2050, 2051, 2052]);
    assert!(ids.iter().all(|&i| parts(i, EPOCH).unwrap().process == 6));
    clock.now = T0 + UNIT;
    assert_eq!(
        parts(g.generate(&mut clock, 1, EPOCH).unwrap(), EPOCH)
            .unwrap()
            .sequence,
        2048
    );
    assert_eq!(g.state().issued, 6);
}

#[test]
fn overflow_waits_for_the_next_unit() {
    let a = SlotAssignment {
        process: 1,
        range: SequenceRange {
            first: 10,
            last: 12,
        },
    };
    let mut g = SnowflakeGenerator::new(a, unit::<SnowflakeGenerator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0, UNIT / 8);
    let ids: Vec<i64> = (0..3)
        .map(|_| g.generate(&mut clock, 0, EPOCH).unwrap())
        .collect();
    assert_eq!(
        ids.iter().map(|&i| i & 4095).collect::<Vec<_>>(),
        [10, 11, 12]
    );
    assert_eq!(clock.pauses, 0);
    let next = g.generate(&mut clock, 0, EPOCH).unwrap();
    assert_eq!(clock.pauses, 8, "waited a whole unit");
    assert_eq!(next & 4095, 10);
    assert_eq!(timestamp(next, EPOCH).unwrap(), (T0 + UNIT) / 1000);
}

#[test]
fn a_regression_goes_on_in_logical_time() {
    let a = SlotAssignment {
        process: 0,
        range: SequenceRange { first: 0, last: 1 },
    };
    let mut g = SnowflakeGenerator::new(a, unit::<SnowflakeGenerator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0 + 10 * UNIT, UNIT / 4);
    let before = g.generate(&mut clock, 0, EPOCH).unwrap();
    // The clock goes back 5 ms: the rest of millisecond 10, then 11 and 12
    // of logical time, without waiting for the clock.
    clock.now = T0 + 5 * UNIT;
    let held = g.generate(&mut clock, 0, EPOCH).unwrap();
    assert_eq!(held, before + 1);
    let after: Vec<i64> = (0..4)
        .map(|_| g.generate(&mut clock, 0, EPOCH).unwrap())
        .collect();
    assert_eq!(clock.pauses, 0, "no wait for the clock to come back");
    let coordinates: Vec<(i64, u32)> = after
        .iter()
        .map(|&id| {
            let p = parts(id, EPOCH).unwrap();
            ((p.time * 1000 - T0) / UNIT, p.sequence)
        })
        .collect();
    assert_eq!(coordinates, [(11, 0), (11, 1), (12, 0), (12, 1)]);
    assert!(after[0] > held && after.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        g.state().lead,
        7 * UNIT,
        "millisecond 12 starts 7 ms after the clock"
    );
    // The clock back in the last unit used, which is used up: a wait of
    // less than one unit, then IDs at the clock again.
    clock.now = T0 + 12 * UNIT;
    let next = g.generate(&mut clock, 0, EPOCH).unwrap();
    assert_eq!(clock.pauses, 4);
    assert_eq!(timestamp(next, EPOCH).unwrap(), (T0 + 13 * UNIT) / 1000);
    assert_eq!(g.state().lead, 0);
}

#[test]
fn bad_worker_or_epoch_fails_before_spending_a_sequence() {
    let mut g = SnowflakeGenerator::new(slot(0), unit::<SnowflakeGenerator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0, 1);
    assert_eq!(
        g.generate(&mut clock, 32, EPOCH).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    let future_epoch = T0 / UNIT + 1;
    assert_eq!(
        g.generate(&mut clock, 0, future_epoch).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(g.state().issued, 0);
    assert_eq!(g.generate(&mut clock, 0, EPOCH).unwrap() & 4095, 0);
}

#[test]
fn generated_ids_are_unique_and_increasing() {
    let mut clock = ScriptedClock::new(T0, 37_000);
    let mut g = SnowflakeGenerator::starting_now(slot(5), &mut clock).unwrap();
    let mut last = 0;
    for i in 0..50_000 {
        if i % 1000 == 0 {
            clock.now -= 3 * UNIT; // occasional regressions
        }
        clock.now += 300;
        let id = g.generate(&mut clock, 2, EPOCH).unwrap();
        assert!(id > last);
        last = id;
    }
}

#[test]
fn time_before_1970_is_an_error() {
    let mut clock = ScriptedClock::new(-UNIT, 1);
    let err = SnowflakeGenerator::starting_now(slot(0), &mut clock).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    let mut g = SnowflakeGenerator::new(slot(0), unit::<SnowflakeGenerator>(T0));
    let err = g.generate(&mut clock, 0, EPOCH).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    assert_eq!(g.state().issued, 0);
}
