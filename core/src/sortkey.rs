//! Abbreviated sort keys: order-preserving 64-bit summaries of identifiers
//! of up to 128 bits, for sorts that compare the summaries first and the full
//! values only on ties (PostgreSQL's abbreviated keys).

use crate::FlakeId;
use std::cmp::Ordering;
use std::marker::PhantomData;

/// The bytes of an identifier of at most 16 bytes as one big-endian
/// integer, whose order is therefore the bytes' order.
///
/// Read the way PostgreSQL's copy of a value (`datumCopy`, a `memcpy`)
/// wrote it: glibc writes 9 to 15 bytes as two overlapping 8-byte stores,
/// the first 8 bytes and the last 8. A load that straddles both cannot be
/// forwarded from them and waits until they reach the cache, which in a
/// sort, where each value is read right after it is copied, cost sno most
/// of the difference to uuid (docs/BENCHMARKS.md "Generation profile",
/// sorting on 18). So the last 8 bytes are one load, and the bytes before
/// them are read on their own.
#[inline(always)]
pub fn key_of(bytes: &[u8]) -> u128 {
    debug_assert!(bytes.len() <= 16);
    let len = bytes.len();
    if len > 8 {
        let (head, tail) = bytes.split_at(len - 8);
        let tail = u64::from_be_bytes(tail.try_into().unwrap_or([0; 8]));
        let head = head.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
        u128::from(head) << 64 | u128::from(tail)
    } else {
        bytes.iter().fold(0u128, |acc, b| acc << 8 | u128::from(*b))
    }
}

/// The order-preserving code of a distance `m`, below 73 · 2^56 < 2^63:
/// exact below 2^56; beyond that the bit length minus 56 (1–72) above the
/// 56 bits after the leading one. `m1 <= m2` implies `code(m1) <= code(m2)`.
#[inline(always)]
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
#[inline(always)]
pub fn abbreviation(value: u128, base: u128) -> u64 {
    const MIDDLE: u64 = 1 << 63;
    // Branch-free in the side of the base: in a sort of shuffled values
    // `value >= base` is a coin toss, and a mispredicted branch per value
    // costs more than the rest of the abbreviation. `sign` is all ones
    // below the base, and `(x ^ sign) - sign` negates x there.
    let (difference, below) = value.overflowing_sub(base);
    // Within 2^56 on either side, as every key of a sort of IDs made close
    // together is (a predictable branch, unlike the side), the code is the
    // difference itself: what the arithmetic below gives, without it. The
    // top bit tells a difference below the base from one that wrapped.
    if difference.wrapping_add(1 << 56) < 1 << 57 && (difference >> 127 != 0) == below {
        return MIDDLE.wrapping_add(difference as u64);
    }
    let sign = u64::from(below).wrapping_neg();
    let wide_sign = u128::from(sign) << 64 | u128::from(sign);
    let distance = (difference ^ wide_sign).wrapping_sub(wide_sign);
    let code = distance_code(distance);
    MIDDLE.wrapping_add((code ^ sign).wrapping_sub(sign))
}

/// A field that one generating server writes the same into every ID it
/// makes (SIQ's shard and domain hash, sno's partition): `width` bits,
/// `shift` bits above the least significant end.
///
/// Such a field sits between the time and the sequence, so the 56 bits an
/// [`abbreviation`] keeps of a distance spanning seconds (SIQ) or minutes
/// (sno) end inside it, and every ID of one time unit ties. [`collapse`]
/// replaces it by how it compares with the sort's first value: the IDs of
/// that value's server then keep their sequence.
///
/// [`collapse`]: ServerField::collapse
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerField {
    pub shift: u32,
    pub width: u32,
}

impl ServerField {
    /// `value` with the field replaced by two bits saying how it compares
    /// with `base`'s field (0 below, 1 equal, 2 above), and the bits below
    /// the field kept only where equal. A non-decreasing function of
    /// `value` (values that differ above the field keep that order; with the
    /// same bits above, a smaller field gives a smaller or equal class, and
    /// within the equal class the bits below decide), and strictly
    /// increasing among the values whose field equals `base`'s.
    ///
    /// Needs `width >= 2` and `shift + width < 128`.
    #[inline(always)]
    pub fn collapse(self, value: u128, base: u128) -> u128 {
        let field = ((1 << self.width) - 1) << self.shift;
        let below = (1 << self.shift) - 1;
        let (class, rest) = match (value & field).cmp(&(base & field)) {
            Ordering::Less => (0, 0),
            Ordering::Equal => (1, value & below),
            Ordering::Greater => (2, 0),
        };
        ((value >> (self.shift + self.width)) << 2 | class) << self.shift | rest
    }
}

/// `value` as its format's sort key sees it: collapsed around `base` where
/// the format has a [`ServerField`], as it is otherwise.
#[inline(always)]
fn key(value: u128, base: u128, field: Option<ServerField>) -> u128 {
    match field {
        Some(field) => field.collapse(value, base),
        None => value,
    }
}

/// The abbreviated key of an ID `value` in a sort whose first value was
/// `base`, for a format with the given [`ServerField`].
#[inline(always)]
pub fn abbreviation_of(value: u128, base: u128, field: Option<ServerField>) -> u64 {
    abbreviation(key(value, base, field), key(base, base, field))
}

/// The abbreviations of one sort of `T` values (their big-endian bytes as
/// integers): [`abbreviation_of`] with `T`'s field as a constant and the
/// base's own key worked out once.
pub struct Abbreviator<T> {
    base: u128,
    base_key: u128,
    format: PhantomData<T>,
}

impl<T: FlakeId> Abbreviator<T> {
    #[inline(always)]
    pub fn new(base: u128) -> Self {
        Abbreviator {
            base,
            base_key: key(base, base, T::SERVER_FIELD),
            format: PhantomData,
        }
    }

    #[inline(always)]
    pub fn abbreviate(&self, value: u128) -> u64 {
        abbreviation(key(value, self.base, T::SERVER_FIELD), self.base_key)
    }
}
