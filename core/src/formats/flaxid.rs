//! Flax ID (ergeon python-flax-id 1.1.0): 96 bits = 40 bits of milliseconds
//! since 2015-01-01 and 56 random bits. Text form: 16 characters over an
//! alphabet in ASCII order, so text order is value order.

use crate::clock::Clock;
use crate::codec::Alphabet;
use crate::error::{field_in_range, Error, Result};
use crate::flake_id::FlakeId;
use crate::random::RandomSource;
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlaxId([u8; 12]);

crate::flake_id::fixed_id!(FlaxId, 12, "flaxid");

/// 2015-01-01T00:00:00Z in milliseconds since the Unix epoch.
pub const EPOCH_MILLIS: i64 = 1_420_070_400_000;
pub const MAX_MILLIS: u64 = (1 << 40) - 1;
pub const RANDOM_BITS: u32 = 56;
pub const MAX_RANDOM: u64 = (1 << RANDOM_BITS) - 1;
pub const TIME_RANGE: &str = "2015-01-01 00:00:00+00 to 2049-11-03 19:53:47.775+00";

const TYPE_NAME: &str = "flaxid";
const FLAX64: Alphabet =
    Alphabet::new(b"-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz");
const TEXT_LEN: usize = 16;
const EXPECTED_TEXT: &str = "16 characters from '-', 0-9, A-Z, '_' and a-z";

fn time_out_of_range() -> Error {
    Error::TimeOutOfRange {
        type_name: TYPE_NAME,
        range: TIME_RANGE,
    }
}

/// Milliseconds since the Flax epoch of a Unix millisecond, if representable.
/// The reference wraps silently outside the range; pg_flake refuses instead.
pub fn millis_at(unix_millis: i64) -> Result<u64> {
    let since = unix_millis as i128 - EPOCH_MILLIS as i128;
    if !(0..=MAX_MILLIS as i128).contains(&since) {
        return Err(time_out_of_range());
    }
    Ok(since as u64)
}

impl FlaxId {
    /// The Flax ID of `unix_millis` with the given 56 random bits.
    pub fn from_parts(unix_millis: i64, random: i64) -> Result<FlaxId> {
        let millis = millis_at(unix_millis)?;
        let random = field_in_range(TYPE_NAME, "random", random as i128, 0, MAX_RANDOM as i128)?;
        Ok(FlaxId::from_fields(millis, random as u64))
    }

    /// The smallest Flax ID at `unix_micros` (random bits zero), rounding
    /// down to the millisecond.
    pub fn from_time(unix_micros: i64) -> Result<FlaxId> {
        FlaxId::from_parts(unix_micros.div_euclid(1000), 0)
    }

    fn from_fields(millis: u64, random: u64) -> FlaxId {
        FlaxId::from_key((millis as u128) << RANDOM_BITS | random as u128)
    }

    /// Milliseconds since the Flax epoch.
    pub fn millis(&self) -> u64 {
        (self.key() >> RANDOM_BITS) as u64
    }

    pub fn random(&self) -> u64 {
        self.key() as u64 & MAX_RANDOM
    }

    pub fn unix_millis(&self) -> i64 {
        EPOCH_MILLIS + self.millis() as i64
    }

    pub fn unix_micros(&self) -> i64 {
        self.unix_millis() * 1000
    }

    /// The 16-character text form in a stack buffer.
    pub fn encode(&self) -> [u8; TEXT_LEN] {
        FLAX64.encode(self.key(), 96)
    }

    /// Strict decoding of the 16-character text form.
    pub fn decode(text: &[u8]) -> Option<FlaxId> {
        FLAX64.decode::<TEXT_LEN>(text, 96).map(FlaxId::from_key)
    }
}

impl fmt::Display for FlaxId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        // The alphabet is ASCII, so the buffer is always valid UTF-8.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for FlaxId {
    type Err = Error;
    fn from_str(s: &str) -> Result<FlaxId> {
        FlaxId::decode(s.as_bytes()).ok_or_else(|| Error::invalid_text(TYPE_NAME, s, EXPECTED_TEXT))
    }
}

/// Flax IDs need no state: the format has no counter, so IDs of one
/// millisecond are ordered randomly (as in the reference).
#[derive(Debug, Default, Clone, Copy)]
pub struct FlaxIdGenerator;

impl FlaxIdGenerator {
    /// The current millisecond and 56 bits from `rng` (a CSPRNG in the
    /// server, unlike the reference's `random` module).
    pub fn generate<C: Clock, R: RandomSource>(clock: &mut C, rng: &mut R) -> Result<FlaxId> {
        let millis = millis_at(clock.now_nanos().div_euclid(1_000_000))?;
        let mut draw = [0u8; 8];
        rng.fill_bytes(&mut draw[1..]);
        Ok(FlaxId::from_fields(millis, u64::from_be_bytes(draw)))
    }
}
