mod common;

use common::reference_generator::*;
use common::*;
use flake_core::alphanumeric;
use flake_core::clock::ScriptedClock;
use flake_core::distributed_id::{
    increment_random, random_from_bytes, timestamp_ms_at, DistributedId, DistributedIdGenerator,
    EPOCH_UNIX_MILLIS, MAX_RANDOM, MAX_TIMESTAMP_MS, MAX_VALUE,
};
use flake_core::random::ScriptedRandom;
use flake_core::{ErrorKind, FlakeId};
use proptest::prelude::*;
use serde_json::Value;

fn micros(v: &Value) -> i64 {
    (time_nanos(v) / 1000) as i64
}

fn sqlstates(v: &Value) -> Vec<String> {
    match &v["sqlstate"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().map(|s| s.as_str().unwrap().to_owned()).collect(),
        other => panic!("bad sqlstate {other}"),
    }
}

const VALUE_KINDS: &[&str] = &[
    "value",
    "alphanumeric",
    "hex",
    "alphanumeric_decode",
    "hex_decode",
    "limit",
];

#[test]
fn every_value_vector() {
    let all = vectors("distributedid.jsonl");
    let values = of_kind(&all, VALUE_KINDS);
    assert_eq!(values.len(), 39);
    for v in values {
        let n = name(v);
        let text = v["text"].as_str().unwrap();
        let bytes = hex(v["bytes_hex"].as_str().unwrap());
        let id: DistributedId = text.parse().unwrap_or_else(|e| panic!("{n}: {e}"));
        assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{n}");
        assert_eq!(id.to_string(), text, "{n}");
        assert_eq!(DistributedId::from_slice(&bytes).unwrap(), id, "{n}");
        assert_eq!(
            DistributedId::from_bytes_checked(id.to_bytes()).unwrap(),
            id
        );
        assert_eq!(
            DistributedId::from_u128(int(&v["text"]) as u128).unwrap(),
            id
        );
        assert_eq!(DistributedId::from_numeric_text(text).unwrap(), id, "{n}");
        assert_eq!(
            alphanumeric::encode_distributed_id(&id),
            v["alphanumeric"].as_str().unwrap(),
            "{n}"
        );
        assert_eq!(
            alphanumeric::decode_distributed_id(v["alphanumeric"].as_str().unwrap()).unwrap(),
            id
        );
        assert_eq!(id.to_hex(), v["hex"].as_str().unwrap(), "{n}");
        assert_eq!(
            DistributedId::from_hex(v["hex"].as_str().unwrap()).unwrap(),
            id
        );
        match v["kind"].as_str().unwrap() {
            "alphanumeric_decode" => {
                let input = v["input"].as_str().unwrap();
                assert_eq!(
                    alphanumeric::decode_distributed_id(input).unwrap(),
                    id,
                    "{n}"
                );
            }
            "hex_decode" => {
                assert_eq!(
                    DistributedId::from_hex(v["input"].as_str().unwrap()).unwrap(),
                    id,
                    "{n}"
                );
            }
            "limit" => {
                assert_eq!(
                    DistributedId::from_time(micros(&v["parts"]["time"])).unwrap(),
                    id,
                    "{n}"
                );
            }
            _ => {}
        }
        match v.get("parts") {
            Some(p) => {
                let time = micros(&p["time"]);
                assert_eq!(id.unix_micros(), time, "{n}");
                assert_eq!(id.unix_millis() * 1000, time, "{n}");
                assert_eq!(id.random() as i128, int(&p["random"]), "{n}");
                let rebuilt = DistributedId::from_parts(time, id.random() as i64).unwrap();
                assert_eq!(rebuilt, id, "{n}");
                // Inside the millisecond rounds down.
                assert_eq!(
                    DistributedId::from_parts(time + 999, id.random() as i64).unwrap(),
                    id
                );
                let from_time = DistributedId::from_time(time).unwrap();
                assert_eq!(
                    (from_time.timestamp_ms(), from_time.random()),
                    (id.timestamp_ms(), 0)
                );
            }
            None => {
                // No parts: the timestamp field does not fit 45 bits, yet the
                // value is valid and still has a (far future) timestamp.
                assert!(id.timestamp_ms() > MAX_TIMESTAMP_MS, "{n}");
                assert!(DistributedId::from_raw_parts(id.timestamp_ms(), id.random()).is_err());
                assert_eq!(
                    id.unix_millis(),
                    id.timestamp_ms() as i64 + EPOCH_UNIX_MILLIS
                );
            }
        }
    }
}

