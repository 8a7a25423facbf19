mod common;

use common::*;
use flake_core::clock::ScriptedClock;
use flake_core::generator::SlotGenerator;
use flake_core::siq::{self, Kind, Siq, SiqGenerator, MAX_TICKS};
use flake_core::time::format_rfc3339_micros;
use flake_core::{ErrorKind, FlakeId};
use proptest::prelude::*;
use serde_json::Value;

fn value_vectors() -> Vec<Value> {
    vectors("siq.jsonl")
        .into_iter()
        .filter(|v| v.get("text").is_some())
        .collect()
}

fn kind_of(v: &Value) -> Option<Kind> {
    v.as_str().map(|k| Kind::from_name(k).unwrap())
}

fn sqlstates(v: &Value) -> Vec<String> {
    match &v["sqlstate"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().map(|s| s.as_str().unwrap().to_owned()).collect(),
        other => panic!("bad sqlstate {other}"),
    }
}

/// Everything a value vector states: bytes, every text form, every part,
/// and that the value can be rebuilt from its parts.
fn check_value(v: &Value) -> Siq {
    let n = name(v);
    let text = v["text"].as_str().unwrap();
    let bytes = hex(v["bytes_hex"].as_str().unwrap());
    let id: Siq = text.parse().unwrap_or_else(|e| panic!("{n}: {e}"));
    assert_eq!(id.as_bytes().as_slice(), bytes.as_slice(), "{n}");
    assert_eq!(Siq::from_slice(&bytes).unwrap(), id, "{n}");
    assert_eq!(id.to_string(), text, "{n}");
    assert_eq!(id.to_did(), v["did"].as_str().unwrap(), "{n}");
    assert_eq!(
        v["did"].as_str().unwrap().parse::<Siq>().unwrap(),
        id,
        "{n}"
    );
    assert_eq!(text.to_uppercase().parse::<Siq>().unwrap(), id, "{n}");
    assert_eq!(id.to_hex(), v["hex"].as_str().unwrap(), "{n}");
    assert_eq!(
        Siq::from_hex(v["hex"].as_str().unwrap()).unwrap(),
        id,
        "{n}"
    );
    assert_eq!(id.to_base64(), v["base64"].as_str().unwrap(), "{n}");
    assert_eq!(
        Siq::from_base64(v["base64"].as_str().unwrap()).unwrap(),
        id,
        "{n}"
    );
    let integer = int(&v["integer"]) as u128;
    assert_eq!(id.to_u128(), integer, "{n}");
    assert_eq!(Siq::from_u128(integer).unwrap(), id, "{n}");

    let p = &v["parts"];
    assert_eq!(id.ticks() as i128, int(&p["ticks"]), "{n}");
    assert_eq!(
        id.unix_micros() as i128 * 1000,
        time_nanos(&p["time"]),
        "{n}"
    );
    assert_eq!(
        format_rfc3339_micros(id.unix_micros()),
        p["time"].as_str().unwrap(),
        "{n}"
    );
    assert_eq!(id.shard() as i128, int(&p["shard"]), "{n}");
    assert_eq!(id.domain_hash() as i128, int(&p["domain_hash"]), "{n}");
    assert_eq!(id.kind(), kind_of(&p["kind"]), "{n}");
    assert_eq!(id.serial() as i128, int(&p["serial"]), "{n}");
    assert_eq!(id.low16() as i128, int(&p["low16"]), "{n}");

    let ticks = int(&p["ticks"]) as i64;
    let shard = int(&p["shard"]) as i32;
    let hash = int(&p["domain_hash"]) as i64;
    let low16 = int(&p["low16"]) as i32;
    assert_eq!(
        Siq::from_parts_low16(ticks, shard, hash, low16).unwrap(),
        id,
        "{n}"
    );
    if let Some(kind) = kind_of(&p["kind"]) {
        let serial = int(&p["serial"]) as i32;
        assert_eq!(
            Siq::from_parts(ticks, shard, hash, kind, serial).unwrap(),
            id,
            "{n}"
        );
    }
    if let (Some(domain), None) = (v.get("domain"), v.get("node")) {
        let hash = siq::domain_hash(domain.as_str().unwrap()).unwrap();
        assert_eq!(hash, id.domain_hash(), "{n}");
    }
    id
}

