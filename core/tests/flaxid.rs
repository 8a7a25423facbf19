mod common;

use common::*;
use flake_core::clock::ScriptedClock;
use flake_core::flaxid::{FlaxId, FlaxIdGenerator, MAX_RANDOM};
use flake_core::random::ScriptedRandom;
use flake_core::{ErrorKind, FlakeId};
use proptest::prelude::*;

fn millis(v: &serde_json::Value) -> i64 {
    (time_nanos(v) / 1_000_000) as i64
}

#[test]
fn every_value_vector() {
    let all = vectors("flaxid.jsonl");
    let values: Vec<_> = all.iter().filter(|v| v.get("text").is_some()).collect();
    assert_eq!(values.len(), 25);
    for v in values {
        let text = v["text"].as_str().unwrap();
        let bytes = hex(v["bytes_hex"].as_str().unwrap());
        let p = &v["parts"];
        let id: FlaxId = text.parse().unwrap_or_else(|e| panic!("{}: {e}", name(v)));
        assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{}", name(v));
        assert_eq!(id.to_string(), text, "{}", name(v));
        assert_eq!(FlaxId::from_slice(&bytes).unwrap(), id);
        assert_eq!(
            id.unix_micros() as i128 * 1000,
            time_nanos(&p["time"]),
            "{}",
            name(v)
        );
        assert_eq!(id.random() as i128, int(&p["random"]), "{}", name(v));
        let rebuilt = FlaxId::from_parts(millis(&p["time"]), int(&p["random"]) as i64).unwrap();
        assert_eq!(rebuilt, id, "{}", name(v));
        let at = FlaxId::from_time(id.unix_micros() + 999).unwrap();
        assert_eq!((at.millis(), at.random()), (id.millis(), 0), "{}", name(v));
    }
}

#[test]
fn out_of_range_vectors() {
    let all = vectors("flaxid.jsonl");
    let cases = of_kind(&all, &["out_of_range"]);
    assert_eq!(cases.len(), 2);
    for v in cases {
        let input = &v["input"];
        let sqlstate = v["sqlstate"].as_str().unwrap();
        let micros = (time_nanos(&input["time"]) / 1000) as i64;
        let err = FlaxId::from_time(micros).unwrap_err();
        assert_eq!(err.kind().sqlstate(), sqlstate, "{}", name(v));
        let err =
            FlaxId::from_parts(millis(&input["time"]), int(&input["random"]) as i64).unwrap_err();
        assert_eq!(err.kind().sqlstate(), sqlstate, "{}", name(v));
    }
}