#[test]
fn bigint_alphanumeric_vectors() {
    let all = vectors("distributedid.jsonl");
    let cases = of_kind(&all, &["bigint_alphanumeric"]);
    assert_eq!(cases.len(), 4);
    for v in cases {
        let value = int(&v["integer"]) as i64;
        let text = v["alphanumeric"].as_str().unwrap();
        assert_eq!(
            alphanumeric::encode_i64(value).unwrap(),
            text,
            "{}",
            name(v)
        );
        assert_eq!(alphanumeric::encode_u64(value as u64), text);
        assert_eq!(
            alphanumeric::decode_i64(text).unwrap(),
            value,
            "{}",
            name(v)
        );
    }
}

fn reject(function: &str, input: &str) -> flake_core::Error {
    let result = match function {
        "alphanumeric_decode_distributed_id" => {
            alphanumeric::decode_distributed_id(input).map(|_| ())
        }
        "distributed_id_from_hex" => DistributedId::from_hex(input).map(|_| ()),
        "alphanumeric_decode_bigint" => alphanumeric::decode_i64(input).map(|_| ()),
        "numeric::distributed_id" => DistributedId::from_numeric_text(input).map(|_| ()),
        other => panic!("unknown function {other}"),
    };
    result.expect_err(input)
}

#[test]
fn invalid_and_out_of_range_vectors() {
    let all = vectors("distributedid.jsonl");
    let cases = of_kind(&all, &["invalid", "out_of_range"]);
    assert_eq!(cases.len(), 15);
    for v in cases {
        let n = name(v);
        let accepted = sqlstates(v);
        let function = v["function"].as_str().unwrap();
        match &v["input"] {
            Value::String(input) => {
                let err = reject(function, input);
                assert!(
                    accepted.contains(&err.kind().sqlstate().to_owned()),
                    "{n}: {err}"
                );
            }
            Value::Object(input) => {
                assert_eq!(
                    function,
                    "distributed_id_from_time, distributed_id_from_parts"
                );
                let time = micros(&input["time"]);
                let random = int(&input["random"]) as i64;
                for err in [
                    DistributedId::from_time(time).unwrap_err(),
                    DistributedId::from_parts(time, random).unwrap_err(),
                ] {
                    assert!(
                        accepted.contains(&err.kind().sqlstate().to_owned()),
                        "{n}: {err}"
                    );
                }
            }
            other => panic!("{n}: unexpected input {other}"),
        }
    }
}

#[test]
fn text_input_rules() {
    let ok = |s: &str| s.parse::<DistributedId>().map(|id| id.to_u128());
    assert_eq!(ok("0").unwrap(), 0);
    assert_eq!(ok("  0042\t\n").unwrap(), 42);
    assert_eq!(ok("0000000000000000000000000000000000001").unwrap(), 1);
    assert_eq!(ok("9999999999999999999999999999").unwrap(), MAX_VALUE);
    for bad in ["", " ", "+1", "-1", "1 2", "1.0", "0x1", "١", "1e3", "12a"] {
        assert_eq!(
            ok(bad).unwrap_err().kind(),
            ErrorKind::InvalidText,
            "{bad:?}"
        );
    }
    let err = ok("10000000000000000000000000000").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NumericOutOfRange);
    assert_eq!(
        ok("99999999999999999999999999999999999999999999")
            .unwrap_err()
            .kind(),
        ErrorKind::NumericOutOfRange
    );
    assert!(DistributedId::from_u128(MAX_VALUE + 1).is_err());
    assert_eq!(
        DistributedId::from_bytes_checked([0xFF; 12])
            .unwrap_err()
            .kind(),
        ErrorKind::NumericOutOfRange
    );
}