#[test]
fn every_value_vector() {
    let values = value_vectors();
    assert_eq!(values.len(), 36);
    for v in &values {
        check_value(v);
    }
}

#[test]
fn kind_serial_vectors() {
    let all = vectors("siq.jsonl");
    let cases = of_kind(&all, &["kind_serial"]);
    assert_eq!(cases.len(), 18);
    for v in cases {
        let id = check_value(v);
        let kind = id.kind().unwrap();
        assert_eq!(id.low16() & ((1 << kind.suffix_bits()) - 1), kind.suffix());
        assert_eq!(kind.low16(id.serial()), id.low16(), "{}", name(v));
    }
}

#[test]
fn time_vectors() {
    let all = vectors("siq.jsonl");
    let cases = of_kind(&all, &["time"]);
    assert_eq!(cases.len(), 6);
    for v in cases {
        let id = check_value(v);
        let Some(input) = v.get("input_time") else {
            continue;
        };
        let micros = (time_nanos(input) / 1000) as i64;
        assert_eq!(siq::ticks_at(micros).unwrap(), id.ticks(), "{}", name(v));
        let smallest = Siq::from_time(micros).unwrap();
        assert_eq!(smallest.ticks(), id.ticks(), "{}", name(v));
        assert_eq!(
            (smallest.shard(), smallest.domain_hash(), smallest.low16()),
            (0, 0, 0)
        );
        assert!(smallest <= id);
    }
}

#[test]
fn out_of_range_vectors() {
    let all = vectors("siq.jsonl");
    let cases = of_kind(&all, &["out_of_range"]);
    assert_eq!(cases.len(), 2);
    for v in cases {
        assert_eq!(v["function"], "siq_from_parts");
        let i = &v["input"];
        let err = Siq::from_parts(
            int(&i["ticks"]) as i64,
            int(&i["shard"]) as i32,
            int(&i["domain_hash"]) as i64,
            Kind::from_name(i["kind"].as_str().unwrap()).unwrap(),
            int(&i["serial"]) as i32,
        )
        .unwrap_err();
        let state = err.kind().sqlstate().to_owned();
        assert!(sqlstates(v).contains(&state), "{}: {state}", name(v));
    }
}

#[test]
fn domain_vectors() {
    let all = vectors("siq.jsonl");
    let cases = of_kind(&all, &["domain"]);
    assert_eq!(cases.len(), 4);
    for v in cases {
        let id = check_value(v);
        let domain = v["domain"].as_str().unwrap();
        assert_eq!(
            siq::domain_hash(domain).unwrap(),
            id.domain_hash(),
            "{}",
            name(v)
        );
    }
}

#[test]
fn invalid_domain_vectors() {
    let all = vectors("siq.jsonl");
    let cases = of_kind(&all, &["invalid_domain"]);
    assert_eq!(cases.len(), 1);
    for v in cases {
        let err = siq::domain_hash(v["input"].as_str().unwrap()).unwrap_err();
        assert_eq!(
            vec![err.kind().sqlstate().to_owned()],
            sqlstates(v),
            "{}",
            name(v)
        );
    }
}

#[test]
fn node_vectors() {
    let all = vectors("siq.jsonl");
    let cases = of_kind(&all, &["node"]);
    assert_eq!(cases.len(), 2);
    for v in cases {
        let id = check_value(v);
        let hash = siq::domain_hash(v["domain"].as_str().unwrap()).unwrap();
        assert_eq!(
            hash as i128,
            int(&v["domain_hash_of_domain"]),
            "{}",
            name(v)
        );
        let node = int(&v["node"]) as u8;
        assert_eq!(siq::apply_node(hash, node), id.domain_hash(), "{}", name(v));
    }
}

#[test]
fn shard_and_raw_vectors() {
    let all = vectors("siq.jsonl");
    let cases = of_kind(&all, &["shard", "raw"]);
    assert_eq!(cases.len(), 3);
    for v in cases {
        check_value(v);
    }
}

/// The clock reading at the start of tick `ticks` (rounded up to whole ns).
fn nanos_of_tick(ticks: u64) -> i64 {
    ((ticks as i128 * 1_000_000_000 + 65_535) / 65_536) as i64
}