#[test]
fn range_edges() {
    let first = 1_420_070_400_000i64;
    let last = first + (1 << 40) - 1;
    assert_eq!(
        FlaxId::from_parts(first, 0).unwrap().to_string(),
        "----------------"
    );
    let max = FlaxId::from_parts(last, MAX_RANDOM as i64).unwrap();
    assert_eq!(max.to_string(), "zzzzzzzzzzzzzzzz");
    assert_eq!(max.unix_millis(), last);
    for (ms, random, kind) in [
        (first - 1, 0, ErrorKind::DatetimeOverflow),
        (last + 1, 0, ErrorKind::DatetimeOverflow),
        (i64::MIN, 0, ErrorKind::DatetimeOverflow),
        (i64::MAX, 0, ErrorKind::DatetimeOverflow),
        (first, -1, ErrorKind::NumericOutOfRange),
        (first, 1 << 56, ErrorKind::NumericOutOfRange),
    ] {
        assert_eq!(
            FlaxId::from_parts(ms, random).unwrap_err().kind(),
            kind,
            "{ms} {random}"
        );
    }
    assert_eq!(
        FlaxId::from_time(i64::MIN).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
}

#[test]
fn spec_examples() {
    let id: FlaxId = "0RdKJcxqVBiAiQr0".parse().unwrap();
    assert_eq!(id.to_string(), "0RdKJcxqVBiAiQr0");
    for bad in [
        "",
        "0RdKJcxqVBiAiQr",
        "0RdKJcxqVBiAiQr00",
        "0RdKJcxqVBiAiQr.",
        "0RdKJcxqVBiAiQ é",
    ] {
        let err = bad.parse::<FlaxId>().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidText, "{bad:?}");
        assert!(err
            .to_string()
            .contains("invalid input syntax for type flaxid"));
    }
    assert_eq!(
        FlaxId::from_slice(&[0; 11]).unwrap_err().kind(),
        ErrorKind::InvalidBinary
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn text_round_trip(bytes in any::<[u8; 12]>()) {
        let id = FlaxId::from_bytes(bytes);
        let text = id.to_string();
        prop_assert_eq!(text.len(), 16);
        prop_assert_eq!(text.parse::<FlaxId>().unwrap(), id);
    }

    #[test]
    fn text_order_is_byte_order(a in any::<[u8; 12]>(), b in any::<[u8; 12]>()) {
        let (x, y) = (FlaxId::from_bytes(a), FlaxId::from_bytes(b));
        prop_assert_eq!(x.to_string().cmp(&y.to_string()), a.cmp(&b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
    }

    #[test]
    fn parts_round_trip(ms in 0i64..(1 << 40), random in 0i64..(1 << 56)) {
        let id = FlaxId::from_parts(1_420_070_400_000 + ms, random).unwrap();
        prop_assert_eq!(id.millis() as i64, ms);
        prop_assert_eq!(id.random() as i64, random);
        prop_assert_eq!(FlaxId::from_parts(id.unix_millis(), random).unwrap(), id);
    }

    #[test]
    fn any_string_decodes_or_is_rejected(s in "\\PC{0,20}") {
        match s.parse::<FlaxId>() {
            Ok(id) => prop_assert_eq!(id.to_string(), s),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidText),
        }
    }

    #[test]
    fn alphabet_strings_decode(s in "[-0-9A-Z_a-z]{16}") {
        prop_assert_eq!(s.parse::<FlaxId>().unwrap().to_string(), s);
    }
}

// --- generator --------------------------------------------------------------

const T0_NANOS: i64 = 1_700_000_000_123_456_789;

#[test]
fn generator_uses_the_current_millisecond_and_seven_random_bytes() {
    let mut clock = ScriptedClock::new(T0_NANOS, 1);
    let mut rng = ScriptedRandom::new([vec![0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd]]);
    let id = FlaxIdGenerator::generate(&mut clock, &mut rng).unwrap();
    assert_eq!(id.unix_millis(), 1_700_000_000_123);
    assert_eq!(id.random(), 0x0001_2345_6789_abcd);
    assert_eq!(clock.pauses, 0);
}

#[test]
fn generator_orders_by_millisecond() {
    let mut clock = ScriptedClock::new(T0_NANOS, 1);
    clock.script([T0_NANOS, T0_NANOS + 1_000_000]);
    let mut rng = ScriptedRandom::new([vec![0xff; 7], vec![0; 7]]);
    let a = FlaxIdGenerator::generate(&mut clock, &mut rng).unwrap();
    let b = FlaxIdGenerator::generate(&mut clock, &mut rng).unwrap();
    assert!(a < b);
    assert_eq!(b.millis(), a.millis() + 1);
}

#[test]
fn generator_refuses_times_outside_the_range() {
    let mut rng = flake_core::random::OsRandom::new();
    let mut clock = ScriptedClock::new(1_000_000_000_000_000_000, 1); // 2001
    let err = FlaxIdGenerator::generate(&mut clock, &mut rng).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
}

#[test]
fn generated_ids_with_os_randomness_are_distinct() {
    let mut rng = flake_core::random::OsRandom::new();
    let mut clock = ScriptedClock::new(T0_NANOS, 1);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..10_000 {
        assert!(seen.insert(FlaxIdGenerator::generate(&mut clock, &mut rng).unwrap()));
    }
}
