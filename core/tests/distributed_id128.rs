mod common;

use common::reference_generator::*;
use common::*;
use flake_core::alphanumeric;
use flake_core::clock::ScriptedClock;
use flake_core::distributed_id128::{
    increment_random, random_from_bytes, DistributedId128, DistributedId128Generator,
    EPOCH_UNIX_MILLIS, MAX_RANDOM, MAX_TIMESTAMP_MS,
};
use flake_core::random::ScriptedRandom;
use flake_core::ErrorKind;
use proptest::prelude::*;
use serde_json::Value;

fn micros(v: &Value) -> i64 {
    (time_nanos(v) / 1000) as i64
}

fn uuid(text: &str) -> DistributedId128 {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn every_value_vector() {
    let all = vectors("distributedid128.jsonl");
    let values = of_kind(&all, &["value", "alphanumeric", "numeric"]);
    assert_eq!(values.len(), 30);
    for v in values {
        let n = name(v);
        let text = v["text"].as_str().unwrap();
        let id = uuid(text);
        assert_eq!(id.to_string(), text, "{n}");
        assert_eq!(
            id.as_bytes().as_slice(),
            hex(v["bytes_hex"].as_str().unwrap()).as_slice(),
            "{n}"
        );
        let numeric = v["numeric"].as_str().unwrap();
        assert_eq!(id.to_u128().to_string(), numeric, "{n}");
        assert_eq!(
            DistributedId128::from_numeric_text(numeric).unwrap(),
            id,
            "{n}"
        );
        assert_eq!(DistributedId128::from_u128(numeric.parse().unwrap()), id);
        let alpha = v["alphanumeric"].as_str().unwrap();
        assert_eq!(
            alphanumeric::encode_u128_blocks(id.to_bytes()),
            alpha,
            "{n}"
        );
        assert_eq!(
            alphanumeric::decode_u128_blocks(alpha).unwrap(),
            id.to_bytes(),
            "{n}"
        );
        if v["kind"] != "value" {
            continue;
        }
        let p = &v["parts"];
        let time = micros(&p["time"]);
        let random = int(&p["random"]);
        assert_eq!(id.unix_micros(), time, "{n}");
        assert_eq!(id.random() as i128, random, "{n}");
        assert_eq!(
            DistributedId128::from_parts(time, random).unwrap(),
            id,
            "{n}"
        );
        assert_eq!(
            DistributedId128::from_parts(time + 999, random).unwrap(),
            id,
            "{n}"
        );
        assert_eq!(
            DistributedId128::from_raw_parts(id.timestamp_ms(), random as u128).unwrap(),
            id
        );
        let from_time = DistributedId128::from_time(time).unwrap();
        assert_eq!(
            (from_time.timestamp_ms(), from_time.random()),
            (id.timestamp_ms(), 0)
        );
        assert_eq!(from_time.as_bytes()[6] >> 4, 7, "version nibble");
    }
}

#[test]
fn invalid_vectors() {
    let all = vectors("distributedid128.jsonl");
    let cases = of_kind(&all, &["invalid"]);
    assert_eq!(cases.len(), 3);
    for v in cases {
        assert_eq!(v["function"], "alphanumeric_decode_uuid");
        let err = alphanumeric::decode_u128_blocks(v["input"].as_str().unwrap()).unwrap_err();
        assert_eq!(
            err.kind().sqlstate(),
            v["sqlstate"].as_str().unwrap(),
            "{}",
            name(v)
        );
    }
}

#[test]
fn ranges() {
    let t = 1_700_000_000_000_000;
    assert_eq!(
        DistributedId128::from_parts(t, -1).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        DistributedId128::from_parts(t, MAX_RANDOM as i128 + 1)
            .unwrap_err()
            .kind(),
        ErrorKind::NumericOutOfRange
    );
    let before_1700 = EPOCH_UNIX_MILLIS * 1000 - 1;
    assert_eq!(
        DistributedId128::from_time(before_1700).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(
        DistributedId128::from_time(EPOCH_UNIX_MILLIS * 1000)
            .unwrap()
            .to_u128(),
        7 << 76
    );
    let last = DistributedId128::from_raw_parts(MAX_TIMESTAMP_MS, MAX_RANDOM).unwrap();
    assert_eq!(last.to_string(), "ffffffff-ffff-7fff-7fff-ffffffffffff");
    assert!(DistributedId128::from_raw_parts(MAX_TIMESTAMP_MS + 1, 0).is_err());
    for out in [
        "-1",
        "0.5",
        "NaN",
        "340282366920938463463374607431768211456",
    ] {
        assert_eq!(
            DistributedId128::from_numeric_text(out).unwrap_err().kind(),
            ErrorKind::NumericOutOfRange,
            "{out}"
        );
    }
    assert_eq!(
        DistributedId128::from_numeric_text("340282366920938463463374607431768211455")
            .unwrap()
            .to_bytes(),
        [0xFF; 16]
    );
}

#[test]
fn uuid_text_is_strict() {
    for bad in [
        "",
        "00000000000000000000000000000000",
        "{00000000-0000-0000-0000-000000000000}",
        "00000000-0000-0000-0000-00000000000g",
        "0000000-00000-0000-0000-000000000000",
        "00000000-0000-0000-0000-0000000000é",
    ] {
        assert_eq!(
            bad.parse::<DistributedId128>().unwrap_err().kind(),
            ErrorKind::InvalidText,
            "{bad}"
        );
    }
    assert_eq!(
        uuid("ABCDEF01-0000-0000-0000-000000000000").to_string(),
        "abcdef01-0000-0000-0000-000000000000"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn round_trips(bytes in any::<[u8; 16]>()) {
        let id = DistributedId128::from_bytes(bytes);
        prop_assert_eq!(id.to_string().parse::<DistributedId128>().unwrap(), id);
        prop_assert_eq!(DistributedId128::from_numeric_text(&id.to_u128().to_string()).unwrap(), id);
        let alpha = alphanumeric::encode_u128_blocks(bytes);
        prop_assert_eq!(alpha.len(), 22);
        prop_assert_eq!(alphanumeric::decode_u128_blocks(&alpha).unwrap(), bytes);
    }

    #[test]
    fn parts_round_trip(ts in 0..=MAX_TIMESTAMP_MS, random in 0..=MAX_RANDOM) {
        let id = DistributedId128::from_raw_parts(ts, random).unwrap();
        prop_assert_eq!((id.timestamp_ms(), id.random()), (ts, random));
        prop_assert_eq!(id.as_bytes()[6] >> 4, 7);
        prop_assert_eq!(id.as_bytes()[8] & 0x80, 0);
        prop_assert_eq!(DistributedId128::from_parts(id.unix_micros(), random as i128).unwrap(), id);
    }

    #[test]
    fn orders_agree(a in any::<[u8; 16]>(), b in any::<[u8; 16]>()) {
        let (x, y) = (DistributedId128::from_bytes(a), DistributedId128::from_bytes(b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        let (ax, ay) = (alphanumeric::encode_u128_blocks(a), alphanumeric::encode_u128_blocks(b));
        prop_assert_eq!(ax.cmp(&ay), a.cmp(&b));
    }

    #[test]
    fn any_string_decodes_or_is_rejected(s in "\\PC{0,40}") {
        match alphanumeric::decode_u128_blocks(&s) {
            Ok(bytes) => prop_assert_eq!(alphanumeric::encode_u128_blocks(bytes), s.clone()),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidText),
        }
        match s.parse::<DistributedId128>() {
            Ok(id) => prop_assert_eq!(id.to_string(), s.to_lowercase()),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidText),
        }
        if let Err(e) = DistributedId128::from_numeric_text(&s) {
            prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange));
        }
    }

    #[test]
    fn alphabet_strings_decode_or_are_rejected(s in "[0-9A-Za-z]{22}") {
        match alphanumeric::decode_u128_blocks(&s) {
            Ok(bytes) => prop_assert_eq!(alphanumeric::encode_u128_blocks(bytes), s),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidText),
        }
    }
}