#[test]
fn numeric_cast_rules() {
    let cast = |s: &str| DistributedId::from_numeric_text(s).map(|id| id.to_u128());
    assert_eq!(cast("12").unwrap(), 12);
    assert_eq!(cast("12.000").unwrap(), 12);
    assert_eq!(cast("-0").unwrap(), 0);
    assert_eq!(cast("9999999999999999999999999999").unwrap(), MAX_VALUE);
    for out in [
        "-1",
        "0.5",
        "1.01",
        "NaN",
        "Infinity",
        "-Infinity",
        "10000000000000000000000000000",
    ] {
        assert_eq!(
            cast(out).unwrap_err().kind(),
            ErrorKind::NumericOutOfRange,
            "{out}"
        );
    }
    for bad in ["", ".", "abc", "1e5", "--1"] {
        assert_eq!(
            cast(bad).unwrap_err().kind(),
            ErrorKind::InvalidText,
            "{bad}"
        );
    }
}

#[test]
fn parts_ranges() {
    let t = 1_700_000_000_000_000;
    assert_eq!(
        DistributedId::from_parts(t, -1).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        DistributedId::from_parts(t, 1 << 48).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        DistributedId::from_parts(t, MAX_RANDOM as i64)
            .unwrap()
            .random(),
        MAX_RANDOM
    );
    let before_1900 = EPOCH_UNIX_MILLIS * 1000 - 1;
    assert_eq!(
        DistributedId::from_time(before_1900).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(timestamp_ms_at(EPOCH_UNIX_MILLIS * 1000).unwrap(), 0);
    assert_eq!(
        timestamp_ms_at(-1).unwrap(),
        (-EPOCH_UNIX_MILLIS - 1) as u64
    );
}

#[test]
fn hex_rules() {
    assert_eq!(
        DistributedId::from_hex("0000000000000000000000000A")
            .unwrap()
            .to_u128(),
        10
    );
    for bad in [
        "",
        "00",
        "000000000000000000000000000",
        "0000000000000000000000000é",
        "+0000000000000000000000000",
    ] {
        assert_eq!(
            DistributedId::from_hex(bad).unwrap_err().kind(),
            ErrorKind::InvalidText,
            "{bad}"
        );
    }
}

#[test]
fn alphanumeric_rules() {
    assert_eq!(alphanumeric::encode_u64(u64::MAX), "LygHa16AHYF");
    assert_eq!(alphanumeric::decode_u64("LygHa16AHYF").unwrap(), u64::MAX);
    assert_eq!(
        alphanumeric::decode_u64("LygHa16AHYG").unwrap_err().kind(),
        ErrorKind::InvalidText
    );
    assert_eq!(alphanumeric::encode_i64(i64::MAX).unwrap(), "AzL8n0Y58m7");
    assert_eq!(
        alphanumeric::decode_i64("AzL8n0Y58m8").unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    assert_eq!(
        alphanumeric::encode_i64(-1).unwrap_err().kind(),
        ErrorKind::NumericOutOfRange
    );
    let max = DistributedId::from_u128(MAX_VALUE).unwrap();
    assert_eq!(
        alphanumeric::encode_distributed_id(&max),
        "agbFu5KnEQGxp4QB"
    );
    let err = alphanumeric::decode_distributed_id("agbFu5KnEQGxp4QC").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NumericOutOfRange);
    for bad in [
        "",
        "0000000000",
        "000000000000",
        "0000000000-",
        "00000000000\0",
        "0000000000ñ",
    ] {
        assert_eq!(
            alphanumeric::decode_u64(bad).unwrap_err().kind(),
            ErrorKind::InvalidText,
            "{bad:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn text_round_trip(value in 0..=MAX_VALUE) {
        let id = DistributedId::from_u128(value).unwrap();
        let text = id.to_string();
        prop_assert_eq!(text.parse::<DistributedId>().unwrap(), id);
        prop_assert_eq!(DistributedId::from_hex(&id.to_hex()).unwrap(), id);
        prop_assert_eq!(DistributedId::from_hex(&id.to_hex().to_lowercase()).unwrap(), id);
        let alpha = alphanumeric::encode_distributed_id(&id);
        prop_assert_eq!(alpha.len(), 16);
        prop_assert_eq!(alphanumeric::decode_distributed_id(&alpha).unwrap(), id);
        prop_assert_eq!(DistributedId::from_numeric_text(&text).unwrap(), id);
        prop_assert_eq!(DistributedId::from_slice(id.as_bytes()).unwrap(), id);
    }

    #[test]
    fn parts_round_trip(ts in 0..=MAX_TIMESTAMP_MS, random in 0..=MAX_RANDOM) {
        let id = DistributedId::from_raw_parts(ts, random).unwrap();
        prop_assert_eq!((id.timestamp_ms(), id.random()), (ts, random));
        prop_assert_eq!(DistributedId::from_parts(id.unix_micros(), random as i64).unwrap(), id);
    }

    #[test]
    fn orders_agree(a in 0..=MAX_VALUE, b in 0..=MAX_VALUE) {
        let (x, y) = (DistributedId::from_u128(a).unwrap(), DistributedId::from_u128(b).unwrap());
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        let (ax, ay) = (alphanumeric::encode_distributed_id(&x), alphanumeric::encode_distributed_id(&y));
        prop_assert_eq!(ax.cmp(&ay), a.cmp(&b));
        prop_assert_eq!(x.to_hex().cmp(&y.to_hex()), a.cmp(&b));
    }

    #[test]
    fn u64_round_trip(value in any::<u64>()) {
        let text = alphanumeric::encode_u64(value);
        prop_assert_eq!(text.len(), 11);
        prop_assert_eq!(alphanumeric::decode_u64(&text).unwrap(), value);
        if let Ok(signed) = i64::try_from(value) {
            prop_assert_eq!(alphanumeric::decode_i64(&text).unwrap(), signed);
        }
    }

    #[test]
    fn any_string_decodes_or_is_rejected(s in "\\PC{0,30}") {
        match s.parse::<DistributedId>() {
            Ok(id) => prop_assert_eq!(id.to_string().parse::<DistributedId>().unwrap(), id),
            Err(e) => prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange)),
        }
        if let Err(e) = DistributedId::from_hex(&s) {
            prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange));
        }
        if let Err(e) = DistributedId::from_numeric_text(&s) {
            prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange));
        }
        match alphanumeric::decode_distributed_id(&s) {
            Ok(id) => prop_assert_eq!(alphanumeric::encode_distributed_id(&id), s.clone()),
            Err(e) => prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange)),
        }
        match alphanumeric::decode_u64(&s) {
            Ok(v) => prop_assert_eq!(alphanumeric::encode_u64(v), s.clone()),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidText),
        }
        let _ = alphanumeric::decode_i64(&s);
    }

    #[test]
    fn alphabet_strings_decode_or_are_rejected(s in "[0-9A-Za-z]{16}") {
        match alphanumeric::decode_distributed_id(&s) {
            Ok(id) => prop_assert_eq!(alphanumeric::encode_distributed_id(&id), s),
            Err(e) => prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange)),
        }
    }

    #[test]
    fn hex_strings_decode_or_are_out_of_range(s in "[0-9a-fA-F]{26}") {
        match DistributedId::from_hex(&s) {
            Ok(id) => prop_assert_eq!(id.to_hex(), s.to_uppercase()),
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::NumericOutOfRange),
        }
    }
}

