//! Bad input for every decoder of flake-core: property tests that feed each
//! one at least 100 000 generated inputs and compare what it did with what the
//! spec says it must do.
//!
//! For every input the decoder's answer is reduced to a verdict: the accepted
//! value re-encoded by the crate's own encoder (canonical text, or the stored
//! bytes as hex), or the SQLSTATE of the error it raised (`"None"` / `"NULL"`
//! for decoders that answer with an `Option`). A spec function written here
//! from the format files, independently of the decoder, gives the verdict the
//! input must get: for strict decoders the canonical form is the input
//! itself, for lenient ones the input after the normalisation listed below.
//! So every accepted input re-encodes to exactly its canonical form, every
//! rejected one gets the documented error, and nothing is accepted or
//! rejected that should not be. No input may panic.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `Sno::from_str` | exactly 16 of `2-9a-x` (strict) | 22P02 |
//! | `Sno::decode(&[u8])` | same, as bytes (any bytes, not only UTF-8) | `None` (the type input's 22P02) |
//! | `FlaxId::from_str` | exactly 16 of `-0-9A-Z_a-z` (strict, case matters) | 22P02 |
//! | `FlaxId::decode(&[u8])` | same, as bytes | `None` (22P02) |
//! | `Kuid96::from_str` | exactly 16 of `.0-9A-Z_a-z` (strict) | 22P02 |
//! | `Kuid96::decode(&[u8])` | same, as bytes | `None` (22P02) |
//! | `kuid::kuid64_decode` | exactly 11 of `.0-9A-Z_a-z`, the 2 padding bits zero (strict) | 22P02; top bit set: 22003 |
//! | `Siq::from_str` | 29 of `a-z2-7` carrying a valid CRC-32; lenient: an optional `did:siq:` prefix in any ASCII case is dropped and ASCII upper case lowered → the 29 lower-case characters | 22P02 |
//! | `Siq::decode(&[u8])` | same, as bytes | `None` (22P02) |
//! | `Siq::from_hex` | 1–28 hex digits, any case → 28 lower-case digits, zero-padded on the left | 22P02 |
//! | `Siq::from_base64` | exactly 20 of `A-Za-z0-9-_` (strict) | 22P02; first byte non-zero: 22003 |
//! | `siq::Kind::from_str` (`Kind::from_name`) | a kind name in any ASCII case → the lower-case name | 22023 |
//! | `siq::domain_hash` | any ASCII text → last 4 bytes of its SHA-256 (`""`, `"0"` → 0) | 22023 (non-ASCII) |
//! | `DistributedId::from_str` | 1+ ASCII digits with at most 28 significant; lenient: C white space (`\t\n\v\f\r `) around it and leading zeros dropped → plain decimal | 22P02; more than 28 significant digits: 22003 |
//! | `DistributedId::from_hex` | exactly 26 hex digits, any case, value ≤ 10^28−1 → upper case | 22P02; larger: 22003 |
//! | `DistributedId::from_numeric_text` | numeric text (below) of an integer ≤ 10^28−1 | 22P02; 22003 |
//! | `DistributedId128::from_numeric_text` | numeric text of an integer ≤ 2^128−1 | 22P02; 22003 |
//! | `numeric::numeric_integer` (max 2^112−1, the `numeric::siq` cast) | numeric text of an integer ≤ 2^112−1 | 22P02; 22003 |
//! | `DistributedId128::from_str` | 8-4-4-4-12 hex digits, either case → lower case | 22P02 |
//! | `DistributedId128::decode(&[u8])` | same, as bytes | `None` (22P02) |
//! | `alphanumeric::decode_u64` | exactly 11 of `0-9A-Za-z`, value < 2^64 (strict) | 22P02 |
//! | `alphanumeric::decode_i64` | the same, value ≤ 2^63−1 | 22P02; 22003 |
//! | `alphanumeric::decode_u128_blocks` | exactly 22 of `0-9A-Za-z`, each 11-character half < 2^64 | 22P02 |
//! | `alphanumeric::decode_distributed_id` | exactly 16 of `0-9A-Za-z`, the last 11 < 2^64, value ≤ 10^28−1 | 22P02; 22003 |
//! | `public_id::decode_base64` | standard base64 with `=` padding, unused bits zero (strict) | `None` |
//! | `PublicIdKey::from_base64` | that base64 of 16, 24 or 32 bytes | 22023 |
//! | `PublicIdKey::new(&[u8])` | 16, 24 or 32 bytes | 22023 |
//! | uuid text → `PublicIdKey::decrypt_i64` | a uuid (as above) whose plaintext is 8 zero bytes and a little-endian value ≤ 2^63−1 → the lower-case uuid, which re-encrypting the value gives back | 22P02 (uuid text); `NULL` |
//! | uuid text → `PublicIdKey::decrypt_distributed_id` | plaintext: 4 zero bytes, then hi, lo, mid little-endian, value ≤ 10^28−1 | 22P02; `NULL` |
//! | uuid text → `PublicIdKey::decrypt_uuid` | every uuid | 22P02 |
//! | `kuid::node_fingerprint` | every text (total): the ELF hash of its Latin-1 bytes, other characters as their UTF-8 bytes | — |
//! | `time::parse_rfc3339_nanos` | `YYYY-MM-DDTHH:MM:SS[.f]Z`: year of 4+ digits (no leading zero beyond 4) up to 2^63−1, a real date and time of day, 1–9 fraction digits → fraction right-padded to 9 digits | `None` |
//! | `FlakeId::from_slice` = `TryFrom<&[u8]>` of sno, siq, flaxid, kuid96, distributed_id | exactly `LEN` bytes (distributed_id: any 12, see receive) | 22P03 |
//! | `Siq::from_slice_lenient` (`bytea::siq`) | 14 bytes, or 16 of which the first two are zero → the 14 | 22P03 |
//! | `from_slice` + `DistributedId::from_bytes_checked` (receive, `bytea::distributed_id`) | 12 bytes of value ≤ 10^28−1 | 22P03; 22003 |
//! | serde `Deserialize` of the five types (feature `serde`) | as `from_str` | the `from_str` error's message (22P02; distributed_id also 22003) |
//! | postgres `FromSql` of the five types (feature `postgres`) | as `from_slice` (distributed_id: as receive) | 22P03 (22003) |
//!
//! Numeric text (`numeric::numeric_integer`, PostgreSQL's numeric output):
//! after trimming C white space, `NaN`, `[+-]Infinity` and `[+-]inf` in any
//! ASCII case are 22003; otherwise an optional sign, digits, an optional `.`
//! and digits (at least one digit in all) or 22P02; zero (any sign, any zero
//! fraction) is 0; a negative value, a non-zero fraction or a value above
//! the maximum is 22003; the canonical form is the plain decimal integer.
//!
//! `codec::Alphabet::decode` is covered through sno, flaxid, kuid and the SIQ
//! base64 form. Inputs mix arbitrary Unicode, printable ASCII, control
//! characters, the form's own alphabet at its canonical length ±2, accepted
//! texts (canonical and lenient) and their one-character mutations
//! (replaced, inserted, deleted, case flipped, swapped); byte decoders also
//! get byte arrays of 0–40 bytes, exact-length arrays and invalid UTF-8.
//! Each test prints its cases, acceptances and refusals by SQLSTATE.

mod common;

use aes::cipher::consts::U16;
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockDecrypt, BlockEncrypt, BlockSizeUser, KeyInit};
use common::{base64, STD64};
use flake_core::alphanumeric;
use flake_core::distributed_id::DistributedId;
use flake_core::distributed_id128::DistributedId128;
use flake_core::flaxid::FlaxId;
use flake_core::kuid::{self, Kuid96};
use flake_core::numeric::numeric_integer;
use flake_core::public_id::{decode_base64, PublicIdKey};
use flake_core::siq::{self, Kind, Siq};
use flake_core::sno::Sno;
use flake_core::time::parse_rfc3339_nanos;
use flake_core::{ErrorKind, FlakeId};
use proptest::prelude::*;
use proptest::strategy::{NewTree, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRunner};
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::{Debug, Display};
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::OnceLock;
use std::time::Instant;

const CASES: u32 = 100_000;

/// The canonical re-encoding of an accepted value, or why the input was
/// refused: an SQLSTATE, or `NONE` / `NULL` for `Option` answers.
type Verdict = Result<String, &'static str>;

