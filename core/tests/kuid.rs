mod common;

use common::generators::{unit, MS, T0};
use common::*;
use flake_core::clock::ScriptedClock;
use flake_core::kuid::{
    kuid64_decode, kuid64_encode, kuid64_from_parts, kuid64_from_time, kuid64_parts,
    kuid64_timestamp, node_fingerprint, ErlangTime, Kuid64Generator, Kuid96, Kuid96Generator,
    SLOT_RULE,
};
use flake_core::slot::{SequenceRange, SlotAssignment};
use flake_core::{ErrorKind, FlakeId};
use proptest::prelude::*;
use serde_json::Value;

fn micros(v: &Value) -> i64 {
    (time_nanos(v) / 1000) as i64
}

/// The instant a vector's value was built from.
fn input_micros(v: &Value) -> i64 {
    micros(v.get("input_time").unwrap_or(&v["parts"]["time"]))
}

// --- kuid64 -----------------------------------------------------------------

#[test]
fn every_kuid64_value_vector() {
    let all = vectors("kuid64.jsonl");
    let values: Vec<_> = all.iter().filter(|v| v.get("text").is_some()).collect();
    assert_eq!(values.len(), 20);
    for v in values {
        let n = name(v);
        let text = v["text"].as_str().unwrap();
        let integer = int(&v["integer"]) as i64;
        let p = &v["parts"];
        assert_eq!(kuid64_decode(text).unwrap(), integer, "{n}");
        assert_eq!(kuid64_encode(integer).unwrap(), text, "{n}");
        assert_eq!(
            to_hex(&integer.to_be_bytes()),
            v["bytes_hex"].as_str().unwrap(),
            "{n}"
        );
        let parts = kuid64_parts(integer).unwrap();
        assert_eq!(parts.time, micros(&p["time"]), "{n}");
        assert_eq!(kuid64_timestamp(integer).unwrap(), parts.time);
        assert_eq!(parts.megaseconds as i128, int(&p["megaseconds"]), "{n}");
        assert_eq!(parts.seconds as i128, int(&p["seconds"]), "{n}");
        assert_eq!(parts.microseconds as i128, int(&p["microseconds"]), "{n}");
        assert_eq!(parts.seq as i128, int(&p["seq"]), "{n}");
        let seq = parts.seq as i64;
        assert_eq!(
            kuid64_from_parts(input_micros(v), seq).unwrap(),
            integer,
            "{n}"
        );
        assert_eq!(kuid64_from_parts(parts.time, seq).unwrap(), integer, "{n}");
        assert_eq!(
            kuid64_from_time(input_micros(v)).unwrap(),
            integer - seq,
            "{n}"
        );
    }
}

#[test]
fn kuid64_out_of_range_vectors() {
    let all = vectors("kuid64.jsonl");
    let cases = of_kind(&all, &["out_of_range"]);
    assert_eq!(cases.len(), 5);
    for v in cases {
        let input = &v["input"];
        let sqlstate = v["sqlstate"].as_str().unwrap();
        let time = micros(&input["time"]);
        let err = kuid64_from_time(time).unwrap_err();
        assert_eq!(err.kind().sqlstate(), sqlstate, "{}", name(v));
        let err = kuid64_from_parts(time, int(&input["seq"]) as i64).unwrap_err();
        assert_eq!(err.kind().sqlstate(), sqlstate, "{}", name(v));
    }
}