// --- generator, with a scripted clock and scripted draws ----------------------

impl ReferenceGenerator for DistributedId128Generator {
    type Id = DistributedId128;
    const EPOCH_UNIX_MILLIS: i64 = EPOCH_UNIX_MILLIS;
    fn fresh() -> Self {
        Self::new()
    }
    /// 16 CSPRNG bytes that make the 75-bit draw.
    fn draw_bytes(draw: i128) -> Vec<u8> {
        assert!(
            (0..1 << 75).contains(&draw),
            "draw {draw} does not fit 75 bits"
        );
        let high = ((draw >> 64) as u64) << 53;
        let mut bytes = high.to_le_bytes().to_vec();
        bytes.extend_from_slice(&(draw as u64).to_le_bytes());
        bytes
    }
    fn generate(&mut self, clock: &mut ScriptedClock, random: &mut ScriptedRandom) -> Self::Id {
        DistributedId128Generator::generate(self, clock, random).unwrap()
    }
    fn last(&self) -> Option<Self::Id> {
        DistributedId128Generator::last(self)
    }
    fn timestamp_ms(id: &Self::Id) -> i128 {
        id.timestamp_ms().into()
    }
    fn random(id: &Self::Id) -> i128 {
        id.random() as i128
    }
    fn unix_micros(id: &Self::Id) -> i64 {
        id.unix_micros()
    }
}