// --- generator, with a scripted clock and scripted draws ----------------------

impl ReferenceGenerator for DistributedIdGenerator {
    type Id = DistributedId;
    const EPOCH_UNIX_MILLIS: i64 = EPOCH_UNIX_MILLIS;
    fn fresh() -> Self {
        Self::new()
    }
    /// The 6 CSPRNG bytes that make the 48-bit draw.
    fn draw_bytes(draw: i128) -> Vec<u8> {
        assert!(
            (0..1 << 48).contains(&draw),
            "draw {draw} does not fit 48 bits"
        );
        (draw as u64).to_le_bytes()[..6].to_vec()
    }
    fn generate(&mut self, clock: &mut ScriptedClock, random: &mut ScriptedRandom) -> Self::Id {
        DistributedIdGenerator::generate(self, clock, random).unwrap()
    }
    fn last(&self) -> Option<Self::Id> {
        DistributedIdGenerator::last(self)
    }
    fn timestamp_ms(id: &Self::Id) -> i128 {
        id.timestamp_ms().into()
    }
    fn random(id: &Self::Id) -> i128 {
        id.random().into()
    }
    fn unix_micros(id: &Self::Id) -> i64 {
        id.unix_micros()
    }
}

type Generator = DistributedIdGenerator;

const T: i128 = 3_786_825_600_000; // 2020-01-01 in ms since 1900

