//! DistributedId128 (Architect.Identities 2.1.1), stored in PostgreSQL's
//! built-in `uuid`. The 128-bit big-endian value is
//! `U = ts · 2^80 + 7 · 2^76 + (R >> 63) · 2^64 + (R mod 2^63)`: 48 bits of
//! milliseconds since 1700-01-01T00:00:00Z, the version nibble `0111`, and a
//! 75-bit random value R split around bit 63, which is always 0 (the
//! reference keeps the variant bits `0xx` on purpose, so strict RFC 9562
//! parsers do not call it a version 7 UUID).
//!
//! No SQL type of its own, hence no `fixed_id!`: the value is the uuid's bytes.

use crate::clock::Clock;
use crate::error::{field_in_range, Error, Result};
use crate::numeric::numeric_integer;
use crate::random::RandomSource;
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DistributedId128([u8; 16]);

/// 1700-01-01T00:00:00Z in milliseconds since the Unix epoch.
pub const EPOCH_UNIX_MILLIS: i64 = -8_520_336_000_000;
pub const TIMESTAMP_BITS: u32 = 48;
pub const MAX_TIMESTAMP_MS: u64 = (1 << TIMESTAMP_BITS) - 1;
pub const RANDOM_BITS: u32 = 75;
pub const MAX_RANDOM: u128 = (1 << RANDOM_BITS) - 1;
pub const VERSION: u8 = 7;
pub const TIME_RANGE: &str = "1700-01-01 00:00:00+00 to 10619-08-04 05:31:50.655999+00";
pub const VALUE_RANGE: &str = "0 to 340282366920938463463374607431768211455";

/// Within one millisecond, each further ID adds at most 2^58−1 to R.
pub const INCREMENT_MASK: u64 = (1 << 58) - 1;
/// The generator waits for a clock that went back less than this; beyond,
/// it starts again at the earlier time (order lost, as in the reference).
pub const REWIND_WAIT_MS: u64 = 1000;

const LOW_RANDOM_BITS: u32 = 63;
const LOW_RANDOM_MASK: u128 = (1 << LOW_RANDOM_BITS) - 1;
const EXPECTED_UUID: &str = "a uuid as 8-4-4-4-12 hexadecimal digits";

fn time_out_of_range() -> Error {
    Error::TimeOutOfRange {
        type_name: "distributed_id128",
        range: TIME_RANGE,
    }
}

/// The millisecond since 1700 containing `unix_micros`, if 48 bits hold it.
pub fn timestamp_ms_at(unix_micros: i64) -> Result<u64> {
    millis_since_epoch(unix_micros.div_euclid(1000))
}

fn millis_since_epoch(unix_millis: i64) -> Result<u64> {
    u64::try_from(unix_millis - EPOCH_UNIX_MILLIS)
        .ok()
        .filter(|&ms| ms <= MAX_TIMESTAMP_MS)
        .ok_or_else(time_out_of_range)
}

impl DistributedId128 {
    pub const LEN: usize = 16;

    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        DistributedId128(bytes)
    }

    pub const fn to_bytes(&self) -> [u8; 16] {
        self.0
    }

    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// Every 128-bit value is a uuid, so every one is accepted.
    pub const fn from_u128(value: u128) -> Self {
        DistributedId128(value.to_be_bytes())
    }

    pub const fn to_u128(&self) -> u128 {
        u128::from_be_bytes(self.0)
    }

    /// The value from the stored fields: `timestamp_ms` since 1700 and R.
    pub fn from_raw_parts(timestamp_ms: u64, random: u128) -> Result<Self> {
        if timestamp_ms > MAX_TIMESTAMP_MS {
            return Err(time_out_of_range());
        }
        if random > MAX_RANDOM {
            return Err(Error::FieldOutOfRange {
                type_name: "distributed_id128",
                field: "random",
                value: i128::try_from(random).unwrap_or(i128::MAX),
                min: 0,
                max: MAX_RANDOM as i128,
            });
        }
        Ok(DistributedId128::from_u128(
            (timestamp_ms as u128) << 80
                | (VERSION as u128) << 76
                | (random >> LOW_RANDOM_BITS) << 64
                | random & LOW_RANDOM_MASK,
        ))
    }

    /// `distributed_id128_from_parts`: a time inside a millisecond rounds down.
    pub fn from_parts(unix_micros: i64, random: i128) -> Result<Self> {
        let timestamp_ms = timestamp_ms_at(unix_micros)?;
        let random = field_in_range("distributed_id128", "random", random, 0, MAX_RANDOM as i128)?;
        DistributedId128::from_raw_parts(timestamp_ms, random as u128)
    }

    /// The smallest DistributedId128 at `unix_micros` (R = 0).
    pub fn from_time(unix_micros: i64) -> Result<Self> {
        DistributedId128::from_raw_parts(timestamp_ms_at(unix_micros)?, 0)
    }

    /// The top 48 bits: milliseconds since 1700.
    pub const fn timestamp_ms(&self) -> u64 {
        (self.to_u128() >> 80) as u64
    }

    /// R: the 12 bits above the version-free bit 63, then the low 63 bits.
    /// For an arbitrary uuid this ignores the version nibble and bit 63.
    pub const fn random(&self) -> u128 {
        let value = self.to_u128();
        (value >> 64 & 0xFFF) << LOW_RANDOM_BITS | value & LOW_RANDOM_MASK
    }

    pub const fn unix_millis(&self) -> i64 {
        self.timestamp_ms() as i64 + EPOCH_UNIX_MILLIS
    }

    pub const fn unix_micros(&self) -> i64 {
        self.unix_millis() * 1000
    }

    /// `distributed_id128_from_numeric`, from PostgreSQL's numeric output
    /// text: negative, fractional, NaN, infinite or ≥ 2^128 is 22003.
    pub fn from_numeric_text(text: &str) -> Result<Self> {
        numeric_integer(text, "uuid", u128::MAX, VALUE_RANGE).map(DistributedId128::from_u128)
    }

    /// The canonical uuid text, lower case, into a stack buffer.
    pub fn encode(&self) -> [u8; 36] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [b'-'; 36];
        let mut pos = 0;
        for (i, byte) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                pos += 1;
            }
            out[pos] = HEX[(byte >> 4) as usize];
            out[pos + 1] = HEX[(byte & 15) as usize];
            pos += 2;
        }
        out
    }

    /// Strict decoding of the 8-4-4-4-12 form (either case).
    pub fn decode(text: &[u8]) -> Option<Self> {
        if text.len() != 36 {
            return None;
        }
        let mut bytes = [0u8; 16];
        let mut digits = text
            .iter()
            .enumerate()
            .filter(|&(i, _)| !matches!(i, 8 | 13 | 18 | 23));
        if [8, 13, 18, 23].iter().any(|&i| text[i] != b'-') {
            return None;
        }
        for byte in bytes.iter_mut() {
            let high = (*digits.next()?.1 as char).to_digit(16)?;
            let low = (*digits.next()?.1 as char).to_digit(16)?;
            *byte = (high << 4 | low) as u8;
        }
        Some(DistributedId128(bytes))
    }
}