const INVALID_TEXT: &str = ErrorKind::InvalidText.sqlstate();
const INVALID_BINARY: &str = ErrorKind::InvalidBinary.sqlstate();
const OUT_OF_RANGE: &str = ErrorKind::NumericOutOfRange.sqlstate();
const INVALID_PARAMETER: &str = ErrorKind::InvalidParameter.sqlstate();
/// A decoder's `None`.
const NONE: &str = "None";
/// A public ID that decrypts to no value of the type (SQL NULL).
const NULL: &str = "NULL";

// --- the harness --------------------------------------------------------------

#[derive(Default)]
struct Tally {
    cases: u64,
    accepted: u64,
    refused: BTreeMap<&'static str, u64>,
}

/// Runs `decoder` and `spec` on `CASES` inputs and requires equal verdicts.
/// `refusals` lists every refusal the decoder documents; each must have
/// occurred (so the inputs reach every branch), and none other can, since
/// `spec` only produces documented ones. An empty list means a total decoder.
fn check<I: Debug + Clone>(
    name: &str,
    refusals: &[&str],
    inputs: impl Strategy<Value = I>,
    decoder: impl Fn(&I) -> Verdict,
    spec: impl Fn(&I) -> Verdict,
) {
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        // One draw per case seeds `Dice`; the default ChaCha RNG costs about
        // 15 µs per case in the debug profile, XorShift almost nothing.
        rng_algorithm: RngAlgorithm::XorShift,
        ..Config::default()
    };
    let tally = RefCell::new(Tally::default());
    let started = Instant::now();
    let outcome = TestRunner::new(config).run(&inputs, |input| {
        let got = decoder(&input);
        prop_assert_eq!(&got, &spec(&input), "input {:?}", input);
        let mut tally = tally.borrow_mut();
        tally.cases += 1;
        match got {
            Ok(_) => tally.accepted += 1,
            Err(why) => *tally.refused.entry(why).or_default() += 1,
        }
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{name}: {failure}");
    }
    let tally = tally.into_inner();
    let rejected: u64 = tally.refused.values().sum();
    println!(
        "{name:<52} cases {:>6}  accepted {:>6}  rejected {:>6} {:?}  {:.1} s",
        tally.cases,
        tally.accepted,
        rejected,
        tally.refused,
        started.elapsed().as_secs_f64()
    );
    assert!(tally.cases >= CASES as u64, "{name}: too few cases");
    assert!(
        tally.accepted >= CASES as u64 / 100,
        "{name}: under 1% of the inputs accepted, the generators miss the accepted form"
    );
    for why in refusals {
        assert!(
            tally.refused.contains_key(why),
            "{name}: no input was refused with {why}"
        );
    }
    if refusals.is_empty() {
        assert_eq!(rejected, 0, "{name} is total");
    }
}

fn check_text(
    name: &str,
    refusals: &[&str],
    inputs: impl Strategy<Value = String>,
    decoder: impl Fn(&str) -> Verdict,
    spec: impl Fn(&str) -> Verdict,
) {
    check(name, refusals, inputs, |s| decoder(s), |s| spec(s));
}

fn check_bytes(
    name: &str,
    refusals: &[&str],
    inputs: impl Strategy<Value = Vec<u8>>,
    decoder: impl Fn(&[u8]) -> Verdict,
    spec: impl Fn(&[u8]) -> Verdict,
) {
    check(name, refusals, inputs, |b| decoder(b), |b| spec(b));
}

// --- decoders' verdicts ---------------------------------------------------------

fn refused(e: flake_core::Error) -> &'static str {
    e.kind().sqlstate()
}

fn shown<T: Display>(result: flake_core::Result<T>) -> Verdict {
    result.map(|v| v.to_string()).map_err(refused)
}

/// `FromStr`, re-encoded with `Display`.
fn parsed<T: FromStr<Err = flake_core::Error> + Display>(text: &str) -> Verdict {
    shown(text.parse::<T>())
}

/// A byte-level text decoder: `None` is what `FromStr` (and so the type
/// input) reports as 22P02.
fn decoded<T: Display>(value: Option<T>) -> Verdict {
    value.map(|v| v.to_string()).ok_or(INVALID_TEXT)
}

/// `FlakeId::from_slice`, which `TryFrom<&[u8]>` must agree with.
fn sliced<T>(bytes: &[u8]) -> Verdict
where
    T: FlakeId + Debug + for<'a> TryFrom<&'a [u8], Error = flake_core::Error>,
{
    let value = T::from_slice(bytes);
    assert_eq!(value, T::try_from(bytes), "TryFrom<&[u8]> of {bytes:02x?}");
    value.map(|v| hex(v.bytes())).map_err(refused)
}

/// `bytea::distributed_id` and the type's receive: the length, then the range.
fn received(bytes: &[u8]) -> Verdict {
    DistributedId::from_slice(bytes)
        .and_then(|id| DistributedId::from_bytes_checked(id.to_bytes()))
        .map(|id| hex(id.bytes()))
        .map_err(refused)
}

#[cfg(feature = "serde")]
fn deserialized<T: FlakeId + serde::de::DeserializeOwned>(text: &str) -> Verdict {
    use serde::de::value::{Error, StrDeserializer};
    use serde::de::IntoDeserializer;
    let input: StrDeserializer<'_, Error> = text.into_deserializer();
    match T::deserialize(input) {
        Ok(value) => Ok(value.to_string()),
        // The messages of sql-api.md §2, one per SQLSTATE.
        Err(e) => {
            let message = e.to_string();
            let name = T::TYPE_NAME;
            if message == format!("invalid input syntax for type {name}: \"{text}\"") {
                Err(INVALID_TEXT)
            } else if message == format!("value \"{text}\" is out of range for type {name}") {
                Err(OUT_OF_RANGE)
            } else {
                Err("unexpected serde error")
            }
        }
    }
}

#[cfg(feature = "postgres")]
fn from_sql<T: FlakeId + for<'a> postgres_types::FromSql<'a>>(bytes: &[u8]) -> Verdict {
    match T::from_sql(&postgres_types::Type::BYTEA, bytes) {
        Ok(value) => Ok(hex(value.bytes())),
        Err(e) => Err(e
            .downcast_ref::<flake_core::Error>()
            .map_or("not a flake_core::Error", |e| e.kind().sqlstate())),
    }
}

fn public_key() -> &'static PublicIdKey {
    static KEY: OnceLock<PublicIdKey> = OnceLock::new();
    KEY.get_or_init(|| PublicIdKey::new(&README_KEY).expect("a 32-byte key"))
}

/// What a key does, since it cannot be read back: its size and the public
/// ID of one fixed uuid.
fn key_fingerprint(key: PublicIdKey) -> String {
    format!("AES-{} {}", key.bits(), hex(&key.encrypt_uuid(PROBE)))
}

/// uuid text → public ID bytes → `decrypt`; an accepted value is shown as
/// the uuid text of its re-encryption.
fn decrypted<T>(
    text: &str,
    decrypt: impl Fn(&PublicIdKey, [u8; 16]) -> Option<T>,
    encrypt: impl Fn(&PublicIdKey, T) -> [u8; 16],
) -> Verdict {
    let public_id = text.parse::<DistributedId128>().map_err(refused)?;
    let value = decrypt(public_key(), public_id.to_bytes()).ok_or(NULL)?;
    Ok(uuid_text(encrypt(public_key(), value)))
}

// --- the spec ----------------------------------------------------------------------

const SNO32: &[u8] = b"23456789abcdefghijklmnopqrstuvwx";
const FLAX64: &[u8] = b"-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
const KUID64: &[u8] = b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
const BASE32: &[u8] = b"abcdefghijklmnopqrstuvwxyz234567";
const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const HEX: &[u8] = b"0123456789abcdef";
/// `pg_flake.public_id_key` of the README example.
const README_KEY: [u8; 32] = [
    0x93, 0xb7, 0xc1, 0x0c, 0x97, 0x10, 0x6a, 0x6d, 0x36, 0x86, 0xc0, 0x72, 0x68, 0xe5, 0x8f, 0x78,
    0xfd, 0x82, 0xa9, 0xe0, 0xde, 0x19, 0x7b, 0xeb, 0x3d, 0x49, 0x04, 0x01, 0x00, 0x6d, 0x00, 0x57,
];
const PROBE: [u8; 16] = [0x5a; 16];
/// 10^28 − 1, the largest distributed_id.
const DISTRIBUTED_ID_MAX: u128 = 9_999_999_999_999_999_999_999_999_999;
/// C `isspace`: what PostgreSQL trims around numbers.
const C_SPACE: [char; 6] = [' ', '\t', '\n', '\r', '\x0b', '\x0c'];

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .flat_map(|b| [HEX[(b >> 4) as usize], HEX[(b & 15) as usize]])
        .map(char::from)
        .collect()
}

