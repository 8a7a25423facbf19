mod common;

use common::generators::{unit, HOUR, T0};
use common::*;
use flake_core::clock::ScriptedClock;
use flake_core::sequencer::{Limits, Step, DEFAULT_MAX_LEAD};
use flake_core::slot::{SequenceRange, SlotAssignment};
use flake_core::sno::{Sno, SnoGenerator, SLOT_RULE, UNIT_NANOS};
use flake_core::{ErrorKind, FlakeId};
use proptest::prelude::*;

#[test]
fn every_value_vector() {
    let all = vectors("sno.jsonl");
    let values: Vec<_> = all.iter().filter(|v| v.get("text").is_some()).collect();
    assert_eq!(values.len(), 80);
    for v in values {
        let text = v["text"].as_str().unwrap();
        let bytes = hex(v["bytes_hex"].as_str().unwrap());
        let p = &v["parts"];
        let id: Sno = text.parse().unwrap_or_else(|e| panic!("{}: {e}", name(v)));
        assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{}", name(v));
        assert_eq!(id.to_string(), text, "{}", name(v));
        assert_eq!(Sno::from_slice(&bytes).unwrap(), id);
        assert_eq!(id.unix_nanos(), time_nanos(&p["time"]), "{}", name(v));
        assert_eq!(id.tick_tock(), p["tick_tock"].as_bool().unwrap());
        assert_eq!(id.meta() as i128, int(&p["meta"]));
        assert_eq!(id.partition() as i128, int(&p["partition"]));
        assert_eq!(id.sequence() as i128, int(&p["sequence"]));
        let rebuilt = Sno::from_parts(
            id.units(),
            id.tick_tock(),
            id.meta(),
            id.partition(),
            id.sequence(),
        )
        .unwrap();
        assert_eq!(rebuilt, id);
        if let Some(ns) = v.get("unix_ns") {
            if !id.tick_tock() {
                let from_time = Sno::from_time(int(ns)).unwrap();
                assert_eq!(from_time.units(), id.units(), "{}", name(v));
                // sno_from_parts takes a microsecond timestamp: truncating
                // the input time to microseconds must give the same value.
                let micros = int(ns) / 1000 * 1000;
                let p2 = Sno::from_parts(
                    flake_core::sno::units_at(micros).unwrap(),
                    false,
                    id.meta(),
                    id.partition(),
                    id.sequence(),
                )
                .unwrap();
                assert_eq!(p2, id, "{}", name(v));
            }
        }
    }
}

#[test]
fn out_of_range_vectors() {
    let all = vectors("sno.jsonl");
    let cases = of_kind(&all, &["out_of_range"]);
    assert!(!cases.is_empty());
    for v in cases {
        let err = Sno::from_time(int(&v["input"]["unix_ns"])).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DatetimeOverflow, "{}", name(v));
        assert_eq!(err.kind().sqlstate(), v["sqlstate"].as_str().unwrap());
    }
}

#[test]
fn invalid_vectors() {
    let all = vectors("sno-invalid.jsonl");
    for v in &all {
        match v["kind"].as_str().unwrap() {
            "invalid_text" => {
                let input = v["input"].as_str().unwrap();
                let err = input.parse::<Sno>().unwrap_err();
                assert_eq!(
                    err.kind().sqlstate(),
                    v["sqlstate"].as_str().unwrap(),
                    "{}",
                    name(v)
                );
                assert!(err
                    .to_string()
                    .contains("invalid input syntax for type sno"));
            }
            "invalid_bytes" => {
                let err =
                    Sno::from_slice(&hex(v["input_bytes_hex"].as_str().unwrap())).unwrap_err();
                assert_eq!(
                    err.kind().sqlstate(),
                    v["sqlstate"].as_str().unwrap(),
                    "{}",
                    name(v)
                );
            }
            other => panic!("unknown kind {other}"),
        }
    }
}