impl From<[u8; 16]> for DistributedId128 {
    fn from(bytes: [u8; 16]) -> Self {
        DistributedId128(bytes)
    }
}

impl From<DistributedId128> for [u8; 16] {
    fn from(id: DistributedId128) -> Self {
        id.0
    }
}

impl fmt::Display for DistributedId128 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        // Hex digits and hyphens only, so always valid UTF-8.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for DistributedId128 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "distributed_id128({self})")
    }
}

impl FromStr for DistributedId128 {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        DistributedId128::decode(s.as_bytes())
            .ok_or_else(|| Error::invalid_text("uuid", s, EXPECTED_UUID))
    }
}

// --- generator --------------------------------------------------------------

/// R from 16 CSPRNG bytes: `(LE-u64(bytes 0..7) >> 53) · 2^64 +
/// LE-u64(bytes 8..15)`; R = 0 becomes 1.
pub fn random_from_bytes(bytes: [u8; 16]) -> u128 {
    let mut high = [0u8; 8];
    let mut low = [0u8; 8];
    high.copy_from_slice(&bytes[..8]);
    low.copy_from_slice(&bytes[8..]);
    let random = ((u64::from_le_bytes(high) >> 53) as u128) << 64 | u64::from_le_bytes(low) as u128;
    random.max(1)
}

/// The next R within the same millisecond: `previous` plus the draw's low 58
/// bits (0 becomes 1), or None when the sum does not fit in 75 bits.
pub fn increment_random(previous: u128, draw: u128) -> Option<u128> {
    let increment = ((draw as u64) & INCREMENT_MASK).max(1);
    previous
        .checked_add(increment as u128)
        .filter(|&r| r <= MAX_RANDOM)
}

/// The reference generator (one per backend). Unlike DistributedId it has no
/// clock lag and no burst borrowing: when a millisecond's R space runs out it
/// waits for the next millisecond.
///
/// Each wait is one `Clock::pause`, which should last about 1 ms (the
/// reference sleeps 1 ms); a shorter pause only spins more.
#[derive(Debug, Clone, Default)]
pub struct DistributedId128Generator {
    previous_ms: u64,
    previous_random: u128,
}

impl DistributedId128Generator {
    /// A fresh generator (previous timestamp 0, as in the reference).
    pub const fn new() -> Self {
        DistributedId128Generator {
            previous_ms: 0,
            previous_random: 0,
        }
    }

    /// The last ID this generator returned, None before the first.
    pub fn last(&self) -> Option<DistributedId128> {
        // Every issued R is at least 1, so (0, 0) means nothing issued yet.
        if self.previous_ms == 0 && self.previous_random == 0 {
            return None;
        }
        DistributedId128::from_raw_parts(self.previous_ms, self.previous_random).ok()
    }

    /// The next ID: one 16-byte draw, then one clock reading per pass.
    pub fn generate<C: Clock, R: RandomSource>(
        &mut self,
        clock: &mut C,
        random: &mut R,
    ) -> Result<DistributedId128> {
        let mut bytes = [0u8; 16];
        random.fill_bytes(&mut bytes);
        let draw = random_from_bytes(bytes);
        loop {
            let unix_millis = clock.now_nanos().div_euclid(1_000_000);
            let timestamp = millis_since_epoch(unix_millis)?;
            match self.step(timestamp, draw)? {
                Some(id) => return Ok(id),
                None => clock.pause(),
            }
        }
    }

    /// One pass of the reference loop: an ID, or None to sleep and retry.
    fn step(&mut self, timestamp: u64, draw: u128) -> Result<Option<DistributedId128>> {
        if timestamp <= self.previous_ms {
            if let Some(random) = increment_random(self.previous_random, draw) {
                let id = DistributedId128::from_raw_parts(self.previous_ms, random)?;
                self.previous_random = random;
                return Ok(Some(id));
            }
            if timestamp + REWIND_WAIT_MS > self.previous_ms {
                return Ok(None);
            }
        }
        let id = DistributedId128::from_raw_parts(timestamp, draw)?;
        self.previous_ms = timestamp;
        self.previous_random = draw;
        Ok(Some(id))
    }
}