fn uuid_text(bytes: [u8; 16]) -> String {
    DistributedId128::from_bytes(bytes).to_string()
}

/// The bits of `text` read as digits of a power-of-two `alphabet`, most
/// significant first; None for a character outside it.
fn bits_of(text: &[u8], alphabet: &[u8]) -> Option<Vec<bool>> {
    let width = alphabet.len().trailing_zeros();
    let mut bits = Vec::with_capacity(text.len() * width as usize);
    for c in text {
        let digit = alphabet.iter().position(|a| a == c)?;
        bits.extend((0..width).rev().map(|i| digit >> i & 1 == 1));
    }
    Some(bits)
}

fn number(bits: &[bool]) -> u128 {
    bits.iter().fold(0, |n, &b| n << 1 | b as u128)
}

fn bytes_of(bits: &[bool]) -> Vec<u8> {
    bits.chunks_exact(8).map(|c| number(c) as u8).collect()
}

/// The value of digits of any `alphabet` (base = its length); None outside
/// it or beyond u128.
fn digits_value(text: &[u8], alphabet: &[u8]) -> Option<u128> {
    text.iter().try_fold(0u128, |n, c| {
        let digit = alphabet.iter().position(|a| a == c)?;
        n.checked_mul(alphabet.len() as u128)?
            .checked_add(digit as u128)
    })
}

fn is_over(text: &str, alphabet: &[u8], len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| alphabet.contains(&b))
}

/// Strict forms where every text of the right length and alphabet is the
/// canonical text of exactly one value (no padding bits, no range).
fn every_text_of(alphabet: &'static [u8], len: usize) -> impl Fn(&str) -> Verdict {
    move |text| {
        if is_over(text, alphabet, len) {
            Ok(text.to_owned())
        } else {
            Err(INVALID_TEXT)
        }
    }
}

/// A spec for text applied to bytes: every accepted form is ASCII, so
/// bytes that are not UTF-8 are refused as text would be.
fn on_bytes(spec: impl Fn(&str) -> Verdict, refusal: &'static str) -> impl Fn(&[u8]) -> Verdict {
    move |bytes| std::str::from_utf8(bytes).map_or(Err(refusal), &spec)
}

fn kuid64_spec(text: &str) -> Verdict {
    let bits = is_over(text, KUID64, 11)
        .then(|| bits_of(text.as_bytes(), KUID64))
        .flatten()
        .ok_or(INVALID_TEXT)?;
    // 66 bits: the value, then two padding bits that must be zero.
    if bits[64] || bits[65] {
        return Err(INVALID_TEXT);
    }
    if bits[0] {
        return Err(OUT_OF_RANGE);
    }
    Ok(text.to_owned())
}

/// SIQ text: the optional `did:siq:` prefix (any case) dropped and the rest
/// lowered must be the canonical text of the 14 bytes it carries (the 29
/// characters follow the reference's dropped `aaa`: 2 zero bytes, CRC, value).
fn siq_text_spec(text: &str) -> Verdict {
    let body = match text.get(..8) {
        Some(prefix) if prefix.eq_ignore_ascii_case("did:siq:") => &text[8..],
        _ => text,
    };
    let lower = body.to_ascii_lowercase();
    let bits = is_over(&lower, BASE32, 29)
        .then(|| bits_of(format!("aaa{lower}").as_bytes(), BASE32))
        .flatten()
        .ok_or(INVALID_TEXT)?;
    let framed = bytes_of(&bits);
    let carried: [u8; 14] = framed[6..].try_into().expect("20 framed bytes");
    let canonical = Siq::from_bytes(carried).to_string();
    if canonical == lower {
        Ok(canonical)
    } else {
        Err(INVALID_TEXT)
    }
}

fn siq_hex_spec(text: &str) -> Verdict {
    if (1..=28).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(format!("{:0>28}", text.to_ascii_lowercase()))
    } else {
        Err(INVALID_TEXT)
    }
}

fn siq_base64_spec(text: &str) -> Verdict {
    let bits = is_over(text, BASE64URL, 20)
        .then(|| bits_of(text.as_bytes(), BASE64URL))
        .flatten()
        .ok_or(INVALID_TEXT)?;
    // 120 bits: a zero byte, then the 14.
    if bits[..8].contains(&true) {
        return Err(OUT_OF_RANGE);
    }
    Ok(text.to_owned())
}

const KIND_NAMES: [&str; 15] = [
    "user",
    "application",
    "event",
    "premium",
    "group",
    "collection",
    "invite",
    "tag",
    "channel",
    "thread",
    "message",
    "ternary",
    "manytomany",
    "multi",
    "content",
];

fn kind_spec(text: &str) -> Verdict {
    let lower = text.to_ascii_lowercase();
    if KIND_NAMES.contains(&lower.as_str()) {
        Ok(lower)
    } else {
        Err(INVALID_PARAMETER)
    }
}

fn domain_hash_spec(text: &str) -> Verdict {
    match text {
        _ if !text.is_ascii() => Err(INVALID_PARAMETER),
        "" | "0" => Ok("0".to_owned()),
        _ => {
            let digest = Sha256::digest(text.as_bytes());
            let last: [u8; 4] = digest[28..].try_into().expect("32-byte digest");
            Ok(u32::from_be_bytes(last).to_string())
        }
    }
}

fn distributed_id_text_spec(text: &str) -> Verdict {
    let digits = text.trim_matches(C_SPACE);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(INVALID_TEXT);
    }
    match digits.trim_start_matches('0') {
        "" => Ok("0".to_owned()),
        significant if significant.len() > 28 => Err(OUT_OF_RANGE),
        significant => Ok(significant.to_owned()),
    }
}

fn distributed_id_hex_spec(text: &str) -> Verdict {
    let upper = text.to_ascii_uppercase();
    let value = (upper.len() == 26)
        .then(|| digits_value(upper.as_bytes(), b"0123456789ABCDEF"))
        .flatten()
        .ok_or(INVALID_TEXT)?;
    if value > DISTRIBUTED_ID_MAX {
        return Err(OUT_OF_RANGE);
    }
    Ok(upper)
}

/// Numeric text as the module doc describes it, for integers up to `max`.
fn numeric_spec(max: u128) -> impl Fn(&str) -> Verdict {
    move |text| {
        let trimmed = text.trim_matches(C_SPACE);
        let special = [
            "nan",
            "infinity",
            "+infinity",
            "-infinity",
            "inf",
            "+inf",
            "-inf",
        ];
        if special.contains(&trimmed.to_ascii_lowercase().as_str()) {
            return Err(OUT_OF_RANGE);
        }
        let (negative, unsigned) = match trimmed.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
        };
        let (integer, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if integer.len() + fraction.len() == 0 || !digits(integer) || !digits(fraction) {
            return Err(INVALID_TEXT);
        }
        let significant = integer.trim_start_matches('0');
        let fractional = fraction.bytes().any(|b| b != b'0');
        if significant.is_empty() && !fractional {
            return Ok("0".to_owned());
        }
        let limit = max.to_string();
        let too_large = (significant.len(), significant) > (limit.len(), limit.as_str());
        if negative || fractional || too_large {
            return Err(OUT_OF_RANGE);
        }
        Ok(significant.to_owned())
    }
}