#[test]
fn generator_scenarios() {
    let all = vectors("distributedid.jsonl");
    check_scenarios::<Generator>(&all, 6, |id, e, at| {
        assert_eq!(id.to_string(), e["text"].as_str().unwrap(), "{at}");
        assert_eq!(
            alphanumeric::encode_distributed_id(id),
            e["alphanumeric"].as_str().unwrap(),
            "{at}"
        );
    });
}

#[test]
fn generator_random_increments() {
    let all = vectors("distributedid.jsonl");
    let cases = generator_cases(&all, "random_increment");
    assert_eq!(cases.len(), 10);
    for v in cases {
        let n = name(v);
        let (previous, draw) = (int(&v["previous_random"]), int(&v["draw"]));
        let expected = v["expected_random"]
            .as_null()
            .map_or_else(|| Some(int(&v["expected_random"])), |_| None);
        assert_eq!(
            increment_random(previous as u64, draw as u64).map(i128::from),
            expected,
            "{n}"
        );
        // The same through the generator: a first ID with `previous` as its
        // random part, then a second in the same millisecond.
        let mut g = DistributedIdGenerator::new();
        let mut clock = ScriptedClock::new(0, 1_000_000);
        let (first, _) = step(&mut g, &mut clock, &[T], previous);
        assert_eq!(first.random() as i128, previous, "{n}");
        let (second, sleeps) = step(&mut g, &mut clock, &[T], draw);
        assert_eq!(sleeps, 0);
        match expected {
            Some(r) => {
                assert_eq!(second.random() as i128, r, "{n}");
                assert_eq!(second.timestamp_ms(), first.timestamp_ms());
            }
            None => {
                // The generator moves on: the next millisecond, fresh draw.
                assert_eq!(second.timestamp_ms(), first.timestamp_ms() + 1, "{n}");
                assert_eq!(second.random() as i128, draw.max(1), "{n}");
            }
        }
        assert!(second > first);
    }
}

#[test]
fn generator_random_from_bytes() {
    let all = vectors("distributedid.jsonl");
    let cases = generator_cases(&all, "random_from_bytes");
    assert_eq!(cases.len(), 8);
    for v in cases {
        let bytes: [u8; 6] = hex(v["csprng_bytes_hex"].as_str().unwrap())
            .try_into()
            .unwrap();
        let expected = int(&v["expected_random"]);
        assert_eq!(random_from_bytes(bytes) as i128, expected, "{}", name(v));
        let mut g = DistributedIdGenerator::new();
        let mut clock = ScriptedClock::new(clock_nanos::<Generator>(T), 1_000_000);
        let mut random = ScriptedRandom::new([bytes.to_vec()]);
        let id = g.generate(&mut clock, &mut random).unwrap();
        assert_eq!(id.random() as i128, expected, "{}", name(v));
        assert_eq!(id.timestamp_ms() as i128, T - 1000);
    }
}

#[test]
fn generator_is_strictly_increasing_under_bursts_and_small_regressions() {
    let mut g = DistributedIdGenerator::new();
    let mut clock = ScriptedClock::new(clock_nanos::<Generator>(T), 1_000_000);
    let mut random = flake_core::random::OsRandom::new();
    let mut previous = None;
    for i in 0..200_000 {
        if i % 10_000 == 0 {
            clock.now -= 300_000_000; // back 300 ms
        }
        if i % 7 == 0 {
            clock.now += 13_000;
        }
        let id = g.generate(&mut clock, &mut random).unwrap();
        assert!(Some(id) > previous, "not increasing at {i}");
        assert!(id.is_valid());
        previous = Some(id);
    }
}

#[test]
fn generator_rejects_clocks_before_1900() {
    let mut g = DistributedIdGenerator::new();
    let mut clock = ScriptedClock::new(EPOCH_UNIX_MILLIS * 1_000_000, 1_000_000);
    let mut random = ScriptedRandom::new([vec![1; 6]]);
    let err = g.generate(&mut clock, &mut random).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    assert_eq!(g.last(), None);
}
