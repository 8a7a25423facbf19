//! Integers from PostgreSQL `numeric` text, for the casts from `numeric` to
//! identifier types.

use crate::error::{Error, Result};

const EXPECTED_NUMERIC: &str = "a numeric value";

/// White space as C's `isspace` sees it, which is what PostgreSQL trims.
pub(crate) fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// A non-negative integer from numeric text (`-12.50`, `NaN`, `Infinity`,
/// …), checked against `max`. Behind every `numeric` cast to an
/// identifier type.
pub fn numeric_integer(
    text: &str,
    type_name: &'static str,
    max: u128,
    range: &'static str,
) -> Result<u128> {
    let out_of_range = || Error::ValueOutOfRange {
        type_name,
        input: text.to_owned(),
        range,
    };
    let trimmed = text.trim_matches(is_c_space);
    let special = [
        "NaN",
        "Infinity",
        "+Infinity",
        "-Infinity",
        "inf",
        "+inf",
        "-inf",
    ];
    if special.iter().any(|s| s.eq_ignore_ascii_case(trimmed)) {
        return Err(out_of_range());
    }
    let (negative, unsigned) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let (integer, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if integer.len() + fraction.len() == 0 || !all_digits(integer) || !all_digits(fraction) {
        return Err(Error::invalid_text("numeric", text, EXPECTED_NUMERIC));
    }
    let significant = integer.trim_start_matches('0');
    let is_zero = significant.is_empty() && fraction.bytes().all(|b| b == b'0');
    if is_zero {
        return Ok(0);
    }
    if negative || fraction.bytes().any(|b| b != b'0') || significant.len() > 39 {
        return Err(out_of_range());
    }
    match significant.parse::<u128>() {
        Ok(value) if value <= max => Ok(value),
        _ => Err(out_of_range()),
    }
}
