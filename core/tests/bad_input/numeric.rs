//! Numeric text, as PostgreSQL's numeric output writes it: what the numeric
//! casts (`numeric::numeric_integer`) take, here and in
//! [`crate::distributed_id`] and [`crate::distributed_id128`].
//!
//! After trimming C white space, `NaN`, `[+-]Infinity` and `[+-]inf` in any
//! ASCII case are 22003; otherwise an optional sign, digits, an optional `.`
//! and digits (at least one digit in all) or 22P02; zero (any sign, any zero
//! fraction) is 0; a negative value, a non-zero fraction or a value above
//! the maximum is 22003; the canonical form is the plain decimal integer.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `numeric::numeric_integer` (max 2^112−1, the `numeric::siq` cast) | numeric text of an integer ≤ 2^112−1 | 22P02; 22003 |

use crate::harness::{check_text, shown, Verdict, INVALID_TEXT, OUT_OF_RANGE};
use crate::inputs::{magnitude, recase, texts, white_space, Form};
use crate::oracle::C_SPACE;
use flake_core::numeric::numeric_integer;
use flake_core::siq;

// --- the spec ----------------------------------------------------------------

/// Numeric text as the module doc describes it, for integers up to `max`.
pub fn numeric_spec(max: u128) -> impl Fn(&str) -> Verdict {
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

// --- inputs ------------------------------------------------------------------

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

/// Numeric text, for integers of up to `len` digits.
pub const NUMERIC_28: Form = Form {
    alphabet: "0123456789012345678901234567890123456789.+- ",
    len: 28,
    seed: numeric_seed,
};

pub const NUMERIC_34: Form = Form {
    len: 34,
    ..NUMERIC_28
};

pub const NUMERIC_39: Form = Form {
    len: 39,
    ..NUMERIC_28
};

// --- tests -------------------------------------------------------------------

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
