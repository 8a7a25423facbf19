//! Abbreviated sort keys: order-preserving 64-bit summaries of identifiers
//! of up to 128 bits, for sorts that compare the summaries first and the full
//! values only on ties (PostgreSQL's abbreviated keys).

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
        u128::from(head_of(head)) << 64 | u128::from(tail)
    } else {
        bytes.iter().fold(0u128, |acc, b| acc << 8 | u128::from(*b))
    }
}

/// The at most 8 bytes before the last 8 as a big-endian integer, read in
/// loads of 4, 2 and 1 bytes (a byte at a time, SIQ's 6 took six loads),
/// each inside the first of the copy's two stores.
#[inline(always)]
fn head_of(head: &[u8]) -> u64 {
    debug_assert!(head.len() <= 8);
    let mut value = 0u64;
    let mut rest = head;
    while let Some((word, after)) = rest.split_first_chunk::<4>() {
        value = value << 32 | u64::from(u32::from_be_bytes(*word));
        rest = after;
    }
    if let Some((half, after)) = rest.split_first_chunk::<2>() {
        value = value << 16 | u64::from(u16::from_be_bytes(*half));
        rest = after;
    }
    if let Some(byte) = rest.first() {
        value = value << 8 | u64::from(*byte);
    }
    value
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

/// How a format's values are abbreviated in a sort (each format's
/// `FlakeId::ABBREVIATION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abbreviation {
    /// The value's first 64 bits, or its last 64 in a sort whose first
    /// value is below 2^64 ([`leading_shift`], [`leading_bits`]): for
    /// formats whose bits below the time are random
    /// (flaxid, distributed_id), where the IDs of one millisecond already
    /// differ in the bits kept, as uuid's do in its first 8 bytes. Cheaper
    /// than a distance, which for such IDs a millisecond apart is beyond
    /// 2^56 and takes the logarithmic code.
    LeadingBits,
    /// Relative to the sort's first value ([`abbreviation_of`]), with the
    /// server's field set aside: for formats whose IDs of one time unit
    /// differ only in a sequence below that field (sno, SIQ, kuid96).
    FromBase(ServerField),
}

/// The shift at which [`leading_bits`] keeps a value of `len` bytes in a
/// sort whose first value is `base`: its first 64 bits, or where the base
/// is below 2^64 (a `distributed_id` column of small numbers), the last 64,
/// so that such values do not tie. One of two constants per format, chosen
/// once per sort: a shift by a constant costs less than by a variable.
#[inline(always)]
pub fn leading_shift(base: u128, len: usize) -> u32 {
    if base >> 64 == 0 {
        0
    } else {
        first_64_shift(len)
    }
}

/// The shift that keeps the first 64 bits of a value of `len` bytes.
#[inline(always)]
const fn first_64_shift(len: usize) -> u32 {
    (8 * len as u32).saturating_sub(64)
}

/// `value`'s bits from `shift` up, or `u64::MAX` where they do not fit: a
/// non-decreasing function of `value`.
#[inline(always)]
pub fn leading_bits(value: u128, shift: u32) -> u64 {
    let kept = value >> shift;
    if kept >> 64 == 0 {
        kept as u64
    } else {
        u64::MAX
    }
}

impl ServerField {
    /// `value`'s bits above the field and below it, if its field equals
    /// `field` (the base's, [`ServerField::field_of`]). The bits above fit
    /// in 64 for every format's key (`core/tests/sortkey.rs`).
    #[inline(always)]
    fn parts_if_field(self, value: u128, field: u64) -> Option<(u64, u64)> {
        (self.field_of(value) == field).then(|| self.parts(value))
    }

    /// `value`'s bits above the field and below it.
    #[inline(always)]
    fn parts(self, value: u128) -> (u64, u64) {
        (
            (value >> (self.shift + self.width)) as u64,
            value as u64 & ((1 << self.shift) - 1),
        )
    }