fn uuid_bytes(text: &str) -> Option<[u8; 16]> {
    let b = text.as_bytes();
    let hyphens = [8, 13, 18, 23];
    let shaped = b.len() == 36
        && b.iter().enumerate().all(|(i, c)| {
            if hyphens.contains(&i) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'-').collect();
    let value = shaped
        .then(|| digits_value(&digits.to_ascii_lowercase(), HEX))
        .flatten()?;
    Some(value.to_be_bytes())
}

fn uuid_spec(text: &str) -> Verdict {
    uuid_bytes(text)
        .map(|_| text.to_ascii_lowercase())
        .ok_or(INVALID_TEXT)
}

fn alphanumeric_spec(blocks: &'static [usize]) -> impl Fn(&str) -> Verdict {
    move |text| {
        if !is_over(text, BASE62, blocks.iter().sum()) {
            return Err(INVALID_TEXT);
        }
        let mut rest = text.as_bytes();
        for &len in blocks {
            let (block, tail) = rest.split_at(len);
            let value = digits_value(block, BASE62).expect("base62 digits");
            if len == 11 && value > u64::MAX as u128 {
                return Err(INVALID_TEXT);
            }
            rest = tail;
        }
        Ok(text.to_owned())
    }
}

fn alphanumeric_i64_spec(text: &str) -> Verdict {
    let canonical = alphanumeric_spec(&[11])(text)?;
    match digits_value(text.as_bytes(), BASE62) {
        Some(value) if value > i64::MAX as u128 => Err(OUT_OF_RANGE),
        _ => Ok(canonical),
    }
}

fn alphanumeric_distributed_id_spec(text: &str) -> Verdict {
    let canonical = alphanumeric_spec(&[5, 11])(text)?;
    let high = digits_value(&text.as_bytes()[..5], BASE62).expect("base62 digits");
    let low = digits_value(&text.as_bytes()[5..], BASE62).expect("base62 digits");
    if high << 64 | low > DISTRIBUTED_ID_MAX {
        return Err(OUT_OF_RANGE);
    }
    Ok(canonical)
}

/// The bytes of a base64 text if it is the canonical base64 of the whole
/// bytes its digits carry.
fn canonical_base64(text: &str) -> Option<Vec<u8>> {
    let bits = bits_of(text.trim_end_matches('=').as_bytes(), STD64)?;
    let bytes = bytes_of(&bits);
    (base64(&bytes) == text).then_some(bytes)
}

/// .NET `Guid` byte order (its own inverse).
fn guid(b: [u8; 16]) -> [u8; 16] {
    [
        b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13],
        b[14], b[15],
    ]
}

fn aes_block<C: BlockEncrypt + BlockDecrypt + BlockSizeUser<BlockSize = U16>>(
    cipher: &C,
    block: [u8; 16],
    decrypt: bool,
) -> [u8; 16] {
    let mut block = GenericArray::from(block);
    if decrypt {
        cipher.decrypt_block(&mut block);
    } else {
        cipher.encrypt_block(&mut block);
    }
    block.into()
}

fn encrypt_with<C: KeyInit + BlockEncrypt + BlockDecrypt + BlockSizeUser<BlockSize = U16>>(
    key: &[u8],
    block: [u8; 16],
) -> [u8; 16] {
    aes_block(
        &C::new_from_slice(key).expect("key length checked"),
        block,
        false,
    )
}

/// The README key, expanded once.
fn spec_cipher() -> &'static aes::Aes256 {
    static CIPHER: OnceLock<aes::Aes256> = OnceLock::new();
    CIPHER.get_or_init(|| aes::Aes256::new(&GenericArray::from(README_KEY)))
}

/// The fingerprint `key_fingerprint` must show for key bytes, if a key.
fn key_spec(key: &[u8]) -> Verdict {
    let public = |block| match key.len() {
        16 => Some(encrypt_with::<aes::Aes128>(key, block)),
        24 => Some(encrypt_with::<aes::Aes192>(key, block)),
        32 => Some(encrypt_with::<aes::Aes256>(key, block)),
        _ => None,
    };
    let probe = public(PROBE).ok_or(INVALID_PARAMETER)?;
    Ok(format!("AES-{} {}", key.len() * 8, hex(&guid(probe))))
}

/// The plaintext of a public ID in uuid text, or the uuid text's refusal.
fn plaintext(text: &str) -> Result<[u8; 16], &'static str> {
    let public_id = uuid_bytes(text).ok_or(INVALID_TEXT)?;
    Ok(aes_block(spec_cipher(), guid(public_id), true))
}

fn decrypt_i64_spec(text: &str) -> Verdict {
    let p = plaintext(text)?;
    let value = u64::from_le_bytes(p[8..].try_into().expect("8 bytes"));
    if p[..8] != [0; 8] || value > i64::MAX as u64 {
        return Err(NULL);
    }
    Ok(text.to_ascii_lowercase())
}

fn decrypt_distributed_id_spec(text: &str) -> Verdict {
    let p = plaintext(text)?;
    let word = |at: usize| u32::from_le_bytes(p[at..at + 4].try_into().expect("4 bytes")) as u128;
    // Flags, hi, lo, mid.
    let value = word(4) << 64 | word(12) << 32 | word(8);
    if p[..4] != [0; 4] || value > DISTRIBUTED_ID_MAX {
        return Err(NULL);
    }
    Ok(text.to_ascii_lowercase())
}

fn decrypt_uuid_spec(text: &str) -> Verdict {
    plaintext(text).map(|_| text.to_ascii_lowercase())
}

/// The ELF hash (`erlang:phash2` of an atom) of the Latin-1 bytes of the
/// name; characters beyond Latin-1 count as their UTF-8 bytes.
fn node_fingerprint_spec(text: &str) -> Verdict {
    let mut h: u32 = 0;
    for c in text.chars() {
        let bytes = match u8::try_from(c) {
            Ok(latin1) => vec![latin1],
            Err(_) => c.to_string().into_bytes(),
        };
        for byte in bytes {
            h = (h << 4).wrapping_add(byte as u32);
            let high = h & 0xF000_0000;
            if high != 0 {
                h ^= high >> 24;
            }
            h &= !high;
        }
    }
    Ok(h.to_string())
}

/// The date of a day number since 1970-01-01 (H. Hinnant's algorithm, in
/// i128 so that any instant of an i128 result has one).
fn civil_from_days(days: i128) -> (i128, i128, i128) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i128::from(month <= 2), month, day)
}

/// The canonical RFC 3339 text of an instant: nine fraction digits.
fn rfc3339(nanos: i128) -> String {
    let secs = nanos.div_euclid(1_000_000_000);
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:09}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60,
        nanos.rem_euclid(1_000_000_000)
    )
}

fn rfc3339_spec(text: &str) -> Verdict {
    rfc3339_canonical(text).ok_or(NONE)
}

fn rfc3339_canonical(text: &str) -> Option<String> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let field = |s: &str| (s.len() == 2 && digits(s)).then(|| s.parse().ok())?;
    let [year, month, day] = date.split('-').collect::<Vec<_>>()[..] else {
        return None;
    };
    let [hour, minute, second] = hms.split(':').collect::<Vec<_>>()[..] else {
        return None;
    };
    let year_ok = digits(year) && year.len() >= 4 && (year.len() == 4 || !year.starts_with('0'));
    let fraction_ok = fraction.len() <= 9
        && (fraction.is_empty() || digits(fraction))
        && !(time.contains('.') && fraction.is_empty());
    if !year_ok || !fraction_ok {
        return None;
    }
    // Years are i64, as `time::days_from_civil` takes them; every instant of
    // such a year fits the i128 result.
    let year = i128::from(year.parse::<i64>().ok()?);
    let (month, day): (i128, i128) = (field(month)?, field(day)?);
    let (hour, minute, second): (i128, i128, i128) = (field(hour)?, field(minute)?, field(second)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let in_range = (1..=12).contains(&month)
        && (1..=month_days[month as usize - 1]).contains(&day)
        && hour < 24
        && minute < 60
        && second < 60;
    if !in_range {
        return None;
    }
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{fraction:0<9}Z"
    ))
}

fn exactly(len: usize) -> impl Fn(&[u8]) -> Verdict {
    move |bytes| {
        if bytes.len() == len {
            Ok(hex(bytes))
        } else {
            Err(INVALID_BINARY)
        }
    }
}

fn siq_bytes_spec(bytes: &[u8]) -> Verdict {
    match bytes {
        [0, 0, rest @ ..] if rest.len() == 14 => Ok(hex(rest)),
        _ => exactly(14)(bytes),
    }
}

fn distributed_id_bytes_spec(bytes: &[u8]) -> Verdict {
    let canonical = exactly(12)(bytes)?;
    if bytes.iter().fold(0u128, |n, &b| n << 8 | b as u128) > DISTRIBUTED_ID_MAX {
        return Err(OUT_OF_RANGE);
    }
    Ok(canonical)
}

// --- inputs -------------------------------------------------------------------------

/// A text form: characters its texts are made of (repeats weight the draw),
/// its canonical length, and a maker of accepted texts (canonical or a
/// lenient variant) from 32 random bytes.
struct Form {
    alphabet: &'static str,
    len: usize,
    seed: fn(&[u8; 32]) -> String,
}

const CONTROLS: [char; 41] = [
    '\0', '\x01', '\x02', '\x03', '\x04', '\x05', '\x06', '\x07', '\x08', '\t', '\n', '\x0b',
    '\x0c', '\r', '\x0e', '\x0f', '\x10', '\x11', '\x12', '\x13', '\x14', '\x15', '\x16', '\x17',
    '\x18', '\x19', '\x1a', '\x1b', '\x1c', '\x1d', '\x1e', '\x1f', '\x7f', '\u{80}', '\u{85}',
    '\u{9f}', '\u{a0}', '\u{200b}', '\u{2028}', '\u{feff}', '\u{fffd}',
];

