//! DistributedId (docs/sql-reference.md, "distributed_id"): the decimal, hex,
//! numeric and byte decoders.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `DistributedId::from_str` | 1+ ASCII digits with at most 28 significant; lenient: C white space (`\t\n\v\f\r `) around it and leading zeros dropped → plain decimal | 22P02; more than 28 significant digits: 22003 |
//! | `DistributedId::from_hex` | exactly 26 hex digits, any case, value ≤ 10^28−1 → upper case | 22P02; larger: 22003 |
//! | `DistributedId::from_numeric_text` | numeric text ([`crate::numeric`]) of an integer ≤ 10^28−1 | 22P02; 22003 |
//! | `DistributedId::from_slice` (`FlakeId`) = `TryFrom<&[u8]>` | any 12 bytes (see receive) | 22P03 |
//! | `from_slice` + `DistributedId::from_bytes_checked` (receive, `bytea::distributed_id`) | 12 bytes of value ≤ 10^28−1 | 22P03; 22003 |
//! | serde `Deserialize` (feature `serde`) | as `from_str` | the `from_str` error's message (22P02; 22003) |
//! | postgres `FromSql` (feature `postgres`) | as receive | 22P03 (22003) |

use crate::harness::{
    check_bytes, check_text, parsed, refused, shown, Verdict, INVALID_BINARY, INVALID_TEXT,
    OUT_OF_RANGE,
};
use crate::inputs::{binary, magnitude, recase, texts, white_space, Dice, Form};
use crate::numeric::{numeric_spec, NUMERIC_28};
use crate::oracle::{digits_value, exactly, C_SPACE};
use flake_core::distributed_id::DistributedId;
use flake_core::FlakeId;
use flake_test_support::to_hex;

/// 10^28 − 1, the largest distributed_id.
pub const DISTRIBUTED_ID_MAX: u128 = 9_999_999_999_999_999_999_999_999_999;

/// `bytea::distributed_id` and the type's receive: the length, then the range.
fn received(bytes: &[u8]) -> Verdict {
    DistributedId::from_slice(bytes)
        .and_then(|id| DistributedId::from_bytes_checked(id.to_bytes()))
        .map(|id| to_hex(id.bytes()))
        .map_err(refused)
}

// --- the spec ----------------------------------------------------------------

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

fn distributed_id_bytes_spec(bytes: &[u8]) -> Verdict {
    let canonical = exactly(12)(bytes)?;
    if bytes.iter().fold(0u128, |n, &b| n << 8 | b as u128) > DISTRIBUTED_ID_MAX {
        return Err(OUT_OF_RANGE);
    }
    Ok(canonical)
}

// --- inputs ------------------------------------------------------------------

/// Twelve bytes at and around the largest distributed_id, or below it.
fn distributed_id_edge(d: &mut Dice) -> Vec<u8> {
    let value = match d.below(2) {
        0 => DISTRIBUTED_ID_MAX - 3 + d.below(8) as u128,
        _ => magnitude(&d.bytes()) % (DISTRIBUTED_ID_MAX + 1),
    };
    value.to_be_bytes()[4..].to_vec()
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

// --- tests -------------------------------------------------------------------

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

from_slice_decoders! {
    /// `from_slice` takes any 12 bytes, beyond 10^28 − 1 too (documented at
    /// `from_bytes_checked`); receive is the checked path below.
    DistributedId: distributed_id_from_slice, 12, distributed_id_edge;
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
    use crate::harness::deserialized;

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
    use crate::harness::from_sql;

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