#[test]
fn kuid64_edges() {
    assert_eq!(kuid64_encode(0).unwrap(), "...........");
    assert_eq!(kuid64_encode(i64::MAX).unwrap(), "Uzzzzzzzzzw");
    assert_eq!(kuid64_decode("Uzzzzzzzzzw").unwrap(), i64::MAX);
    // Well formed, but the top bit is set: no positive bigint.
    let err = kuid64_decode("V..........").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NumericOutOfRange);
    for bad in [
        "",
        "..........",
        "............",
        "..........0",
        "..........1",
        "........!..",
        "ééééé.",
    ] {
        let err = kuid64_decode(bad).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidText, "{bad:?}");
        assert!(err.to_string().contains("invalid input syntax for kuid64:"));
    }
    assert_eq!(
        kuid64_encode(-1).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        kuid64_parts(-1).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        kuid64_from_time(-1).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(
        kuid64_from_time(i64::MAX).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    for seq in [-1, 16384, i64::MAX] {
        let err = kuid64_from_parts(0, seq).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NumericOutOfRange, "{seq}");
    }
    // The last instant of the range: A = 2^19 - 1.
    let last = (524_287_999_999i64) * 1_000_000 + 999_999;
    let max = kuid64_from_parts(last, 16383).unwrap();
    assert!(max > 0);
    let p = kuid64_parts(max).unwrap();
    assert_eq!(
        (p.megaseconds, p.seconds, p.microseconds),
        (524_287, 999_999, 999_424)
    );
    assert_eq!(
        kuid64_from_time(last + 1).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
}

#[test]
fn erlang_time() {
    let t = ErlangTime::from_unix_micros(1_539_625_275_432_999).unwrap();
    assert_eq!(
        (t.megaseconds, t.seconds, t.units),
        (1539, 625_275, 432_999 >> 10)
    );
    assert_eq!(t.unix_micros(), 1_539_625_275_432_128);
    assert_eq!(ErlangTime::from_monotonic_unit(t.monotonic_unit()), t);
    assert_eq!(ErlangTime::from_unix_micros(-1), None);
}

// --- kuid96 -----------------------------------------------------------------

fn interval(v: &Value) -> u32 {
    int(&v["interval"]) as u32
}

#[test]
fn every_kuid96_vector() {
    let all = vectors("kuid96.jsonl");
    assert_eq!(all.len(), 25);
    for v in &all {
        let n = name(v);
        let text = v["text"].as_str().unwrap();
        let bytes = hex(v["bytes_hex"].as_str().unwrap());
        let id: Kuid96 = text.parse().unwrap_or_else(|e| panic!("{n}: {e}"));
        assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{n}");
        assert_eq!(id.to_string(), text, "{n}");
        assert_eq!(Kuid96::from_slice(&bytes).unwrap(), id);
        if v["kind"] == "encoding" {
            continue;
        }
        let i = interval(v);
        let node = int(&v["node"]) as u32;
        let p = &v["parts"];
        let parts = id.parts(i).unwrap();
        assert_eq!(parts.time, micros(&p["time"]), "{n}");
        assert_eq!(parts.node as i128, int(&p["node"]), "{n}");
        assert_eq!(parts.node, node, "{n}");
        assert_eq!(parts.seq as i128, int(&p["seq"]), "{n}");
        assert_eq!(id.seq(), parts.seq);
        assert_eq!(id.timestamp(i).unwrap(), parts.time);
        assert_eq!(id.node(i).unwrap(), node);
        let seq = parts.seq as i64;
        assert_eq!(
            Kuid96::from_parts(input_micros(v), node, seq, i).unwrap(),
            id,
            "{n}"
        );
        assert_eq!(
            Kuid96::from_parts(parts.time, node, seq, i).unwrap(),
            id,
            "{n}"
        );
        let at = Kuid96::from_time(input_micros(v), i).unwrap();
        assert_eq!(
            at.parts(i).unwrap(),
            flake_core::kuid::Kuid96Parts {
                time: parts.time,
                node: 0,
                seq: 0
            }
        );
        if let Some(name) = v.get("node_name") {
            assert_eq!(node_fingerprint(name.as_str().unwrap()), node, "{n}");
        }
        match v.get("kuid64") {
            Some(local) => {
                let local = int(local) as i64;
                assert_eq!(Kuid96::globalize(local, node, i).unwrap(), id, "{n}");
                assert_eq!(id.localize(i).unwrap(), local, "{n}");
            }
            None => {
                let err = id.localize(i).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::DatetimeOverflow, "{n}");
            }
        }
    }
}