/// Random choices for the generators: SplitMix64, seeded for each case from
/// the runner's RNG. Proptest's own combinators cost tens of microseconds
/// per case in the debug profile; this keeps 100 000 cases per decoder cheap.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ z >> 30).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ z >> 27).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ z >> 31
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }

    /// An index into `weights`, drawn in proportion to them.
    fn weighted(&mut self, weights: &[usize]) -> usize {
        let mut roll = self.below(weights.iter().sum());
        weights
            .iter()
            .position(|&w| {
                let hit = roll < w;
                roll = roll.saturating_sub(w);
                hit
            })
            .expect("roll below the total")
    }

    fn bytes(&mut self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for chunk in out.chunks_exact_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes());
        }
        out
    }

    /// Any char, biased towards ASCII, Latin-1, controls and the edges of
    /// the planes.
    fn char(&mut self) -> char {
        let code = match self.below(8) {
            0..=2 => self.below(0x80) as u32,
            3 => 0x80 + self.below(0x80) as u32,
            4 => return self.pick(&CONTROLS),
            5 => self.below(0x1_0000) as u32,
            6 => self.below(0x11_0000) as u32,
            _ => self.pick(&[0xD7FF, 0xE000, 0xFFFF, 0x1_0000, 0x10_FFFF, 0x130, 0x212A]),
        };
        char::from_u32(code).unwrap_or('\u{fffd}')
    }

    fn byte(&mut self) -> u8 {
        self.next() as u8
    }

    fn len(&mut self, range: std::ops::RangeInclusive<usize>) -> usize {
        range.start() + self.below(range.end() - range.start() + 1)
    }
}

/// Draws one input as a sequence of elements.
type Maker<E> = Box<dyn Fn(&mut Dice) -> Vec<E>>;

/// A strategy drawing a sequence of `E` from `make`, collected into `O`.
struct Inputs<E, O> {
    make: Maker<E>,
    out: PhantomData<fn() -> O>,
}

impl<E, O> Inputs<E, O> {
    fn new(make: impl Fn(&mut Dice) -> Vec<E> + 'static) -> Self {
        Inputs {
            make: Box::new(make),
            out: PhantomData,
        }
    }
}

impl<E, O> Debug for Inputs<E, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Inputs")
    }
}

impl<E: Clone + Debug, O: FromIterator<E> + Debug> Strategy for Inputs<E, O> {
    type Tree = Shrink<E, O>;
    type Value = O;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let mut dice = Dice(runner.rng().next_u64());
        Ok(Shrink {
            items: (self.make)(&mut dice),
            next: 0,
            removed: None,
            out: PhantomData,
        })
    }
}

/// Shrinks a failing input by deleting one element at a time, keeping each
/// deletion after which the input still fails.
struct Shrink<E, O> {
    items: Vec<E>,
    next: usize,
    removed: Option<(usize, E)>,
    out: PhantomData<fn() -> O>,
}

impl<E: Clone + Debug, O: FromIterator<E> + Debug> ValueTree for Shrink<E, O> {
    type Value = O;

    fn current(&self) -> O {
        self.items.iter().cloned().collect()
    }

    fn simplify(&mut self) -> bool {
        if self.next >= self.items.len() {
            return false;
        }
        self.removed = Some((self.next, self.items.remove(self.next)));
        true
    }

    fn complicate(&mut self) -> bool {
        let Some((at, item)) = self.removed.take() else {
            return false;
        };
        self.items.insert(at, item);
        self.next = at + 1;
        true
    }
}

/// Arbitrary Unicode, printable ASCII, control characters among the
/// alphabet, the alphabet at near-miss lengths, accepted texts and their
/// mutations.
fn texts(form: &'static Form) -> Inputs<char, String> {
    let alphabet: Vec<char> = form.alphabet.chars().collect();
    let near = form.len.saturating_sub(2)..=form.len + 2;
    let any_len = 0..=form.len + 8;
    Inputs::new(move |d| match d.weighted(&[2, 2, 1, 4, 4, 2]) {
        0 => (0..d.len(any_len.clone())).map(|_| d.char()).collect(),
        1 => (0..d.len(any_len.clone()))
            .map(|_| char::from(0x20 + d.below(0x5f) as u8))
            .collect(),
        2 => (0..d.len(near.clone()))
            .map(|_| match d.below(2) {
                0 => d.pick(&CONTROLS),
                _ => d.pick(&alphabet),
            })
            .collect(),
        3 => (0..d.len(near.clone()))
            .map(|_| d.pick(&alphabet))
            .collect(),
        4 => mutate((form.seed)(&d.bytes()).chars().collect(), &alphabet, d),
        _ => (form.seed)(&d.bytes()).chars().collect(),
    })
}

fn flip_case(c: char) -> char {
    if c.is_ascii_lowercase() {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    }
}

/// One character replaced, inserted or deleted, one or every case flipped,
/// or two neighbours swapped; new characters mostly from the alphabet.
fn mutate(mut chars: Vec<char>, alphabet: &[char], d: &mut Dice) -> Vec<char> {
    let c = match d.below(5) {
        0..=2 => d.pick(alphabet),
        3 => d.char(),
        _ => d.pick(&CONTROLS),
    };
    let n = chars.len();
    match d.below(6) {
        1 => chars.insert(d.below(n + 1), c),
        _ if n == 0 => chars.push(c),
        0 => chars[d.below(n)] = c,
        2 => {
            chars.remove(d.below(n));
        }
        3 => {
            let at = d.below(n);
            chars[at] = flip_case(chars[at]);
        }
        4 => chars.iter_mut().for_each(|c| *c = flip_case(*c)),
        _ if n > 1 => chars.swap(d.below(n - 1), d.below(n - 1) + 1),
        _ => chars.push(c),
    }
    chars
}

/// For byte-level text decoders: the texts' bytes, arbitrary bytes, and
/// accepted texts with one byte made non-ASCII (usually invalid UTF-8).
fn text_bytes(form: &'static Form) -> Inputs<u8, Vec<u8>> {
    let texts = texts(form);
    Inputs::new(move |d| match d.weighted(&[3, 1, 1]) {
        0 => String::from_iter((texts.make)(d)).into_bytes(),
        1 => (0..d.len(0..=40)).map(|_| d.byte()).collect(),
        _ => {
            let mut bytes = (form.seed)(&d.bytes()).into_bytes();
            if !bytes.is_empty() {
                let at = d.below(bytes.len());
                bytes[at] = 0x80 | d.byte();
            }
            bytes
        }
    })
}

/// Byte arrays of 0–40 bytes, of exactly `len` and of `len` ± 2, or from
/// `special` (weighted like one of those).
fn binary(len: usize, special: fn(&mut Dice) -> Vec<u8>) -> Inputs<u8, Vec<u8>> {
    Inputs::new(move |d| {
        let n = match d.below(4) {
            0 => d.len(0..=40),
            1 => len,
            2 => d.len(len - 2..=len + 2),
            _ => return special(d),
        };
        (0..n).map(|_| d.byte()).collect()
    })
}

fn random_bytes(len: usize, d: &mut Dice) -> Vec<u8> {
    (0..len).map(|_| d.byte()).collect()
}

fn no_special(d: &mut Dice) -> Vec<u8> {
    random_bytes(d.len(0..=40), d)
}

/// 14 random bytes behind two bytes of which both, one or none are zero.
fn siq_prefixed(d: &mut Dice) -> Vec<u8> {
    let other = 1 + d.below(255) as u8;
    let head = d.pick(&[[0, 0], [0, 0], [0, other], [other, 0], [other, other]]);
    [head.as_slice(), &random_bytes(14, d)].concat()
}

/// Twelve bytes at and around the largest distributed_id, or below it.
fn distributed_id_edge(d: &mut Dice) -> Vec<u8> {
    let value = match d.below(2) {
        0 => DISTRIBUTED_ID_MAX - 3 + d.below(8) as u128,
        _ => magnitude(&d.bytes()) % (DISTRIBUTED_ID_MAX + 1),
    };
    value.to_be_bytes()[4..].to_vec()
}

/// Key lengths that AES takes.
fn key_sized(d: &mut Dice) -> Vec<u8> {
    let len = d.pick(&[16, 24, 32]);
    random_bytes(len, d)
}