type Generator = DistributedId128Generator;

const T: i128 = 10_098_172_800_000; // 2020-01-01 in ms since 1700

#[test]
fn generator_scenarios() {
    let all = vectors("distributedid128.jsonl");
    check_scenarios::<Generator>(&all, 5, |id, e, at| {
        assert_eq!(id.to_string(), e["uuid"].as_str().unwrap(), "{at}");
        assert_eq!(
            id.to_u128().to_string(),
            e["numeric"].as_str().unwrap(),
            "{at}"
        );
    });
}

#[test]
fn generator_random_increments() {
    let all = vectors("distributedid128.jsonl");
    let cases = generator_cases(&all, "random_increment");
    assert_eq!(cases.len(), 9);
    for v in cases {
        let n = name(v);
        let (previous, draw) = (int(&v["previous_random"]), int(&v["draw"]));
        let expected = if v["expected_random"].is_null() {
            None
        } else {
            Some(int(&v["expected_random"]))
        };
        assert_eq!(
            increment_random(previous as u128, draw as u128).map(|r| r as i128),
            expected,
            "{n}"
        );
        let mut g = DistributedId128Generator::new();
        let mut clock = ScriptedClock::new(0, 1_000_000);
        let (first, _) = step(&mut g, &mut clock, &[T], previous);
        assert_eq!(first.random() as i128, previous, "{n}");
        match expected {
            Some(r) => {
                let (second, sleeps) = step(&mut g, &mut clock, &[T], draw);
                assert_eq!((second.random() as i128, sleeps), (r, 0), "{n}");
                assert_eq!(second.timestamp_ms(), first.timestamp_ms());
                assert!(second > first);
            }
            None => {
                // No room: sleep until the next millisecond, then a fresh draw.
                let (second, sleeps) = step(&mut g, &mut clock, &[T, T + 1], draw);
                assert_eq!(sleeps, 1, "{n}");
                assert_eq!(second.timestamp_ms() as i128, T + 1, "{n}");
                assert_eq!(second.random() as i128, draw.max(1), "{n}");
            }
        }
    }
}

#[test]
fn generator_random_from_bytes() {
    let all = vectors("distributedid128.jsonl");
    let cases = generator_cases(&all, "random_from_bytes");
    assert_eq!(cases.len(), 8);
    for v in cases {
        let bytes: [u8; 16] = hex(v["csprng_bytes_hex"].as_str().unwrap())
            .try_into()
            .unwrap();
        let expected = int(&v["expected_random"]);
        assert_eq!(random_from_bytes(bytes) as i128, expected, "{}", name(v));
        let mut g = DistributedId128Generator::new();
        let mut clock = ScriptedClock::new(clock_nanos::<Generator>(T), 1_000_000);
        let mut random = ScriptedRandom::new([bytes.to_vec()]);
        let id = g.generate(&mut clock, &mut random).unwrap();
        assert_eq!(id.random() as i128, expected, "{}", name(v));
        assert_eq!(id.timestamp_ms() as i128, T);
    }
}

#[test]
fn generator_is_strictly_increasing_under_small_regressions() {
    let mut g = DistributedId128Generator::new();
    let mut clock = ScriptedClock::new(clock_nanos::<Generator>(T), 1_000_000);
    let mut random = flake_core::random::OsRandom::new();
    let mut previous = None;
    for i in 0..100_000 {
        if i % 10_000 == 0 {
            clock.now -= 300_000_000;
        }
        clock.now += 50_000; // net forward: 500 ms per 10 000 IDs
        let id = g.generate(&mut clock, &mut random).unwrap();
        assert!(Some(id) > previous, "not increasing at {i}");
        previous = Some(id);
    }
}
