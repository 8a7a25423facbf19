//! The base62 forms of the `alphanumeric` module (docs/sql-reference.md,
//! "Alphanumeric encoding").
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `alphanumeric::decode_u64` | exactly 11 of `0-9A-Za-z`, value < 2^64 (strict) | 22P02 |
//! | `alphanumeric::decode_i64` | the same, value ≤ 2^63−1 | 22P02; 22003 |
//! | `alphanumeric::decode_u128_blocks` | exactly 22 of `0-9A-Za-z`, each 11-character half < 2^64 | 22P02 |
//! | `alphanumeric::decode_distributed_id` | exactly 16 of `0-9A-Za-z`, the last 11 < 2^64, value ≤ 10^28−1 | 22P02; 22003 |

use crate::distributed_id::DISTRIBUTED_ID_MAX;
use crate::harness::{check_text, refused, Verdict, INVALID_TEXT, OUT_OF_RANGE};
use crate::inputs::{take, texts, Form};
use crate::oracle::{digits_value, is_over};
use flake_core::alphanumeric;
use flake_core::distributed_id::DistributedId;

// --- the spec ----------------------------------------------------------------

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

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

// --- inputs ------------------------------------------------------------------

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

// --- tests -------------------------------------------------------------------

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