fn take<const N: usize>(r: &[u8; 32]) -> [u8; N] {
    r[..N].try_into().expect("at most 32 bytes")
}

/// `text` unchanged, in upper case or in mixed case, as `mode` says.
fn recase(text: &str, mode: u8, bits: &[u8]) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| match mode % 4 {
            1 => c.to_ascii_uppercase(),
            2 if bits[i % bits.len()] >> (i % 8) & 1 == 1 => flip_case(c),
            _ => c,
        })
        .collect()
}

/// A u128 of random magnitude (so every digit count occurs).
fn magnitude(r: &[u8; 32]) -> u128 {
    u128::from_be_bytes(take(r))
        .checked_shr(u32::from(r[16]) % 129)
        .unwrap_or(0)
}

fn sno_seed(r: &[u8; 32]) -> String {
    Sno::from_bytes(take(r)).to_string()
}

fn flaxid_seed(r: &[u8; 32]) -> String {
    FlaxId::from_bytes(take(r)).to_string()
}

fn kuid96_seed(r: &[u8; 32]) -> String {
    Kuid96::from_bytes(take(r)).to_string()
}

fn kuid64_seed(r: &[u8; 32]) -> String {
    kuid::kuid64_encode(i64::from_be_bytes(take(r)) & i64::MAX).expect("non-negative")
}

fn siq_seed(r: &[u8; 32]) -> String {
    let prefix = ["", "did:siq:", "DID:SIQ:", "Did:sIq:"][r[30] as usize % 4];
    let text = Siq::from_bytes(take(r)).to_string();
    recase(&format!("{prefix}{text}"), r[31], &r[14..30])
}

fn siq_hex_seed(r: &[u8; 32]) -> String {
    let full = Siq::from_bytes(take(r)).to_hex();
    let keep = 1 + r[30] as usize % 28;
    recase(&full[28 - keep..], r[31], &r[14..30])
}

fn siq_base64_seed(r: &[u8; 32]) -> String {
    Siq::from_bytes(take(r)).to_base64()
}

fn kind_seed(r: &[u8; 32]) -> String {
    recase(Kind::ALL[r[0] as usize % 15].name(), r[31], &r[1..])
}

fn domain_seed(r: &[u8; 32]) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789.-";
    match r[0] % 8 {
        0 => String::new(),
        1 => "0".to_owned(),
        _ => r[2..2 + r[1] as usize % 30]
            .iter()
            .map(|&b| CHARS[b as usize % CHARS.len()] as char)
            .collect(),
    }
}

fn white_space(r: u8) -> String {
    (0..r % 3)
        .map(|i| C_SPACE[(r as usize >> (2 * i)) % 6])
        .collect()
}

fn distributed_id_seed(r: &[u8; 32]) -> String {
    let value = magnitude(r) % (DISTRIBUTED_ID_MAX + 1);
    let zeros = "0".repeat(r[17] as usize % 4);
    let text = format!("{zeros}{value}");
    match r[31] % 4 {
        0 => value.to_string(),
        1 => text,
        _ => format!("{}{text}{}", white_space(r[18]), white_space(r[19])),
    }
}

fn distributed_id_hex_seed(r: &[u8; 32]) -> String {
    let id = DistributedId::from_u128(magnitude(r) % (DISTRIBUTED_ID_MAX + 1)).expect("in range");
    recase(&id.to_hex().to_ascii_lowercase(), r[31], &r[17..30])
}

fn numeric_seed(r: &[u8; 32]) -> String {
    let value = magnitude(r);
    let specials = [
        "NaN",
        "Infinity",
        "+Infinity",
        "-Infinity",
        "inf",
        "+inf",
        "-inf",
    ];
    let zeros = "0".repeat(r[18] as usize % 4);
    let body = match r[17] % 8 {
        0 => recase(specials[r[19] as usize % 7], r[20], &r[21..]),
        1 => format!("{value}.{zeros}"),
        2 => format!("{value}.{zeros}{}", 1 + r[19] % 9),
        3 => format!("-{value}"),
        4 => format!("+{zeros}{value}"),
        5 => format!("{zeros}{value}"),
        _ => value.to_string(),
    };
    format!("{}{body}{}", white_space(r[30]), white_space(r[31]))
}

fn alphanumeric_u64_seed(r: &[u8; 32]) -> String {
    alphanumeric::encode_u64(u64::from_be_bytes(take(r)) >> (r[8] % 64))
}

fn alphanumeric_uuid_seed(r: &[u8; 32]) -> String {
    alphanumeric::encode_u128_blocks(take(r))
}

fn alphanumeric_distributed_id_seed(r: &[u8; 32]) -> String {
    // Up to 2^96 − 1, beyond the type's range as well.
    let value = u128::from_be_bytes(take(r)) >> (32 + r[16] % 8);
    let id = DistributedId::from_bytes(value.to_be_bytes()[4..].try_into().expect("12 bytes"));
    alphanumeric::encode_distributed_id(&id)
}

fn uuid_seed(r: &[u8; 32]) -> String {
    recase(&uuid_text(take(r)), r[31], &r[16..31])
}

fn public_i64_seed(r: &[u8; 32]) -> String {
    let value = i64::from_be_bytes(take(r)) & i64::MAX;
    let public_id = public_key().encrypt_i64(value).expect("non-negative");
    recase(&uuid_text(public_id), r[31], &r[16..31])
}

fn public_distributed_id_seed(r: &[u8; 32]) -> String {
    let id = DistributedId::from_u128(magnitude(r) % (DISTRIBUTED_ID_MAX + 1)).expect("in range");
    recase(
        &uuid_text(public_key().encrypt_distributed_id(&id)),
        r[31],
        &r[17..31],
    )
}

fn public_uuid_seed(r: &[u8; 32]) -> String {
    recase(
        &uuid_text(public_key().encrypt_uuid(take(r))),
        r[31],
        &r[16..31],
    )
}

fn base64_seed(r: &[u8; 32]) -> String {
    base64(&r[..r[31] as usize % 32])
}

fn key_base64_seed(r: &[u8; 32]) -> String {
    let len = match r[30] % 4 {
        0 => r[29] as usize % 33,
        n => [16, 24, 32][n as usize - 1],
    };
    base64(&r[..len])
}

const NODE_CHARS: &str = "abcxyz019@._-Àéÿ\u{80}\u{ff}\u{100}€🦀";

fn node_seed(r: &[u8; 32]) -> String {
    let chars: Vec<char> = NODE_CHARS.chars().collect();
    r[1..1 + r[0] as usize % 24]
        .iter()
        .map(|&b| chars[b as usize % chars.len()])
        .collect()
}

fn time_seed(r: &[u8; 32]) -> String {
    let year = match r[0] % 4 {
        0 => u64::from(u16::from_be_bytes([r[1], r[2]])) % 10_000,
        1 => 1970 + u64::from(r[1]),
        // Years of up to 20 digits, which the format also allows.
        _ => (u64::from_be_bytes(take::<8>(r)) >> (r[9] % 50)).max(10_000),
    };
    let month = 1 + r[10] % 12;
    let day = 1 + r[11] % 28;
    let fraction: String = r[16..16 + r[15] as usize % 10]
        .iter()
        .map(|b| char::from(b'0' + b % 10))
        .collect();
    let fraction = if fraction.is_empty() {
        fraction
    } else {
        format!(".{fraction}")
    };
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{fraction}Z",
        r[12] % 24,
        r[13] % 60,
        r[14] % 60
    )
}

