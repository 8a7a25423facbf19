//! DistributedId (Architect.Identities 2.1.1): the non-negative integer
//! `id = ts · 2^48 + r`, with `ts` 45 bits of milliseconds since
//! 1900-01-01T00:00:00Z and `r` 48 bits of CSPRNG-derived sequence, stored as
//! 12 big-endian bytes. Valid values are 0 … 10^28−1 (the reference's
//! `decimal` range). Text form: the plain decimal integer.
//!
//! The reference generator stores the clock minus 1000 ms, so the decoded
//! time of a generated ID is about one second before it was made.

use crate::clock::Clock;
use crate::error::{field_in_range, Error, Result};
use crate::numeric::{is_c_space, numeric_integer};
use crate::random::RandomSource;
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DistributedId([u8; 12]);

crate::flake_id::fixed_id!(
    DistributedId,
    12,
    "distributed_id",
    valid = |id: DistributedId| DistributedId::from_bytes_checked(id.0),
    max_key = MAX_VALUE,
    text = DistributedId::text_into,
    abbreviation = crate::sortkey::Abbreviation::LeadingBits
);

/// 1900-01-01T00:00:00Z in milliseconds since the Unix epoch.
pub const EPOCH_UNIX_MILLIS: i64 = -2_208_988_800_000;
pub const TIMESTAMP_BITS: u32 = 45;
pub const MAX_TIMESTAMP_MS: u64 = (1 << TIMESTAMP_BITS) - 1;
pub const RANDOM_BITS: u32 = 48;
pub const MAX_RANDOM: u64 = (1 << RANDOM_BITS) - 1;
/// The largest value: 28 decimal digits, like the reference's `DECIMAL(28,0)`.
pub const MAX_VALUE: u128 = 9_999_999_999_999_999_999_999_999_999;
pub const TIME_RANGE: &str = "1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00";
pub const VALUE_RANGE: &str = "0 to 9999999999999999999999999999";

/// The generator stores `clock − LAG_MS` (reference behaviour).
pub const LAG_MS: i64 = 1000;
/// Within one millisecond, each further ID adds at most 2^41−1 to `r`, so a
/// millisecond holds about 2^48 / 2^40 = 256 IDs on average (≈128 at worst).
pub const INCREMENT_MASK: u64 = (1 << 41) - 1;
/// A burst may run this many milliseconds ahead of `clock − LAG_MS` …
pub const BURST_LEEWAY_MS: i64 = 999;
/// … and the generator waits for the clock while it lags at most this much
/// behind the last timestamp; beyond that it gives up ordering.
pub const REWIND_WAIT_MS: i64 = 1000;

const MAX_DIGITS: usize = 28;
const EXPECTED_TEXT: &str = "1 to 28 decimal digits";
const EXPECTED_HEX: &str = "exactly 26 hexadecimal digits";
fn time_out_of_range() -> Error {
    Error::TimeOutOfRange {
        type_name: "distributed_id",
        range: TIME_RANGE,
    }
}

fn value_out_of_range(input: &str) -> Error {
    Error::ValueOutOfRange {
        type_name: "distributed_id",
        input: input.to_owned(),
        range: VALUE_RANGE,
    }
}

/// The millisecond since 1900 containing `unix_micros`, if `ts` can hold it.
pub fn timestamp_ms_at(unix_micros: i64) -> Result<u64> {
    let ms = unix_micros.div_euclid(1000) - EPOCH_UNIX_MILLIS;
    u64::try_from(ms)
        .ok()
        .filter(|&ms| ms <= MAX_TIMESTAMP_MS)
        .ok_or_else(time_out_of_range)
}

/// C `isspace`, which PostgreSQL's own integer input skips around a number.
impl DistributedId {
    /// A value known to be below 2^96.
    const fn from_value(value: u128) -> DistributedId {
        let wide = value.to_be_bytes();
        let mut b = [0u8; 12];
        let mut i = 0;
        while i < 12 {
            b[i] = wide[i + 4];
            i += 1;
        }
        DistributedId(b)
    }

    pub fn from_u128(value: u128) -> Result<DistributedId> {
        if value > MAX_VALUE {
            return Err(value_out_of_range(&value.to_string()));
        }
        Ok(DistributedId::from_value(value))
    }

    pub const fn to_u128(&self) -> u128 {
        let mut wide = [0u8; 16];
        let mut i = 0;
        while i < 12 {
            wide[i + 4] = self.0[i];
            i += 1;
        }
        u128::from_be_bytes(wide)
    }

    /// `from_bytes` accepts any 12 bytes (up to 2^96−1, beyond the type's
    /// range); this is the check for `bytea::distributed_id` and `receive`.
    pub fn from_bytes_checked(bytes: [u8; 12]) -> Result<DistributedId> {
        let id = DistributedId(bytes);
        if id.is_valid() {
            Ok(id)
        } else {
            Err(value_out_of_range(&id.to_string()))
        }
    }

    pub const fn is_valid(&self) -> bool {
        self.to_u128() <= MAX_VALUE
    }