#[test]
fn spec_examples() {
    assert_eq!(Sno::from_bytes([0; 10]).to_string(), "2222222222222222");
    assert_eq!(Sno::from_bytes([0xff; 10]).to_string(), "xxxxxxxxxxxxxxxx");
    let id: Sno = "brpk4q72xwf2m63l".parse().unwrap();
    assert_eq!(to_hex(id.as_bytes()), "4e6f2160a0ff9a0a1033");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn text_round_trip(bytes in any::<[u8; 10]>()) {
        let id = Sno::from_bytes(bytes);
        let text = id.to_string();
        prop_assert_eq!(text.len(), 16);
        prop_assert_eq!(text.parse::<Sno>().unwrap(), id);
    }

    #[test]
    fn text_order_is_byte_order(a in any::<[u8; 10]>(), b in any::<[u8; 10]>()) {
        let (x, y) = (Sno::from_bytes(a), Sno::from_bytes(b));
        prop_assert_eq!(x.to_string().cmp(&y.to_string()), a.cmp(&b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
    }

    #[test]
    fn any_string_decodes_or_is_rejected(s in "\\PC{0,20}") {
        match s.parse::<Sno>() {
            Ok(id) => prop_assert_eq!(id.to_string(), s),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidText),
        }
    }
}

// --- generator, with a scripted clock -------------------------------------
// (docs/formats/sno.md#generation; the rules every generator shares are
// tested for all of them in marks.rs)

const UNIT: i64 = UNIT_NANOS as i64;

fn whole() -> SlotAssignment {
    SLOT_RULE.assign(3, 100).unwrap()
}

#[test]
fn first_unit_is_skipped() {
    let mut clock = ScriptedClock::new(T0 + 1000, UNIT / 4);
    let mut g = SnoGenerator::starting_now(whole(), &mut clock).unwrap();
    assert_eq!(g.state().floor, unit::<SnoGenerator>(T0));
    let first = g.generate(&mut clock, 0, 0).unwrap();
    assert!(clock.pauses >= 1, "must wait for the next unit");
    assert!(first.unix_nanos() >= (T0 + UNIT) as i128);
    assert_eq!(first.sequence(), 0);
    assert_eq!(first.partition(), 3);
}

#[test]
fn sequence_counts_within_a_unit_and_restarts_on_a_new_one() {
    let mut g = SnoGenerator::new(whole(), unit::<SnoGenerator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0, 1);
    let ids: Vec<Sno> = (0..5)
        .map(|_| g.generate(&mut clock, 7, 9).unwrap())
        .collect();
    assert_eq!(
        ids.iter().map(|i| i.sequence()).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert!(ids
        .iter()
        .all(|i| i.partition() == 7 << 8 | 3 && i.meta() == 9));
    clock.now = T0 + UNIT;
    assert_eq!(g.generate(&mut clock, 7, 9).unwrap().sequence(), 0);
}

#[test]
fn overflow_waits_for_the_next_unit() {
    let range = SequenceRange {
        first: 10,
        last: 12,
    };
    let a = SlotAssignment { process: 1, range };
    let mut g = SnoGenerator::new(a, unit::<SnoGenerator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0, UNIT / 8);
    let seqs: Vec<u16> = (0..3)
        .map(|_| g.generate(&mut clock, 0, 0).unwrap().sequence())
        .collect();
    assert_eq!(seqs, [10, 11, 12]);
    assert_eq!(clock.pauses, 0);
    assert_eq!(
        g.try_generate(&mut clock, &Limits::NO_MARK, 0, 0),
        Ok(Step::Wait),
        "used up, and the clock inside the unit"
    );
    let next = g.generate(&mut clock, 0, 0).unwrap();
    assert_eq!(clock.pauses, 8, "waited a whole unit");
    assert_eq!(next.sequence(), 10);
    assert_eq!(next.unix_nanos(), (T0 + UNIT) as i128);
}

#[test]
fn a_regression_flips_tick_tock_and_a_second_one_goes_on_in_logical_time() {
    // Two sequence values per unit, so that units run out.
    let a = SlotAssignment {
        process: 0,
        range: SequenceRange { first: 0, last: 1 },
    };
    let mut g = SnoGenerator::new(a, unit::<SnoGenerator>(T0 - UNIT));
    let mut clock = ScriptedClock::new(T0 + 10 * UNIT, UNIT);
    let before = g.generate(&mut clock, 0, 0).unwrap();
    assert!(!before.tick_tock());
    // The clock goes back 5 units: continue at once with the bit flipped.
    clock.now = T0 + 5 * UNIT;
    let after = g.generate(&mut clock, 0, 0).unwrap();
    assert!(after.tick_tock());
    assert_eq!(after.unix_nanos(), (T0 + 5 * UNIT) as i128);
    assert_ne!(before, after);
    assert_eq!(g.state().safe_unit, before.units());
    clock.now = T0 + 7 * UNIT;
    let later = g.generate(&mut clock, 0, 0).unwrap();
    assert!(later.tick_tock());
    // A second regression into the window already used (up to unit 10,
    // the safe unit) cannot flip again: the flipped phase goes on above
    // the unit in use, first with its sequence, then in unit 8, 9, … of
    // logical time, without waiting for the clock.
    clock.now = T0 + 6 * UNIT;
    let logical: Vec<Sno> = (0..5)
        .map(|_| g.generate(&mut clock, 0, 0).unwrap())
        .collect();
    assert_eq!(clock.pauses, 0);
    assert_eq!(
        logical
            .iter()
            .map(|id| (id.units() - later.units(), id.sequence()))
            .collect::<Vec<_>>(),
        [(0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    );
    assert!(logical.iter().all(Sno::tick_tock));
    assert!(logical[0] > later && logical.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        g.state().lead,
        logical[4].unix_nanos() as i64 - (T0 + 6 * UNIT),
        "the last ID runs 3 units ahead of the clock"
    );
    // Once the clock passes the unit in use, IDs are at the clock again, bit
    // kept; past the safe unit they sort after the first phase's too.
    clock.now = T0 + 12 * UNIT;
    let past = g.generate(&mut clock, 0, 0).unwrap();
    assert_eq!(clock.pauses, 0);
    assert_eq!(
        (past.unix_nanos(), past.tick_tock()),
        ((T0 + 12 * UNIT) as i128, true)
    );
    assert_eq!(g.state().lead, 0);
    assert!(past > before && past > logical[4]);
}

#[test]
fn a_regression_to_or_below_the_floor_never_flips() {
    // The floor may have been used by a previous run in either phase.
    let floor = unit::<SnoGenerator>(T0);
    let mut g = SnoGenerator::new(whole(), floor);
    let mut clock = ScriptedClock::new(T0 + 5 * UNIT, UNIT);
    let first = g.generate(&mut clock, 0, 0).unwrap();
    for back_to in [T0, T0 - 3 * UNIT] {
        clock.now = back_to;
        let id = g.generate(&mut clock, 0, 0).unwrap();
        assert!(!id.tick_tock(), "no flip into the floor");
        assert!(id.units() > floor && id > first);
    }
    // Just above the floor, a regression flips.
    clock.now = T0 + UNIT;
    let flipped = g.generate(&mut clock, 0, 0).unwrap();
    assert!(flipped.tick_tock());
    assert_eq!(flipped.units(), floor + 1);
    assert_eq!(clock.pauses, 0);
}

#[test]
fn two_hours_back_twice_flips_once_then_stops_with_55000() {
    let mut clock = ScriptedClock::new(T0 - 5 * HOUR, UNIT);
    let a = SlotAssignment {
        process: 0,
        range: SequenceRange { first: 0, last: 0 },
    };
    let mut g = SnoGenerator::starting_now(a, &mut clock).unwrap();
    clock.now = T0;
    let first = g.generate(&mut clock, 0, 0).unwrap();
    // The first step back flips the tick-tock bit: no lead.
    clock.now = T0 - 2 * HOUR;
    let flipped = g.generate(&mut clock, 0, 0).unwrap();
    assert!(flipped.tick_tock() && flipped.units() == first.units() - 1_800_000);
    assert_eq!(g.state().lead, 0);
    // The second is into the window the first phase used: logical time,
    // whose next unit (the one in use is used up) starts 2 h 4 ms ahead.
    clock.now = T0 - 4 * HOUR;
    let state = g.state();
    let err = g.generate(&mut clock, 0, 0).unwrap_err();
    assert_eq!(
        err,
        flake_core::Error::ClockBehind {
            type_name: "sno",
            lead_nanos: 2 * HOUR + UNIT,
            max_lead_nanos: DEFAULT_MAX_LEAD
        }
    );
    assert_eq!(err.kind().sqlstate(), "55000");
    assert_eq!(
        err.to_string(),
        "sno generation stopped: the clock is 7200.004 s behind the last sno IDs issued"
    );
    assert_eq!(
        err.detail().as_deref(),
        Some("IDs may run at most 60 s ahead of the clock.")
    );
    // Nothing that decides the next ID: the refusal counts its step back.
    assert_eq!(
        g.state(),
        flake_core::sequencer::SequencerState {
            steps_back: state.steps_back + 1,
            ..state
        },
        "an error changes nothing but the count of steps back"
    );
    assert_eq!(clock.pauses, 0, "an error, not a wait");
}

#[test]
fn generated_ids_are_unique() {
    let mut clock = ScriptedClock::new(T0, 37_000);
    let mut g = SnoGenerator::starting_now(whole(), &mut clock).unwrap();
    let mut seen = std::collections::HashSet::new();
    for i in 0..50_000 {
        if i % 1000 == 0 {
            clock.now -= 3 * UNIT; // occasional regressions
        }
        clock.now += 500;
        assert!(seen.insert(g.generate(&mut clock, 0, 0).unwrap()));
    }
}

#[test]
fn time_outside_the_range_is_an_error() {
    let mut clock = ScriptedClock::new(0, 1);
    let err = SnoGenerator::starting_now(whole(), &mut clock).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    let mut g = SnoGenerator::new(whole(), unit::<SnoGenerator>(T0));
    let err = g.generate(&mut clock, 0, 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    assert_eq!(g.state().issued, 0);
}

#[cfg(feature = "serde")]
#[test]
fn serde_uses_the_canonical_text_and_is_strict() {
    let id: Sno = "brpk4q72xwf2m63l".parse().unwrap();
    assert_eq!(serde_json::to_string(&id).unwrap(), "\"brpk4q72xwf2m63l\"");
    let back: Sno = serde_json::from_str("\"brpk4q72xwf2m63l\"").unwrap();
    assert_eq!(back, id);
    for bad in ["\"BRPK4Q72XWF2M63L\"", "\"brpk4q72xwf2m63\"", "42", "null"] {
        assert!(serde_json::from_str::<Sno>(bad).is_err(), "{bad}");
    }
}