const SNO: Form = Form {
    alphabet: "23456789abcdefghijklmnopqrstuvwx",
    len: 16,
    seed: sno_seed,
};
const FLAXID: Form = Form {
    alphabet: "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
    len: 16,
    seed: flaxid_seed,
};
const KUID96: Form = Form {
    alphabet: ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
    len: 16,
    seed: kuid96_seed,
};
const KUID64_TEXT: Form = Form {
    alphabet: ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
    len: 11,
    seed: kuid64_seed,
};
const SIQ: Form = Form {
    alphabet: "abcdefghijklmnopqrstuvwxyz234567ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    len: 29,
    seed: siq_seed,
};
const SIQ_HEX: Form = Form {
    alphabet: "0123456789abcdefABCDEF",
    len: 28,
    seed: siq_hex_seed,
};
const SIQ_BASE64: Form = Form {
    alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    len: 20,
    seed: siq_base64_seed,
};
const KIND: Form = Form {
    alphabet: "abcdeghilmnoprstuvyACEGMTU",
    len: 7,
    seed: kind_seed,
};
const DOMAIN: Form = Form {
    alphabet: "abcdefghijklmnopqrstuvwxyz0123456789.-",
    len: 12,
    seed: domain_seed,
};
const DISTRIBUTED_ID_TEXT: Form = Form {
    alphabet: "01234567890123456789 \t",
    len: 28,
    seed: distributed_id_seed,
};
const DISTRIBUTED_ID_HEX: Form = Form {
    alphabet: "0123456789abcdefABCDEF",
    len: 26,
    seed: distributed_id_hex_seed,
};
/// Numeric text, for integers of up to `len` digits.
const NUMERIC_28: Form = Form {
    alphabet: "0123456789012345678901234567890123456789.+- ",
    len: 28,
    seed: numeric_seed,
};
const NUMERIC_34: Form = Form {
    len: 34,
    ..NUMERIC_28
};
const NUMERIC_39: Form = Form {
    len: 39,
    ..NUMERIC_28
};
const UUID: Form = Form {
    alphabet: "0123456789abcdefABCDEF----",
    len: 36,
    seed: uuid_seed,
};
const PUBLIC_I64: Form = Form {
    seed: public_i64_seed,
    ..UUID
};
const PUBLIC_DISTRIBUTED_ID: Form = Form {
    seed: public_distributed_id_seed,
    ..UUID
};
const PUBLIC_UUID: Form = Form {
    seed: public_uuid_seed,
    ..UUID
};
const ALPHANUMERIC_U64: Form = Form {
    alphabet: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    len: 11,
    seed: alphanumeric_u64_seed,
};
const ALPHANUMERIC_UUID: Form = Form {
    len: 22,
    seed: alphanumeric_uuid_seed,
    ..ALPHANUMERIC_U64
};
const ALPHANUMERIC_DISTRIBUTED_ID: Form = Form {
    len: 16,
    seed: alphanumeric_distributed_id_seed,
    ..ALPHANUMERIC_U64
};
const BASE64: Form = Form {
    alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/==",
    len: 44,
    seed: base64_seed,
};
const KEY_BASE64: Form = Form {
    seed: key_base64_seed,
    ..BASE64
};
const NODE: Form = Form {
    alphabet: NODE_CHARS,
    len: 12,
    seed: node_seed,
};
const TIME: Form = Form {
    alphabet: "0123456789-T:.Z",
    len: 30,
    seed: time_seed,
};

// --- one test per decoder ---------------------------------------------------------

/// The fixed key, base64 and AES used by the specs, against the README.
#[test]
fn readme_public_id_example() {
    assert_eq!(
        base64(&README_KEY),
        "k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc="
    );
    let id: DistributedId = "1088824355131185736905670087"
        .parse()
        .expect("a distributed_id");
    let public_id = public_key().encrypt_distributed_id(&id);
    assert_eq!(uuid_text(public_id), "30322474-a954-ffa9-941c-6f038afe4ff1");
    assert_eq!(
        decrypt_distributed_id_spec(&uuid_text(public_id)),
        Ok(uuid_text(public_id))
    );
}

/// `from_str` and `decode` (from text bytes) of a type whose text is 16
/// characters of one alphabet.
macro_rules! sixteen_character_decoders {
    ($($Type:ident: $from_str:ident, $decode:ident, $alphabet:expr, $vectors:expr;)*) => {$(
        #[test]
        fn $from_str() {
            check_text(
                concat!(stringify!($Type), "::from_str"),
                &[INVALID_TEXT],
                texts(&$vectors),
                parsed::<$Type>,
                every_text_of($alphabet, 16),
            );
        }

        #[test]
        fn $decode() {
            check_bytes(
                concat!(stringify!($Type), "::decode"),
                &[INVALID_TEXT],
                text_bytes(&$vectors),
                |b| decoded($Type::decode(b)),
                on_bytes(every_text_of($alphabet, 16), INVALID_TEXT),
            );
        }
    )*};
}

sixteen_character_decoders! {
    Sno: sno_from_str, sno_decode, SNO32, SNO;
    FlaxId: flaxid_from_str, flaxid_decode, FLAX64, FLAXID;
    Kuid96: kuid96_from_str, kuid96_decode, KUID64, KUID96;
}

#[test]
fn kuid64_decode() {
    check_text(
        "kuid::kuid64_decode",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&KUID64_TEXT),
        |s| {
            kuid::kuid64_decode(s)
                .map_err(refused)
                .and_then(|v| kuid::kuid64_encode(v).map_err(refused))
        },
        kuid64_spec,
    );
}

#[test]
fn siq_from_str() {
    check_text(
        "Siq::from_str",
        &[INVALID_TEXT],
        texts(&SIQ),
        parsed::<Siq>,
        siq_text_spec,
    );
}

#[test]
fn siq_decode() {
    let spec = on_bytes(siq_text_spec, INVALID_TEXT);
    check_bytes(
        "Siq::decode",
        &[INVALID_TEXT],
        text_bytes(&SIQ),
        |b| decoded(Siq::decode(b)),
        spec,
    );
}

#[test]
fn siq_from_hex() {
    check_text(
        "Siq::from_hex",
        &[INVALID_TEXT],
        texts(&SIQ_HEX),
        |s| Siq::from_hex(s).map(|v| v.to_hex()).map_err(refused),
        siq_hex_spec,
    );
}

#[test]
fn siq_from_base64() {
    check_text(
        "Siq::from_base64",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&SIQ_BASE64),
        |s| Siq::from_base64(s).map(|v| v.to_base64()).map_err(refused),
        siq_base64_spec,
    );
}

#[test]
fn siq_kind_from_str() {
    check_text(
        "siq::Kind::from_str",
        &[INVALID_PARAMETER],
        texts(&KIND),
        parsed::<Kind>,
        kind_spec,
    );
}

#[test]
fn siq_domain_hash() {
    check_text(
        "siq::domain_hash",
        &[INVALID_PARAMETER],
        texts(&DOMAIN),
        |s| shown(siq::domain_hash(s)),
        domain_hash_spec,
    );
}

#[test]
fn distributed_id_from_str() {
    check_text(
        "DistributedId::from_str",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&DISTRIBUTED_ID_TEXT),
        parsed::<DistributedId>,
        distributed_id_text_spec,
    );
}

#[test]
fn distributed_id_from_hex() {
    check_text(
        "DistributedId::from_hex",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&DISTRIBUTED_ID_HEX),
        |s| {
            DistributedId::from_hex(s)
                .map(|v| v.to_hex())
                .map_err(refused)
        },
        distributed_id_hex_spec,
    );
}

#[test]
fn distributed_id_from_numeric_text() {
    check_text(
        "DistributedId::from_numeric_text",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&NUMERIC_28),
        |s| shown(DistributedId::from_numeric_text(s)),
        numeric_spec(DISTRIBUTED_ID_MAX),
    );
}

#[test]
fn distributed_id128_from_numeric_text() {
    check_text(
        "DistributedId128::from_numeric_text",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&NUMERIC_39),
        |s| shown(DistributedId128::from_numeric_text(s).map(|v| v.to_u128())),
        numeric_spec(u128::MAX),
    );
}

#[test]
fn numeric_integer_siq() {
    check_text(
        "numeric::numeric_integer (max 2^112-1)",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&NUMERIC_34),
        |s| shown(numeric_integer(s, "siq", siq::MAX_VALUE, siq::VALUE_RANGE)),
        numeric_spec((1 << 112) - 1),
    );
}

#[test]
fn distributed_id128_from_str() {
    check_text(
        "DistributedId128::from_str",
        &[INVALID_TEXT],
        texts(&UUID),
        parsed::<DistributedId128>,
        uuid_spec,
    );
}

#[test]
fn distributed_id128_decode() {
    let spec = on_bytes(uuid_spec, INVALID_TEXT);
    check_bytes(
        "DistributedId128::decode",
        &[INVALID_TEXT],
        text_bytes(&UUID),
        |b| decoded(DistributedId128::decode(b)),
        spec,
    );
}

#[test]
fn alphanumeric_decode_u64() {
    check_text(
        "alphanumeric::decode_u64",
        &[INVALID_TEXT],
        texts(&ALPHANUMERIC_U64),
        |s| {
            alphanumeric::decode_u64(s)
                .map(alphanumeric::encode_u64)
                .map_err(refused)
        },
        alphanumeric_spec(&[11]),
    );
}