    /// The value from the stored fields: `timestamp_ms` since 1900 and `random`.
    pub fn from_raw_parts(timestamp_ms: u64, random: u64) -> Result<DistributedId> {
        if timestamp_ms > MAX_TIMESTAMP_MS {
            return Err(time_out_of_range());
        }
        field_in_range(
            "distributed_id",
            "random",
            random as i128,
            0,
            MAX_RANDOM as i128,
        )?;
        Ok(DistributedId::from_value(
            (timestamp_ms as u128) << RANDOM_BITS | random as u128,
        ))
    }

    /// `distributed_id_from_parts`: a time inside a millisecond rounds down.
    pub fn from_parts(unix_micros: i64, random: i64) -> Result<DistributedId> {
        let timestamp_ms = timestamp_ms_at(unix_micros)?;
        let random = field_in_range(
            "distributed_id",
            "random",
            random as i128,
            0,
            MAX_RANDOM as i128,
        )?;
        DistributedId::from_raw_parts(timestamp_ms, random as u64)
    }

    /// The smallest value at `unix_micros` (`r` = 0).
    pub fn from_time(unix_micros: i64) -> Result<DistributedId> {
        DistributedId::from_raw_parts(timestamp_ms_at(unix_micros)?, 0)
    }

    /// `id >> 48`: milliseconds since 1900. Below 2^45 for generated values,
    /// up to 35527136788005 for the largest valid value.
    pub const fn timestamp_ms(&self) -> u64 {
        (self.to_u128() >> RANDOM_BITS) as u64
    }

    pub const fn random(&self) -> u64 {
        self.to_u128() as u64 & MAX_RANDOM
    }

    /// Defined for every value (even one whose timestamp is 2^45 or more).
    pub const fn unix_millis(&self) -> i64 {
        self.timestamp_ms() as i64 + EPOCH_UNIX_MILLIS
    }

    pub const fn unix_micros(&self) -> i64 {
        self.unix_millis() * 1000
    }

    /// `distributed_id_to_hex`: a `00` byte then the 12 bytes, upper case.
    pub fn to_hex(&self) -> String {
        format!("{:026X}", self.to_u128())
    }

    /// `distributed_id_from_hex`: exactly 26 hex digits, any case; a non-zero
    /// first byte or a value above 10^28−1 is out of range.
    pub fn from_hex(text: &str) -> Result<DistributedId> {
        let bytes = text.as_bytes();
        if bytes.len() != 26 || !bytes.iter().all(u8::is_ascii_hexdigit) {
            return Err(Error::invalid_text("distributed_id", text, EXPECTED_HEX));
        }
        let value = u128::from_str_radix(text, 16)
            .map_err(|_| Error::invalid_text("distributed_id", text, EXPECTED_HEX))?;
        if value > MAX_VALUE {
            return Err(value_out_of_range(text));
        }
        Ok(DistributedId::from_value(value))
    }

    /// The `numeric → distributed_id` cast, from PostgreSQL's numeric output
    /// text: a negative, fractional, NaN, infinite or too large value is 22003.
    pub fn from_numeric_text(text: &str) -> Result<DistributedId> {
        let value = numeric_integer(text, "distributed_id", MAX_VALUE, VALUE_RANGE)?;
        Ok(DistributedId::from_value(value))
    }
}

/// "00" to "99", for writing two decimal digits at a time.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

impl DistributedId {
    /// The decimal text into `out` (`FlakeId::encode_text`), without 128-bit
    /// division: the value (below 2^96) as three 32-bit limbs, divided by
    /// 10^9 per round with 64-bit arithmetic, each remainder written two
    /// digits at a time.
    fn text_into(&self, out: &mut crate::flake_id::TextBuffer) -> usize {
        const BILLION: u64 = 1_000_000_000;
        let value = self.to_u128();
        let mut limbs = [(value >> 64) as u32, (value >> 32) as u32, value as u32];
        // Four rounds of nine: `from_bytes` admits values up to 2^96 − 1
        // (29 digits), above the valid range.
        let mut digits = [b'0'; 36];
        let mut at = digits.len();
        loop {
            let mut rest = 0u64;
            for limb in limbs.iter_mut() {
                let current = rest << 32 | u64::from(*limb);
                *limb = (current / BILLION) as u32;
                rest = current % BILLION;
            }
            let last = limbs == [0, 0, 0];
            // The nine digits of this round (leading zeros only if not last).
            let mut chunk = rest as u32;
            let end = at;
            for _ in 0..4 {
                let pair = (chunk % 100) as usize * 2;
                chunk /= 100;
                at -= 2;
                digits[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
            }
            at -= 1;
            digits[at] = b'0' + chunk as u8;
            if last {
                // Drop the leading zeros, keeping one digit for zero.
                while at < end - 1 && digits[at] == b'0' {
                    at += 1;
                }
                break;
            }
        }
        let len = digits.len() - at;
        out[..len].copy_from_slice(&digits[at..]);
        len
    }
}

impl fmt::Display for DistributedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_u128(), f)
    }
}