/// A generator whose first ID of any kind falls into tick `ticks`: its
/// floor is the tick before, and the clock at the start of `ticks`.
fn generator_at(slot: u32, ticks: u64) -> (SiqGenerator, ScriptedClock) {
    let clock = ScriptedClock::new(nanos_of_tick(ticks), 1_000);
    (SiqGenerator::new(slot, 100, ticks - 1).unwrap(), clock)
}

#[test]
fn batch_vectors_come_from_the_generator() {
    let all = vectors("siq.jsonl");
    let cases = of_kind(&all, &["batch"]);
    assert_eq!(cases.len(), 3);
    for v in cases {
        let expected = check_value(v);
        let kind = expected.kind().unwrap();
        let hash = siq::domain_hash(v["domain"].as_str().unwrap()).unwrap();
        let (mut g, mut clock) = generator_at(expected.shard() as u32, expected.ticks());
        let ids: Vec<Siq> = (0..=expected.serial())
            .map(|_| g.generate(&mut clock, kind, hash).unwrap())
            .collect();
        assert_eq!(ids.last(), Some(&expected), "{}", name(v));
        assert_eq!(clock.pauses, 0);
    }
}

#[test]
fn kind_serial_vectors_come_from_the_generator() {
    let all = vectors("siq.jsonl");
    for v in of_kind(&all, &["kind_serial"]) {
        let expected = check_value(v);
        let kind = expected.kind().unwrap();
        let (mut g, mut clock) = generator_at(expected.shard() as u32, expected.ticks());
        let hash = expected.domain_hash();
        let last = (0..=expected.serial())
            .map(|_| g.generate(&mut clock, kind, hash).unwrap())
            .last();
        assert_eq!(last, Some(expected), "{}", name(v));
    }
}

// --- spec examples and edges -----------------------------------------------

#[test]
fn kinds_follow_the_table() {
    assert_eq!(Kind::ALL.len(), 15);
    for (i, k) in Kind::ALL.into_iter().enumerate() {
        assert_eq!(k.index(), i);
        assert_eq!(Kind::from_name(k.name()).unwrap(), k);
        assert_eq!(Kind::from_name(&k.name().to_uppercase()).unwrap(), k);
        assert_eq!(k.name().parse::<Kind>().unwrap(), k);
        assert_eq!(k.to_string(), k.name());
        assert_eq!(k.serial_bits() + k.suffix_bits(), 16);
        assert_eq!(siq::suffix_bits_of(k.suffix()), k.suffix_bits(), "{k}");
        assert_eq!(Kind::from_low16(k.low16(k.max_serial())), Some(k));
        for other in &Kind::ALL[i + 1..] {
            assert!(k.low16(0) != other.low16(0));
        }
    }
    assert_eq!(Kind::from_name("ManyToMany").unwrap(), Kind::ManyToMany);
    assert_eq!(
        [Kind::User, Kind::Thread, Kind::Content].map(Kind::max_serial),
        [2047, 4095, 8191]
    );
}

#[test]
fn unknown_kind_lists_the_accepted_names() {
    for bad in ["", "users", "many_to_many", "ūser"] {
        let err = Kind::from_name(bad).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidParameter);
        assert!(err.to_string().contains("manytomany"), "{err}");
    }
}

#[test]
fn unassigned_suffixes_have_no_kind() {
    for suffix in [0b11100u16, 0b10010, 0b11010] {
        for serial in [0u16, 1, 2047] {
            let low16 = serial << 5 | suffix;
            let id = Siq::from_parts_low16(1, 0, 0, low16 as i32).unwrap();
            assert_eq!(id.kind(), None);
            assert_eq!(id.serial(), serial);
        }
    }
    let assigned = (0..=u16::MAX)
        .filter(|&l| Kind::from_low16(l).is_some())
        .count();
    // 9 kinds cover 2^11 values each, 2 kinds 2^12, 4 kinds 2^13.
    assert_eq!(assigned, 9 * 2048 + 2 * 4096 + 4 * 8192);
}