#[test]
fn alphanumeric_decode_i64() {
    check_text(
        "alphanumeric::decode_i64",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&ALPHANUMERIC_U64),
        |s| {
            alphanumeric::decode_i64(s)
                .and_then(alphanumeric::encode_i64)
                .map_err(refused)
        },
        alphanumeric_i64_spec,
    );
}

#[test]
fn alphanumeric_decode_u128_blocks() {
    check_text(
        "alphanumeric::decode_u128_blocks",
        &[INVALID_TEXT],
        texts(&ALPHANUMERIC_UUID),
        |s| {
            alphanumeric::decode_u128_blocks(s)
                .map(alphanumeric::encode_u128_blocks)
                .map_err(refused)
        },
        alphanumeric_spec(&[11, 11]),
    );
}

#[test]
fn alphanumeric_decode_distributed_id() {
    check_text(
        "alphanumeric::decode_distributed_id",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&ALPHANUMERIC_DISTRIBUTED_ID),
        |s| {
            alphanumeric::decode_distributed_id(s)
                .map(|id| alphanumeric::encode_distributed_id(&id))
                .map_err(refused)
        },
        alphanumeric_distributed_id_spec,
    );
}

#[test]
fn public_id_decode_base64() {
    check_text(
        "public_id::decode_base64",
        &[NONE],
        texts(&BASE64),
        |s| decode_base64(s).map(|b| base64(&b)).ok_or(NONE),
        |s| canonical_base64(s).map(|_| s.to_owned()).ok_or(NONE),
    );
}

#[test]
fn public_id_key_from_base64() {
    check_text(
        "PublicIdKey::from_base64",
        &[INVALID_PARAMETER],
        texts(&KEY_BASE64),
        |s| {
            PublicIdKey::from_base64(s)
                .map(key_fingerprint)
                .map_err(refused)
        },
        |s| canonical_base64(s).map_or(Err(INVALID_PARAMETER), |key| key_spec(&key)),
    );
}

#[test]
fn public_id_key_new() {
    check_bytes(
        "PublicIdKey::new",
        &[INVALID_PARAMETER],
        binary(20, key_sized),
        |b| PublicIdKey::new(b).map(key_fingerprint).map_err(refused),
        key_spec,
    );
}

#[test]
fn public_id_decrypt_i64() {
    check_text(
        "uuid text -> PublicIdKey::decrypt_i64",
        &[INVALID_TEXT, NULL],
        texts(&PUBLIC_I64),
        |s| {
            decrypted(s, PublicIdKey::decrypt_i64, |k, v| {
                k.encrypt_i64(v).expect("decrypted values are non-negative")
            })
        },
        decrypt_i64_spec,
    );
}

#[test]
fn public_id_decrypt_distributed_id() {
    check_text(
        "uuid text -> PublicIdKey::decrypt_distributed_id",
        &[INVALID_TEXT, NULL],
        texts(&PUBLIC_DISTRIBUTED_ID),
        |s| {
            decrypted(s, PublicIdKey::decrypt_distributed_id, |k, id| {
                k.encrypt_distributed_id(&id)
            })
        },
        decrypt_distributed_id_spec,
    );
}

#[test]
fn public_id_decrypt_uuid() {
    check_text(
        "uuid text -> PublicIdKey::decrypt_uuid",
        &[INVALID_TEXT],
        texts(&PUBLIC_UUID),
        |s| decrypted(s, |k, b| Some(k.decrypt_uuid(b)), PublicIdKey::encrypt_uuid),
        decrypt_uuid_spec,
    );
}

#[test]
fn kuid_node_fingerprint() {
    check_text(
        "kuid::node_fingerprint",
        &[],
        texts(&NODE),
        |s| Ok(kuid::node_fingerprint(s).to_string()),
        node_fingerprint_spec,
    );
}

// Found panicking on huge years and hours and accepting non-canonical dates
// ("4-0-3T9:5:3Z", "2020-02-30T00:00:00Z", "2020-01-01T24:00:00Z", …).
#[test]
fn time_parse_rfc3339_nanos() {
    check_text(
        "time::parse_rfc3339_nanos",
        &[NONE],
        texts(&TIME),
        |s| parse_rfc3339_nanos(s).map(rfc3339).ok_or(NONE),
        rfc3339_spec,
    );
}

/// `from_slice` of a type of `len` bytes, fed arrays around that length
/// with `edge` values mixed in.
macro_rules! from_slice_decoders {
    ($($(#[$doc:meta])* $Type:ident: $test:ident, $len:expr, $edge:expr;)*) => {$(
        $(#[$doc])*
        #[test]
        fn $test() {
            check_bytes(
                concat!(stringify!($Type), "::from_slice"),
                &[INVALID_BINARY],
                binary($len, $edge),
                sliced::<$Type>,
                exactly($len),
            );
        }
    )*};
}

from_slice_decoders! {
    Sno: sno_from_slice, 10, no_special;
    Siq: siq_from_slice, 14, siq_prefixed;
    FlaxId: flaxid_from_slice, 12, no_special;
    Kuid96: kuid96_from_slice, 12, no_special;
    /// `from_slice` takes any 12 bytes, beyond 10^28 − 1 too (documented at
    /// `from_bytes_checked`); receive is the checked path below.
    DistributedId: distributed_id_from_slice, 12, distributed_id_edge;
}

#[test]
fn siq_from_slice_lenient() {
    check_bytes(
        "Siq::from_slice_lenient",
        &[INVALID_BINARY],
        binary(14, siq_prefixed),
        |b| {
            Siq::from_slice_lenient(b)
                .map(|v| hex(v.bytes()))
                .map_err(refused)
        },
        siq_bytes_spec,
    );
}

#[test]
fn distributed_id_receive() {
    check_bytes(
        "DistributedId::from_slice + from_bytes_checked",
        &[INVALID_BINARY, OUT_OF_RANGE],
        binary(12, distributed_id_edge),
        received,
        distributed_id_bytes_spec,
    );
}

#[cfg(feature = "serde")]
mod serde_text {
    use super::*;

    #[test]
    fn sno() {
        check_text(
            "serde Sno",
            &[INVALID_TEXT],
            texts(&SNO),
            deserialized::<Sno>,
            every_text_of(SNO32, 16),
        );
    }

    #[test]
    fn siq() {
        check_text(
            "serde Siq",
            &[INVALID_TEXT],
            texts(&SIQ),
            deserialized::<Siq>,
            siq_text_spec,
        );
    }

    #[test]
    fn flaxid() {
        check_text(
            "serde FlaxId",
            &[INVALID_TEXT],
            texts(&FLAXID),
            deserialized::<FlaxId>,
            every_text_of(FLAX64, 16),
        );
    }

    #[test]
    fn kuid96() {
        check_text(
            "serde Kuid96",
            &[INVALID_TEXT],
            texts(&KUID96),
            deserialized::<Kuid96>,
            every_text_of(KUID64, 16),
        );
    }

    #[test]
    fn distributed_id() {
        check_text(
            "serde DistributedId",
            &[INVALID_TEXT, OUT_OF_RANGE],
            texts(&DISTRIBUTED_ID_TEXT),
            deserialized::<DistributedId>,
            distributed_id_text_spec,
        );
    }
}

#[cfg(feature = "postgres")]
mod postgres_binary {
    use super::*;

    #[test]
    fn sno() {
        check_bytes(
            "FromSql Sno",
            &[INVALID_BINARY],
            binary(10, no_special),
            from_sql::<Sno>,
            exactly(10),
        );
    }

    #[test]
    fn siq() {
        check_bytes(
            "FromSql Siq",
            &[INVALID_BINARY],
            binary(14, siq_prefixed),
            from_sql::<Siq>,
            exactly(14),
        );
    }

    #[test]
    fn flaxid() {
        check_bytes(
            "FromSql FlaxId",
            &[INVALID_BINARY],
            binary(12, no_special),
            from_sql::<FlaxId>,
            exactly(12),
        );
    }

    #[test]
    fn kuid96() {
        check_bytes(
            "FromSql Kuid96",
            &[INVALID_BINARY],
            binary(12, no_special),
            from_sql::<Kuid96>,
            exactly(12),
        );
    }

    // Found accepting 12 bytes above 10^28 − 1, which receive and
    // `bytea::distributed_id` refuse with 22003 (now `FlakeId::from_wire`).
    #[test]
    fn distributed_id() {
        check_bytes(
            "FromSql DistributedId",
            &[INVALID_BINARY, OUT_OF_RANGE],
            binary(12, distributed_id_edge),
            from_sql::<DistributedId>,
            distributed_id_bytes_spec,
        );
    }
}