#[test]
fn kuid96_interval_must_be_5_to_10() {
    let id = Kuid96::from_bytes([7; 12]);
    for bad in [0, 4, 11, u32::MAX] {
        let kinds = [
            Kuid96::from_parts(0, 0, 0, bad).unwrap_err().kind(),
            Kuid96::from_time(0, bad).unwrap_err().kind(),
            Kuid96::globalize(0, 0, bad).unwrap_err().kind(),
            id.localize(bad).unwrap_err().kind(),
            id.parts(bad).unwrap_err().kind(),
            id.timestamp(bad).unwrap_err().kind(),
            id.node(bad).unwrap_err().kind(),
        ];
        assert!(
            kinds.iter().all(|&k| k == ErrorKind::InvalidParameter),
            "{bad}"
        );
        assert_eq!(ErrorKind::InvalidParameter.sqlstate(), "22023");
    }
}

#[test]
fn kuid96_edges() {
    assert_eq!(Kuid96::from_bytes([0; 12]).to_string(), "................");
    assert_eq!(
        Kuid96::from_bytes([0xff; 12]).to_string(),
        "zzzzzzzzzzzzzzzz"
    );
    let last = 1_048_575_999_999i64 * 1_000_000 + 999_999;
    assert!(Kuid96::from_time(last, 8).is_ok());
    assert_eq!(
        Kuid96::from_time(last + 1, 8).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(
        Kuid96::from_time(-1, 8).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(
        Kuid96::from_parts(0, 0, 16384, 8).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        Kuid96::from_parts(0, 0, -1, 8).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        Kuid96::globalize(-5, 0, 8).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    for bad in [
        "",
        "...............",
        ".................",
        "...............!",
        "..............é",
    ] {
        let err = bad.parse::<Kuid96>().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidText, "{bad:?}");
        assert!(err
            .to_string()
            .contains("invalid input syntax for type kuid96"));
    }
}

#[test]
fn node_fingerprints() {
    assert_eq!(node_fingerprint(""), 0);
    assert_eq!(node_fingerprint("uid@127.0.0.1"), 0x03eb_2731);
    // Latin-1 characters count as their single byte: é is 0xE9.
    assert_eq!(node_fingerprint("é"), 0xE9);
    assert_eq!(node_fingerprint("aé"), (0x61 << 4) + 0xE9);
    // Other multi-byte characters count byte by byte.
    assert_eq!(node_fingerprint("€"), {
        let mut h: u32 = 0;
        for b in "€".bytes() {
            h = (h << 4) + b as u32;
        }
        h
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn kuid64_text_round_trip(v in 0i64..=i64::MAX) {
        let text = kuid64_encode(v).unwrap();
        prop_assert_eq!(text.len(), 11);
        prop_assert_eq!(kuid64_decode(&text).unwrap(), v);
    }

    #[test]
    fn kuid64_text_order_is_value_order(a in 0i64..=i64::MAX, b in 0i64..=i64::MAX) {
        prop_assert_eq!(kuid64_encode(a).unwrap().cmp(&kuid64_encode(b).unwrap()), a.cmp(&b));
    }

    #[test]
    fn kuid64_parts_round_trip(us in 0i64..524_288_000_000_000_000, seq in 0i64..16384) {
        let v = kuid64_from_parts(us, seq).unwrap();
        let p = kuid64_parts(v).unwrap();
        prop_assert_eq!(p.seq as i64, seq);
        prop_assert!(p.time <= us && us - p.time < 1024);
        prop_assert_eq!(kuid64_from_parts(p.time, seq).unwrap(), v);
    }

    #[test]
    fn kuid64_time_order_is_value_order(a in 0i64..524_288_000_000_000_000, b in 0i64..524_288_000_000_000_000) {
        let (x, y) = (kuid64_from_time(a).unwrap(), kuid64_from_time(b).unwrap());
        prop_assert!(a > b || x <= y);
    }

    #[test]
    fn kuid96_text_round_trip(bytes in any::<[u8; 12]>()) {
        let id = Kuid96::from_bytes(bytes);
        let text = id.to_string();
        prop_assert_eq!(text.len(), 16);
        prop_assert_eq!(text.parse::<Kuid96>().unwrap(), id);
    }

    #[test]
    fn kuid96_text_order_is_byte_order(a in any::<[u8; 12]>(), b in any::<[u8; 12]>()) {
        let (x, y) = (Kuid96::from_bytes(a), Kuid96::from_bytes(b));
        prop_assert_eq!(x.to_string().cmp(&y.to_string()), a.cmp(&b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
    }

    #[test]
    fn kuid96_parts_and_globalize_round_trip(
        us in 0i64..524_288_000_000_000_000,
        node in any::<u32>(),
        seq in 0i64..16384,
        interval in 5u32..=10,
    ) {
        let id = Kuid96::from_parts(us, node, seq, interval).unwrap();
        let p = id.parts(interval).unwrap();
        prop_assert_eq!((p.node, p.seq as i64), (node, seq));
        prop_assert!(p.time <= us && us - p.time < 1024);
        let local = id.localize(interval).unwrap();
        prop_assert_eq!(local, kuid64_from_parts(us, seq).unwrap());
        prop_assert_eq!(Kuid96::globalize(local, node, interval).unwrap(), id);
    }

    #[test]
    fn any_string_decodes_or_is_rejected(s in "\\PC{0,20}") {
        match s.parse::<Kuid96>() {
            Ok(id) => prop_assert_eq!(id.to_string(), s.clone()),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidText),
        }
        match kuid64_decode(&s) {
            Ok(v) => prop_assert_eq!(kuid64_encode(v).unwrap(), s),
            Err(e) => prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange)),
        }
    }

    #[test]
    fn alphabet_strings_decode_or_are_not_canonical(s in "[.0-9A-Z_a-z]{11}") {
        match kuid64_decode(&s) {
            Ok(v) => prop_assert_eq!(kuid64_encode(v).unwrap(), s),
            Err(e) => prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange)),
        }
    }

    #[test]
    fn fingerprint_never_panics(s in "\\PC{0,40}") {
        let _ = node_fingerprint(&s);
    }
}

// --- generators, with a scripted clock ---------------------------------------
// (docs/formats/kuid.md; the rules every generator shares are tested for
// all of them in marks.rs)

/// One 1024 µs unit in nanoseconds.
const UNIT: i64 = 1_024_000;

fn whole() -> SlotAssignment {
    SLOT_RULE.assign(3, 100).unwrap()
}

#[test]
fn slot_rule_divides_the_sequence_space() {
    // No process field: 100 slots share 2^14 sequence values, 163 each.
    assert_eq!(whole().process, 0);
    assert_eq!(
        whole().range,
        SequenceRange {
            first: 489,
            last: 651
        }
    );
    assert_eq!(
        SLOT_RULE.assign(0, 1).unwrap().range,
        SequenceRange::whole(14)
    );
}

#[test]
fn first_unit_is_skipped() {
    let mut clock = ScriptedClock::new(T0 + 1000, UNIT / 4);
    let mut g = Kuid64Generator::starting_now(whole(), &mut clock).unwrap();
    assert_eq!(g.state().floor, unit::<Kuid64Generator>(T0));
    let first = g.generate(&mut clock).unwrap();
    assert!(clock.pauses >= 1, "must wait for the next unit");
    let p = kuid64_parts(first).unwrap();
    assert_eq!(p.time, (T0 + UNIT) / 1000);
    assert_eq!(p.seq, whole().range.first);

    let mut clock = ScriptedClock::new(T0 + 1000, UNIT / 4);
    let mut g = Kuid96Generator::starting_now(whole(), &mut clock).unwrap();
    let first = g.generate(&mut clock, 0xdead_beef, 8).unwrap();
    assert!(clock.pauses >= 1);
    let p = first.parts(8).unwrap();
    assert_eq!(
        (p.time, p.node, p.seq),
        ((T0 + UNIT) / 1000, 0xdead_beef, whole().range.first)
    );
}

#[test]
fn units_follow_the_erlang_triple_across_a_second() {
    // The last unit of a second is 976 (999 424 µs); the next is the next
    // second's unit 0, though fewer than 1024 µs separate them.
    let mut g = Kuid64Generator::new(
        SLOT_RULE.assign(0, 1).unwrap(),
        unit::<Kuid64Generator>(T0 - 2 * UNIT),
    );
    let mut clock = ScriptedClock::new(T0 - 1000, 1); // 999 999 µs into the previous second
    let a = kuid64_parts(g.generate(&mut clock).unwrap()).unwrap();
    assert_eq!(a.microseconds, 999_424);
    clock.now = T0;
    let b = kuid64_parts(g.generate(&mut clock).unwrap()).unwrap();
    assert_eq!((b.microseconds, b.seq), (0, 0));
    assert_eq!(b.time - a.time, 576);
}

#[test]
fn sequence_counts_within_a_unit_and_restarts_on_a_new_one() {
    let mut g = Kuid64Generator::new(
        SLOT_RULE.assign(0, 1).unwrap(),
        unit::<Kuid64Generator>(T0 - UNIT),
    );
    let mut clock = ScriptedClock::new(T0, 1);
    let ids: Vec<i64> = (0..5).map(|_| g.generate(&mut clock).unwrap()).collect();
    let seqs: Vec<u32> = ids.iter().map(|&i| kuid64_parts(i).unwrap().seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3, 4]);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    clock.now = T0 + UNIT;
    assert_eq!(
        kuid64_parts(g.generate(&mut clock).unwrap()).unwrap().seq,
        0
    );
    assert_eq!(g.state().issued, 6);
}