impl FromStr for DistributedId {
    type Err = Error;
    fn from_str(s: &str) -> Result<DistributedId> {
        let digits = s.trim_matches(is_c_space);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::invalid_text("distributed_id", s, EXPECTED_TEXT));
        }
        let significant = digits.trim_start_matches('0');
        if significant.len() > MAX_DIGITS {
            return Err(value_out_of_range(s));
        }
        if significant.is_empty() {
            return Ok(DistributedId::from_value(0));
        }
        // At most 28 digits: below 10^28, so it fits and is in range.
        Ok(DistributedId::from_value(decimal(significant.as_bytes())))
    }
}

/// Up to 28 ASCII digits as a number. Two 64-bit accumulations (the low 19
/// digits and the rest) cost a fraction of a general `u128` parse.
fn decimal(digits: &[u8]) -> u128 {
    let (high, low) = digits.split_at(digits.len().saturating_sub(19));
    let accumulate = |d: &[u8]| d.iter().fold(0u64, |n, &b| n * 10 + (b - b'0') as u64);
    accumulate(high) as u128 * 10u128.pow(19) + accumulate(low) as u128
}

// --- generator --------------------------------------------------------------

/// The 48-bit draw from 6 CSPRNG bytes read little-endian; 0 becomes 1.
pub fn random_from_bytes(bytes: [u8; 6]) -> u64 {
    let mut wide = [0u8; 8];
    wide[..6].copy_from_slice(&bytes);
    u64::from_le_bytes(wide).max(1)
}

/// The next `r` within the same millisecond: `previous` plus the draw's low
/// 41 bits (0 becomes 1), or None when the sum does not fit in 48 bits.
pub fn increment_random(previous: u64, draw: u64) -> Option<u64> {
    let increment = (draw & INCREMENT_MASK).max(1);
    previous.checked_add(increment).filter(|&r| r <= MAX_RANDOM)
}

/// Milliseconds since 1900 (floor) of a clock reading.
fn clock_millis(unix_nanos: i64) -> i64 {
    unix_nanos.div_euclid(1_000_000) - EPOCH_UNIX_MILLIS
}

/// The reference generator (one per backend). IDs strictly increase unless
/// the clock goes back by more than about a second, where the reference gives
/// up ordering rather than wait.
///
/// Its waits are "sleep 1 ms, read the clock again": each one is a single
/// `Clock::pause`, so the clock given to [`generate`](Self::generate) should
/// pause for about 1 ms. A shorter pause is still correct (every pass reads
/// the clock afresh), it only spins more.
#[derive(Debug, Clone, Default)]
pub struct DistributedIdGenerator {
    previous_ms: i64,
    previous_random: u64,
}

impl DistributedIdGenerator {
    /// A fresh generator (previous timestamp 0, as in the reference).
    pub const fn new() -> Self {
        DistributedIdGenerator {
            previous_ms: 0,
            previous_random: 0,
        }
    }

    /// The last ID this generator returned, None before the first.
    pub fn last(&self) -> Option<DistributedId> {
        // Every issued `r` is at least 1, so (0, 0) means nothing issued yet.
        if self.previous_ms == 0 && self.previous_random == 0 {
            return None;
        }
        Some(self.previous_id())
    }

    fn previous_id(&self) -> DistributedId {
        DistributedId::from_value(
            (self.previous_ms as u128) << RANDOM_BITS | self.previous_random as u128,
        )
    }

    /// The next ID: one 6-byte draw, then one clock reading per pass.
    pub fn generate<C: Clock, R: RandomSource>(
        &mut self,
        clock: &mut C,
        random: &mut R,
    ) -> Result<DistributedId> {
        let mut bytes = [0u8; 6];
        random.fill_bytes(&mut bytes);
        let draw = random_from_bytes(bytes);
        loop {
            let timestamp = clock_millis(clock.now_nanos()) - LAG_MS;
            match self.step(timestamp, draw)? {
                Some(id) => return Ok(id),
                None => clock.pause(),
            }
        }
    }

    /// One pass of the reference loop: an ID, or None to sleep and retry.
    fn step(&mut self, timestamp: i64, draw: u64) -> Result<Option<DistributedId>> {
        if timestamp < 0 {
            return Err(time_out_of_range());
        }
        let mut timestamp = timestamp;
        if timestamp <= self.previous_ms {
            if let Some(random) = increment_random(self.previous_random, draw) {
                self.previous_random = random;
                return Ok(Some(self.previous_id()));
            }
            let max_timestamp = timestamp + BURST_LEEWAY_MS;
            if self.previous_ms < max_timestamp {
                timestamp = self.previous_ms + 1;
            } else if self.previous_ms - max_timestamp <= REWIND_WAIT_MS {
                return Ok(None);
            }
        }
        let id = DistributedId::from_raw_parts(timestamp as u64, draw)?;
        self.previous_ms = timestamp;
        self.previous_random = draw;
        Ok(Some(id))
    }
}