#[test]
fn parts_are_range_checked() {
    let ok = |t: i64, s: i32, d: i64, k: Kind, n: i32| Siq::from_parts(t, s, d, k, n);
    assert!(ok(MAX_TICKS as i64, 255, u32::MAX as i64, Kind::Content, 8191).is_ok());
    let out = [
        ok(-1, 0, 0, Kind::User, 0),
        ok(MAX_TICKS as i64 + 1, 0, 0, Kind::User, 0),
        ok(0, -1, 0, Kind::User, 0),
        ok(0, 256, 0, Kind::User, 0),
        ok(0, 0, -1, Kind::User, 0),
        ok(0, 0, 1 << 32, Kind::User, 0),
        ok(0, 0, 0, Kind::User, 2048),
        ok(0, 0, 0, Kind::Thread, 4096),
        ok(0, 0, 0, Kind::Content, 8192),
        ok(0, 0, 0, Kind::Content, -1),
        Siq::from_parts_low16(0, 0, 0, 65536),
        Siq::from_parts_low16(0, 0, 0, -1),
    ];
    for r in out {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::NumericOutOfRange);
    }
    let err = ok(0, 300, 0, Kind::User, 0).unwrap_err();
    assert!(err.to_string().contains("\"shard\""), "{err}");
}

#[test]
fn time_range() {
    assert_eq!(Siq::from_time(0).unwrap(), Siq::from_bytes([0; 14]));
    // The last instant whose tick fits 56 bits.
    let last = (1i64 << 40) * 1_000_000 - 1;
    assert_eq!(siq::ticks_at(last).unwrap(), MAX_TICKS);
    assert_eq!(format_rfc3339_micros(last), "36812-02-20T00:36:15.999999Z");
    assert!(siq::TIME_RANGE.ends_with("36812-02-20 00:36:15.999999+00"));
    let top = Siq::from_time(last).unwrap();
    assert_eq!(
        format_rfc3339_micros(top.unix_micros()),
        "36812-02-20T00:36:15.999984Z"
    );
    for bad in [-1, last + 1, i64::MIN, i64::MAX] {
        let err = Siq::from_time(bad).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DatetimeOverflow, "{bad}");
    }
    assert_eq!(
        siq::ticks_at_nanos(-1).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(
        siq::ticks_at_nanos(i128::MAX).unwrap_err().kind(),
        ErrorKind::DatetimeOverflow
    );
    assert_eq!(siq::ticks_at_nanos(1_000_000_000).unwrap(), 65_536);
    assert_eq!(siq::ticks_at_nanos(15_258).unwrap(), 0);
    assert_eq!(siq::ticks_at_nanos(15_259).unwrap(), 1);
}

#[test]
fn domain_hash_examples() {
    assert_eq!(siq::domain_hash("example.com").unwrap(), 0x86ce1947);
    assert_eq!(siq::domain_hash("").unwrap(), 0);
    assert_eq!(siq::domain_hash("0").unwrap(), 0);
    assert_ne!(
        siq::domain_hash("Example.com").unwrap(),
        0x86ce1947,
        "no lowercasing"
    );
    assert_eq!(
        siq::domain_hash("bücher.de").unwrap_err().kind(),
        ErrorKind::InvalidParameter
    );
    assert_eq!(siq::apply_node(0x86ce1947, 0), 0x86ce1947);
    assert_eq!(siq::apply_node(0x86ce1947, 0xab), 0xabce1947);
    assert_eq!(siq::apply_node(0, 77), 77 << 24);
}

#[test]
fn text_input_is_strict() {
    let good = "mpzijbyagku7racaaaamgzymuoaaa";
    assert!(good.parse::<Siq>().is_ok());
    assert!("DID:SIQ:MPZIJBYAGKU7RACAAAAMGZYMUOAAA"
        .parse::<Siq>()
        .is_ok());
    let mut wrong_checksum = good.to_owned();
    wrong_checksum.replace_range(0..1, "n");
    for bad in [
        "",
        "aaa",
        &good[1..],
        &format!("{good}a"),
        &format!("aaa{good}"),
        &format!(" {good}"),
        &format!("did:siq:did:siq:{good}"),
        &format!("did:{good}"),
        &format!("urn:siq:{good}"),
        "mpzijbyagku7racaaaamgzymuoaa1",
        "mpzijbyagku7racaaaamgzymuoaa=",
        &wrong_checksum,
        // Top bit of the first character belongs to the zero prefix.
        "zpzijbyagku7racaaaamgzymuoaaa",
    ] {
        let err = bad.parse::<Siq>().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidText, "{bad:?}");
        assert!(err
            .to_string()
            .contains("invalid input syntax for type siq"));
    }
}