#[test]
fn overflow_waits_for_the_next_unit() {
    let a = SlotAssignment {
        process: 0,
        range: SequenceRange {
            first: 10,
            last: 12,
        },
    };
    let mut g = Kuid96Generator::new(a, unit::<Kuid64Generator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0, UNIT / 8);
    let seqs: Vec<u32> = (0..3)
        .map(|_| g.generate(&mut clock, 1, 8).unwrap().seq())
        .collect();
    assert_eq!(seqs, [10, 11, 12]);
    assert_eq!(clock.pauses, 0);
    let next = g.generate(&mut clock, 1, 8).unwrap();
    assert_eq!(clock.pauses, 8, "waited a whole unit");
    assert_eq!(next.seq(), 10);
    assert_eq!(next.timestamp(8).unwrap(), (T0 + UNIT) / 1000);
}

#[test]
fn a_regression_goes_on_in_logical_time() {
    let a = SlotAssignment {
        process: 0,
        range: SequenceRange { first: 0, last: 1 },
    };
    let mut g = Kuid64Generator::new(a, unit::<Kuid64Generator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0 + 10 * UNIT, UNIT);
    let before = g.generate(&mut clock).unwrap();
    // The clock goes back 5 units: keep counting in unit 10.
    clock.now = T0 + 5 * UNIT;
    let held = g.generate(&mut clock).unwrap();
    assert_eq!(held, before + 1);
    // Unit 10 is used up: unit 11 of logical time, without waiting for the
    // clock (5 → 11).
    let after = g.generate(&mut clock).unwrap();
    assert_eq!(clock.pauses, 0);
    assert_eq!(kuid64_timestamp(after).unwrap(), (T0 + 11 * UNIT) / 1000);
    assert!(after > held);
    assert_eq!(g.state().lead, 6 * UNIT);
}

