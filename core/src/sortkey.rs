//! Abbreviated sort keys: order-preserving 64-bit summaries of identifiers
//! of up to 128 bits, for sorts that compare the summaries first and the full
//! values only on ties (PostgreSQL's abbreviated keys).

/// The order-preserving code of a distance `m`, below 73 · 2^56 < 2^63:
/// exact below 2^56; beyond that the bit length minus 56 (1–72) above the
/// 56 bits after the leading one. `m1 <= m2` implies `code(m1) <= code(m2)`.
pub fn distance_code(m: u128) -> u64 {
    const EXACT: u32 = 56;
    if m < 1 << EXACT {
        return m as u64;
    }
    let bit_length = 128 - m.leading_zeros(); // 57 ..= 128
    let mantissa = (m >> (bit_length - EXACT - 1)) as u64 & ((1 << EXACT) - 1);
    u64::from(bit_length - EXACT) << EXACT | mantissa
}

/// The abbreviated key of `value` in a sort whose first value was `base`:
/// 2^63 ± the distance code, a non-decreasing function of the value, so
/// comparing abbreviations as unsigned integers never contradicts the full
/// comparison (equal abbreviations fall back to it).
///
/// A fixed prefix (the first 8 bytes) loses the sequence of sno and kuid96,
/// whose IDs of one time unit then all tie; the distance from a value of the
/// same sort keeps them apart: values within 2^56 of the base are exact,
/// farther ones keep the 56 bits below their distance's leading one (which
/// for a span of seconds still reaches below the time fields).
pub fn abbreviation(value: u128, base: u128) -> u64 {
    const MIDDLE: u64 = 1 << 63;
    if value >= base {
        MIDDLE + distance_code(value - base)
    } else {
        MIDDLE - distance_code(base - value)
    }
}