#[test]
fn hex_and_base64_input() {
    let max = Siq::from_u128(siq::MAX_VALUE).unwrap();
    assert_eq!(Siq::from_hex("1").unwrap().to_u128(), 1);
    assert_eq!(Siq::from_hex("ABCdef").unwrap().to_u128(), 0xabcdef);
    assert_eq!(Siq::from_hex(&"f".repeat(28)).unwrap(), max);
    for bad in ["", "0x1", "g", " 1", &"0".repeat(29), "١"] {
        assert_eq!(
            Siq::from_hex(bad).unwrap_err().kind(),
            ErrorKind::InvalidText,
            "{bad:?}"
        );
    }
    assert_eq!(max.to_base64(), "AP__________________");
    for bad in [
        "",
        "AP_________________",
        "AP_________________=",
        "AP+_________________",
    ] {
        assert_eq!(
            Siq::from_base64(bad).unwrap_err().kind(),
            ErrorKind::InvalidText,
            "{bad:?}"
        );
    }
    let err = Siq::from_base64("AQAAAAAAAAAAAAAAAAAA").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NumericOutOfRange);
}

#[test]
fn numbers_of_112_bits_or_more_are_out_of_range() {
    assert_eq!(siq::VALUE_RANGE, format!("0 to {}", siq::MAX_VALUE));
    assert!(Siq::from_u128(siq::MAX_VALUE).is_ok());
    for bad in [siq::MAX_VALUE + 1, u128::MAX] {
        assert_eq!(
            Siq::from_u128(bad).unwrap_err().kind(),
            ErrorKind::NumericOutOfRange
        );
    }
}

#[test]
fn bytea_input_accepts_the_reference_16_byte_form() {
    let id: Siq = "mpzijbyagku7racaaaamgzymuoaaa".parse().unwrap();
    let mut sixteen = vec![0, 0];
    sixteen.extend_from_slice(id.as_bytes());
    assert_eq!(Siq::from_slice_lenient(&sixteen).unwrap(), id);
    assert_eq!(Siq::from_slice_lenient(id.as_bytes()).unwrap(), id);
    assert_eq!(
        Siq::from_slice(&sixteen).unwrap_err().kind(),
        ErrorKind::InvalidBinary
    );
    sixteen[1] = 1;
    for bad in [&sixteen[..], &[0u8; 15], &[0u8; 13], &[], &[0u8; 18]] {
        let err = Siq::from_slice_lenient(bad).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidBinary, "{}", bad.len());
    }
}

// --- properties --------------------------------------------------------------

fn any_siq() -> impl Strategy<Value = Siq> {
    any::<[u8; 14]>().prop_map(Siq::from_bytes)
}