/// A slot with one sequence value per unit.
const ONE_VALUE: SlotAssignment = SlotAssignment {
    process: 0,
    range: SequenceRange { first: 0, last: 0 },
};

/// A generator of one sequence value per unit, its floor at unit 970
/// of the second before T0, and the clock standing still 40 ms before T0:
/// 20 IDs in logical time cross into T0's second.
fn across_a_second<T: Copy + Ord + std::fmt::Debug>(
    mut generate: impl FnMut(&mut ScriptedClock) -> T,
    micros: impl Fn(&T) -> (i64, u32, u32),
) -> Vec<T> {
    let mut clock = ScriptedClock::new(T0 - 40 * MS, 1);
    let ids: Vec<T> = (0..20).map(|_| generate(&mut clock)).collect();
    assert_eq!(clock.pauses, 0);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let times: Vec<(i64, u32, u32)> = ids.iter().map(micros).collect();
    for &(_, seconds, microseconds) in &times {
        assert!(seconds < 1_000_000 && microseconds < 1_000_000);
    }
    // Units 971 to 976 of the second before, then 0 to 13 of T0's: the
    // units 977 to 1023 stand for no time and are skipped.
    let expected: Vec<i64> = (971..=976)
        .map(|k| T0 / 1000 - 1_000_000 + k * 1024)
        .chain((0..14).map(|k| T0 / 1000 + k * 1024))
        .collect();
    assert_eq!(times.iter().map(|t| t.0).collect::<Vec<_>>(), expected);
    ids
}

