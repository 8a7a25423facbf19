//! SIQ (docs/sql-reference.md, "siq"): the text, hex, base64 and byte decoders, and
//! the kind names and domain hashes its generator takes.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `Siq::from_str` | 29 of `a-z2-7` carrying a valid CRC-32; lenient: an optional `did:siq:` prefix in any ASCII case is dropped and ASCII upper case lowered → the 29 lower-case characters | 22P02 |
//! | `Siq::decode(&[u8])` | same, as bytes | `None` (22P02) |
//! | `Siq::from_hex` | 1–28 hex digits, any case → 28 lower-case digits, zero-padded on the left | 22P02 |
//! | `Siq::from_base64` | exactly 20 of `A-Za-z0-9-_` (strict) | 22P02; first byte non-zero: 22003 |
//! | `siq::Kind::from_str` (`Kind::from_name`) | a kind name in any ASCII case → the lower-case name | 22023 |
//! | `siq::domain_hash` | any ASCII text → last 4 bytes of its SHA-256 (`""`, `"0"` → 0) | 22023 (non-ASCII) |
//! | `Siq::from_slice` (`FlakeId`) = `TryFrom<&[u8]>` | exactly 14 bytes | 22P03 |
//! | `Siq::from_slice_lenient` (`bytea::siq`) | 14 bytes, or 16 of which the first two are zero → the 14 | 22P03 |
//! | serde `Deserialize` (feature `serde`) | as `from_str` | the `from_str` error's message (22P02) |
//! | postgres `FromSql` (feature `postgres`) | as `from_slice` | 22P03 |

use crate::harness::{
    check_bytes, check_text, decoded, parsed, refused, shown, Verdict, INVALID_BINARY,
    INVALID_PARAMETER, INVALID_TEXT, OUT_OF_RANGE,
};
use crate::inputs::{binary, random_bytes, recase, take, text_bytes, texts, Dice, Form};
use crate::oracle::{bits_of, bytes_of, exactly, is_over, on_bytes};
use flake_core::siq::{self, Kind, Siq};
use flake_core::FlakeId;
use flake_test_support::to_hex;
use sha2::{Digest, Sha256};

// --- the spec ----------------------------------------------------------------

const BASE32: &[u8] = b"abcdefghijklmnopqrstuvwxyz234567";

const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

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

fn siq_bytes_spec(bytes: &[u8]) -> Verdict {
    match bytes {
        [0, 0, rest @ ..] if rest.len() == 14 => Ok(to_hex(rest)),
        _ => exactly(14)(bytes),
    }
}

// --- inputs ------------------------------------------------------------------

/// 14 random bytes behind two bytes of which both, one or none are zero.
fn siq_prefixed(d: &mut Dice) -> Vec<u8> {
    let other = 1 + d.below(255) as u8;
    let head = d.pick(&[[0, 0], [0, 0], [0, other], [other, 0], [other, other]]);
    [head.as_slice(), &random_bytes(14, d)].concat()
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

// --- tests -------------------------------------------------------------------

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

from_slice_decoders! {
    Siq: siq_from_slice, 14, siq_prefixed;
}

#[test]
fn siq_from_slice_lenient() {
    check_bytes(
        "Siq::from_slice_lenient",
        &[INVALID_BINARY],
        binary(14, siq_prefixed),
        |b| {
            Siq::from_slice_lenient(b)
                .map(|v| to_hex(v.bytes()))
                .map_err(refused)
        },
        siq_bytes_spec,
    );
}

#[cfg(feature = "serde")]
mod serde_text {
    use super::*;
    use crate::harness::deserialized;

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
}

#[cfg(feature = "postgres")]
mod postgres_binary {
    use super::*;
    use crate::harness::from_sql;

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
}