fn any_kind() -> impl Strategy<Value = Kind> {
    (0..15usize).prop_map(|i| Kind::ALL[i])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_text_form_round_trips(id in any_siq()) {
        let text = id.to_string();
        prop_assert_eq!(text.len(), siq::TEXT_LEN);
        prop_assert_eq!(text.parse::<Siq>().unwrap(), id);
        prop_assert_eq!(text.to_uppercase().parse::<Siq>().unwrap(), id);
        prop_assert_eq!(id.to_did().parse::<Siq>().unwrap(), id);
        let hex = id.to_hex();
        prop_assert_eq!(hex.len(), siq::HEX_LEN);
        prop_assert_eq!(Siq::from_hex(&hex).unwrap(), id);
        prop_assert_eq!(Siq::from_hex(&hex.to_uppercase()).unwrap(), id);
        let trimmed = hex.trim_start_matches('0');
        if !trimmed.is_empty() {
            prop_assert_eq!(Siq::from_hex(trimmed).unwrap(), id);
        }
        let b64 = id.to_base64();
        prop_assert_eq!(b64.len(), siq::BASE64_LEN);
        prop_assert_eq!(Siq::from_base64(&b64).unwrap(), id);
        prop_assert_eq!(Siq::from_u128(id.to_u128()).unwrap(), id);
        prop_assert_eq!(Siq::from_slice(id.as_bytes()).unwrap(), id);
    }

    #[test]
    fn text_order_is_byte_order_for_hex_and_numbers(a in any_siq(), b in any_siq()) {
        prop_assert_eq!(a.to_hex().cmp(&b.to_hex()), a.cmp(&b));
        prop_assert_eq!(a.to_u128().cmp(&b.to_u128()), a.cmp(&b));
        prop_assert_eq!(a.to_base64().cmp(&b.to_base64()) == std::cmp::Ordering::Equal, a == b);
    }

    #[test]
    fn parts_round_trip(
        ticks in 0..=MAX_TICKS as i64,
        shard in 0..=255i32,
        hash in 0..=u32::MAX as i64,
        kind in any_kind(),
        serial in 0..=8191i32,
    ) {
        let serial = serial & kind.max_serial() as i32;
        let id = Siq::from_parts(ticks, shard, hash, kind, serial).unwrap();
        prop_assert_eq!(id.ticks() as i64, ticks);
        prop_assert_eq!(id.shard() as i32, shard);
        prop_assert_eq!(id.domain_hash() as i64, hash);
        prop_assert_eq!(id.kind(), Some(kind));
        prop_assert_eq!(id.serial() as i32, serial);
        prop_assert_eq!(
            Siq::from_parts_low16(ticks, shard, hash, id.low16() as i32).unwrap(), id);
    }

    #[test]
    fn time_rounds_down_into_its_tick(micros in 0..(1i64 << 40) * 1_000_000) {
        let id = Siq::from_time(micros).unwrap();
        prop_assert!(id.unix_micros() <= micros);
        let next = Siq::from_parts_low16(id.ticks() as i64 + 1, 0, 0, 0);
        if let Ok(next) = next {
            prop_assert!(next.unix_micros() + 1 > micros);
        }
        // Both directions truncate, so the timestamp of a tick can fall into
        // the tick before; from_time(timestamp(id)) <= id still holds.
        let back = siq::ticks_at(id.unix_micros()).unwrap();
        prop_assert!(back == id.ticks() || back + 1 == id.ticks());
    }

    #[test]
    fn any_string_decodes_or_is_rejected(s in "(did:siq:)?[a-zA-Z2-7]{29}|\\PC{0,40}") {
        match s.parse::<Siq>() {
            Ok(id) => {
                let body = s.strip_prefix("did:siq:").unwrap_or(&s);
                prop_assert_eq!(id.to_string(), body.to_lowercase());
            }
            Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidText),
        }
        if let Err(e) = Siq::from_hex(&s) {
            prop_assert_eq!(e.kind(), ErrorKind::InvalidText);
        }
        if let Err(e) = Siq::from_base64(&s) {
            prop_assert!(matches!(e.kind(), ErrorKind::InvalidText | ErrorKind::NumericOutOfRange));
        }
    }
}

// --- generator, with a scripted clock ----------------------------------------
// (docs/formats/siq.md; the rules every generator shares are tested for all
// of them in marks.rs)

/// 2023-11-14T22:13:20.5Z, on a tick boundary.
const T0_TICKS: u64 = 111_411_200_032_768;

fn at(ticks: u64) -> i64 {
    nanos_of_tick(ticks)
}

#[test]
fn the_floor_tick_is_skipped_by_every_kind() {
    let mut clock = ScriptedClock::new(at(T0_TICKS) + 1000, 1000);
    let mut g = SiqGenerator::starting_now(3, 100, &mut clock).unwrap();
    let first = g.generate(&mut clock, Kind::User, 0).unwrap();
    assert!(clock.pauses >= 1, "must wait for the next tick");
    assert_eq!(first.ticks(), T0_TICKS + 1);
    assert_eq!(
        (first.serial(), first.shard(), first.kind()),
        (0, 3, Some(Kind::User))
    );
    // Another kind's sequencer, made on its first use, starts above the
    // same floor: it need not wait for a tick of its own.
    let pauses = clock.pauses;
    let other = g.generate(&mut clock, Kind::Message, 0).unwrap();
    assert_eq!(clock.pauses, pauses);
    assert_eq!((other.ticks(), other.serial()), (first.ticks(), 0));
    // A kind first used with the clock back in the floor tick does not use it.
    clock.now = at(T0_TICKS) + 2000;
    let third = g.generate(&mut clock, Kind::Tag, 0).unwrap();
    assert_eq!((third.ticks(), third.serial()), (T0_TICKS + 1, 0));
    assert!(g.states().iter().all(|(_, s)| s.floor == T0_TICKS));
}