#[test]
fn logical_time_skips_the_units_that_stand_for_no_time() {
    let floor = unit::<Kuid64Generator>(T0 - 1000) - 6;
    assert_eq!(floor % 1024, 970);
    let mut g64 = Kuid64Generator::new(ONE_VALUE, floor);
    across_a_second(
        |clock| g64.generate(clock).unwrap(),
        |&id| {
            let p = kuid64_parts(id).unwrap();
            assert_eq!(kuid64_from_parts(p.time, p.seq as i64).unwrap(), id);
            (p.time, p.seconds, p.microseconds)
        },
    );
    // The last ID's unit (13) starts 13 units after T0, the clock 40 ms before.
    assert_eq!(g64.state().lead, 40 * MS + 13 * UNIT);

    let mut g96 = Kuid96Generator::new(ONE_VALUE, floor);
    across_a_second(
        |clock| g96.generate(clock, 7, 8).unwrap(),
        |id| {
            let p = kuid64_parts(id.localize(8).unwrap()).unwrap();
            assert_eq!(id.timestamp(8).unwrap(), p.time);
            (p.time, p.seconds, p.microseconds)
        },
    );
}

#[test]
fn kuid96_generator_checks_the_interval_before_spending_a_sequence() {
    let mut g = Kuid96Generator::new(
        SLOT_RULE.assign(0, 1).unwrap(),
        unit::<Kuid64Generator>(T0 - UNIT),
    );
    let mut clock = ScriptedClock::new(T0, 1);
    assert_eq!(
        g.generate(&mut clock, 0, 4).unwrap_err().kind(),
        ErrorKind::InvalidParameter
    );
    assert_eq!(g.state().issued, 0);
    assert_eq!(g.generate(&mut clock, 0, 5).unwrap().seq(), 0);
}

#[test]
fn generated_ids_are_unique_and_increasing() {
    let mut clock = ScriptedClock::new(T0, 37_000);
    let mut g64 = Kuid64Generator::starting_now(whole(), &mut clock).unwrap();
    let mut g96 = Kuid96Generator::starting_now(whole(), &mut clock).unwrap();
    let (mut last64, mut last96) = (0i64, Kuid96::from_bytes([0; 12]));
    for i in 0..50_000 {
        if i % 1000 == 0 {
            clock.now -= 3 * UNIT; // occasional regressions
        }
        clock.now += 300;
        let v = g64.generate(&mut clock).unwrap();
        assert!(v > last64, "kuid64 must strictly increase");
        last64 = v;
        let k = g96.generate(&mut clock, 42, 8).unwrap();
        assert!(k > last96, "kuid96 of one node must strictly increase");
        last96 = k;
    }
}

#[test]
fn time_outside_the_range_is_an_error() {
    let mut clock = ScriptedClock::new(-1, 1);
    let err = Kuid64Generator::starting_now(whole(), &mut clock).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    let err = Kuid96Generator::starting_now(whole(), &mut clock).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    let mut g = Kuid64Generator::new(whole(), unit::<Kuid64Generator>(T0));
    assert_eq!(
        g.generate(&mut clock).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
}