    /// The field's bits of `value`.
    #[inline(always)]
    fn field_of(self, value: u128) -> u64 {
        (value >> self.shift) as u64 & ((1u64 << self.width) - 1)
    }
}

/// What an [`Abbreviator`] needs of a format: its length in bytes and how
/// its values are abbreviated. Every `FlakeId` has them (`flake_id.rs`), so that
/// this module, which `flake_id.rs` uses, need not know that trait.
pub trait Abbreviated {
    const LEN: usize;
    const ABBREVIATION: Abbreviation;
}

/// The abbreviations of one sort of `T` values (their big-endian bytes as
/// integers), in `T`'s [`Abbreviation`], with what the base contributes
/// worked out once.
pub struct Abbreviator<T> {
    base: u128,
    /// [`Abbreviation::FromBase`]: the base's collapsed key, its field, and
    /// its bits above and below the field.
    base_key: u128,
    base_field: u64,
    base_above: u64,
    base_below: u64,
    /// [`Abbreviation::LeadingBits`]: the base's [`leading_shift`].
    shift: u32,
    format: PhantomData<T>,
}

impl<T: Abbreviated> Abbreviator<T> {
    #[inline(always)]
    pub fn new(base: u128) -> Self {
        let mut abbreviator = Abbreviator {
            base,
            base_key: base,
            base_field: 0,
            base_above: 0,
            base_below: 0,
            shift: leading_shift(base, T::LEN),
            format: PhantomData,
        };
        if let Abbreviation::FromBase(field) = T::ABBREVIATION {
            abbreviator.base_key = field.collapse(base, base);
            abbreviator.base_field = field.field_of(base);
            (abbreviator.base_above, abbreviator.base_below) = field.parts(base);
        }
        abbreviator
    }

    #[inline(always)]
    pub fn abbreviate(&self, value: u128) -> u64 {
        match T::ABBREVIATION {
            // The shift is one of two constants (leading_shift): as such,
            // the shift by it is a constant one.
            Abbreviation::LeadingBits if self.shift == 0 => leading_bits(value, 0),
            Abbreviation::LeadingBits => leading_bits(value, first_64_shift(T::LEN)),
            Abbreviation::FromBase(field) => self
                .near_base(field, value)
                .unwrap_or_else(|| self.far_from_base(field, value)),
        }
    }

    /// [`abbreviation_of`] for any value. Out of line: it needs registers
    /// that the converter of a value near the base would otherwise save
    /// and restore on every call, and the values of other servers or far
    /// from the base that come here take long enough that a call adds
    /// little.
    #[inline(never)]
    fn far_from_base(&self, field: ServerField, value: u128) -> u64 {
        abbreviation(field.collapse(value, self.base), self.base_key)
    }

    /// [`abbreviation_of`] for a value of the base's server within 2^56 of
    /// it, as nearly every value of a sort of IDs made close together is,
    /// in 64-bit arithmetic: both collapse to their bits above the field,
    /// the class "equal" and their bits below it, so the distance is the
    /// difference above the field, moved past the class, plus the
    /// difference below it.
    #[inline(always)]
    fn near_base(&self, field: ServerField, value: u128) -> Option<u64> {
        const MIDDLE: u64 = 1 << 63;
        let (above, below) = field.parts_if_field(value, self.base_field)?;
        // Within `reach` above the field the distance is below
        // 2^56 − 2^(shift + 2) + 2^shift < 2^56, so its code is itself and
        // needs no check of its own; beyond it the general code decides
        // (shift < 54 for every format). One unsigned comparison checks
        // both sides: this runs for every sorted value.
        let reach = 1u64 << (54 - field.shift);
        let above = above.wrapping_sub(self.base_above);
        if above.wrapping_add(reach - 1) >= 2 * reach - 1 {
            return None;
        }
        let below = below.wrapping_sub(self.base_below);
        Some(
            MIDDLE
                .wrapping_add(above << (field.shift + 2))
                .wrapping_add(below),
        )
    }
}