#[test]
fn per_kind_serials_are_independent_and_reset_on_a_new_tick() {
    let mut clock = ScriptedClock::new(at(T0_TICKS), 1000);
    let mut g = SiqGenerator::new(5, 100, T0_TICKS - 1).unwrap();
    assert!(g.states().is_empty());
    let mut user = vec![];
    let mut content = vec![];
    for _ in 0..4 {
        user.push(g.generate(&mut clock, Kind::User, 7).unwrap());
        content.push(g.generate(&mut clock, Kind::Content, 7).unwrap());
    }
    assert_eq!(
        user.iter().map(Siq::serial).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert_eq!(
        content.iter().map(Siq::serial).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert!(user
        .iter()
        .chain(&content)
        .all(|i| i.ticks() == T0_TICKS && i.shard() == 5));
    assert!(content
        .iter()
        .all(|i| i.kind() == Some(Kind::Content) && i.domain_hash() == 7));
    clock.now = at(T0_TICKS + 1);
    assert_eq!(g.generate(&mut clock, Kind::User, 7).unwrap().serial(), 0);
    assert_eq!(
        g.generate(&mut clock, Kind::Content, 7).unwrap().serial(),
        0
    );
    assert_eq!(clock.pauses, 0);

    let states = g.states();
    assert_eq!(
        states.iter().map(|s| s.0).collect::<Vec<_>>(),
        [Kind::User, Kind::Content]
    );
    for (kind, state) in states {
        assert_eq!(state.unit, T0_TICKS + 1);
        assert_eq!(state.last_sequence, Some(0));
        assert_eq!(state.issued, 5);
        assert_eq!(state.floor, T0_TICKS - 1);
        assert_eq!(state.range.last as u64, (1u64 << kind.serial_bits()) - 1);
    }
    assert!(g.state(Kind::Tag).is_none());
}

#[test]
fn overflow_waits_for_the_next_tick() {
    let (mut g, mut clock) = generator_at(0, T0_TICKS);
    // A clock that stands still except when the generator pauses.
    clock.pause_step = 4_000; // 1 tick ≈ 15 259 ns: 4 pauses
    let ids: Vec<Siq> = (0..2048)
        .map(|_| g.generate(&mut clock, Kind::User, 1).unwrap())
        .collect();
    assert!(ids.iter().all(|i| i.ticks() == T0_TICKS));
    assert_eq!(ids.last().unwrap().serial(), 2047);
    assert_eq!(clock.pauses, 0);
    let next = g.generate(&mut clock, Kind::User, 1).unwrap();
    assert_eq!(
        clock.pauses, 4,
        "waited for the clock to reach the next tick"
    );
    assert_eq!((next.ticks(), next.serial()), (T0_TICKS + 1, 0));
    assert!(next > *ids.last().unwrap());
}

#[test]
fn a_regression_goes_on_in_logical_time() {
    let (mut g, mut clock) = generator_at(0, T0_TICKS + 10);
    let before = g.generate(&mut clock, Kind::Thread, 0).unwrap();
    clock.now = at(T0_TICKS + 2);
    // The rest of tick 10's serials, then tick 11, without waiting.
    let after: Vec<Siq> = (0..4096)
        .map(|_| g.generate(&mut clock, Kind::Thread, 0).unwrap())
        .collect();
    assert_eq!(clock.pauses, 0);
    assert_eq!((after[0].ticks(), after[0].serial()), (T0_TICKS + 10, 1));
    assert_eq!(
        (after[4094].ticks(), after[4094].serial()),
        (T0_TICKS + 10, 4095)
    );
    assert_eq!(
        (after[4095].ticks(), after[4095].serial()),
        (T0_TICKS + 11, 0)
    );
    assert!(after[0] > before && after.windows(2).all(|w| w[0] < w[1]));
    let state = g.state(Kind::Thread).unwrap();
    assert_eq!(state.lead, at(T0_TICKS + 11) - at(T0_TICKS + 2));
    // Each kind counts on its own: a kind used now starts just above the
    // generator's floor, not after the ticks `thread` used.
    let user = g.generate(&mut clock, Kind::User, 0).unwrap();
    assert_eq!((user.ticks(), user.serial()), (T0_TICKS + 10, 0));
}

#[test]
fn a_learned_mark_raises_the_floor_of_every_kind_used_or_not() {
    let (mut g, mut clock) = generator_at(0, T0_TICKS);
    let user = g.generate(&mut clock, Kind::User, 0).unwrap();
    g.raise_floor(T0_TICKS + 100);
    assert_eq!(g.last_unit(), T0_TICKS + 100);
    for kind in [Kind::User, Kind::Event] {
        let id = g.generate(&mut clock, kind, 0).unwrap();
        assert_eq!((id.ticks(), id.serial()), (T0_TICKS + 101, 0), "{kind}");
    }
    assert!(g.generate(&mut clock, Kind::User, 0).unwrap() > user);
    assert!(g.states().iter().all(|(_, s)| s.floor == T0_TICKS + 100));
}

#[test]
fn the_last_unit_is_the_highest_any_kind_used() {
    let highest = |g: &SiqGenerator| {
        g.states()
            .iter()
            .map(|(_, s)| s.unit.max(s.safe_unit))
            .fold(0, u64::max)
    };
    let (mut g, mut clock) = generator_at(0, T0_TICKS);
    assert_eq!(g.last_unit(), T0_TICKS - 1, "the floor before the first ID");
    g.generate(&mut clock, Kind::User, 0).unwrap();
    clock.now = at(T0_TICKS + 7);
    g.generate(&mut clock, Kind::Event, 0).unwrap();
    clock.now = at(T0_TICKS + 3);
    g.generate(&mut clock, Kind::User, 0).unwrap();
    assert_eq!(g.last_unit(), T0_TICKS + 7);
    assert_eq!(g.last_unit(), highest(&g));
    g.raise_floor(T0_TICKS + 50);
    assert_eq!(g.last_unit(), T0_TICKS + 50);
    g.generate(&mut clock, Kind::Thread, 0).unwrap();
    assert_eq!(g.last_unit(), highest(&g));
}

#[test]
fn slots_split_serials_when_there_are_many() {
    // 512 slots: shard = slot mod 256, and the serial space is halved.
    let g = SiqGenerator::new(300, 512, 0).unwrap();
    assert_eq!(g.shard(), 44);
    let a = g.assignment(Kind::User).unwrap();
    assert_eq!((a.process, a.range.first, a.range.last), (44, 1024, 2047));
    let c = g.assignment(Kind::Content).unwrap();
    assert_eq!((c.range.first, c.range.last), (4096, 8191));
    assert_eq!(
        SiqGenerator::new(100, 100, 0).unwrap_err().kind(),
        ErrorKind::InvalidParameter
    );
    assert!(SiqGenerator::new(0, 256 * 2049, 0).is_err());
    assert!(SiqGenerator::new(0, 256 * 2048, 0).is_ok());
}

#[test]
fn generated_ids_are_unique_and_increasing_per_kind() {
    let mut clock = ScriptedClock::new(at(T0_TICKS), 3_000);
    let mut g = SiqGenerator::starting_now(0, 1, &mut clock).unwrap();
    let mut seen = std::collections::HashSet::new();
    let mut last: [Option<Siq>; 15] = [None; 15];
    for i in 0..60_000usize {
        if i % 1000 == 0 {
            clock.now -= 5 * 15_259; // occasional regressions
        }
        clock.now += 700;
        let kind = Kind::ALL[i % 15];
        let id = g.generate(&mut clock, kind, 0xdead_beef).unwrap();
        assert!(seen.insert(id));
        assert_eq!(id.kind(), Some(kind));
        if let Some(prev) = last[kind.index()] {
            assert!(id > prev, "{kind}: {id:?} after {prev:?}");
        }
        last[kind.index()] = Some(id);
    }
}

#[test]
fn clock_before_1970_is_an_error() {
    let mut clock = ScriptedClock::new(-1, 1);
    assert_eq!(
        SiqGenerator::starting_now(0, 1, &mut clock)
            .unwrap_err()
            .kind(),
        ErrorKind::DatetimeOverflow
    );
    let mut g = SiqGenerator::new(0, 1, 0).unwrap();
    let err = g.generate(&mut clock, Kind::User, 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    assert!(g.states().iter().all(|(_, s)| s.issued == 0));
}
