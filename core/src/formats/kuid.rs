//! k-ordered uid (fogfish/uid 1.3.5): Erlang's timestamp triple (A
//! megaseconds, B seconds, C microseconds, of which only `C >> 10` is kept)
//! and a 14-bit sequence.
//!
//! kuid64 (local) is a positive `bigint`: `A·2^44 + B·2^24 + (C>>10)·2^14 + seq`.
//! kuid96 (global) puts a 32-bit node fingerprint inside B, at a split point
//! given by the neighborhood interval I (5–10), which is not stored in the
//! value. Both have a text form over `.0-9A-Z_a-z` (ASCII order).

use crate::clock::Clock;
use crate::codec::Alphabet;
use crate::error::{field_in_range, non_negative, Error, Result};
use crate::flake_id::FlakeId;
use crate::sequencer::{
    until_issued, Limits, Regression, Sequencer, SequencerState, Step, Timeline,
};
use crate::slot::{SlotAssignment, SlotRule};
use std::fmt;
use std::str::FromStr;

/// kuid has no process field: slots share the 14-bit sequence space.
pub const SLOT_RULE: SlotRule = SlotRule::new(0, 14);
pub const SEQ_BITS: u32 = 14;
pub const MAX_SEQ: u32 = (1 << SEQ_BITS) - 1;
/// The time unit: `C >> 10` keeps microseconds in steps of 1024.
pub const UNIT_MICROS: i64 = 1024;
pub const KUID64_MEGASECONDS_LIMIT: u32 = 1 << 19;
pub const KUID96_MEGASECONDS_LIMIT: u32 = 1 << 20;
pub const KUID64_TIME_RANGE: &str = "1970-01-01 00:00:00+00 to 18584-01-10 03:33:19.999999+00";
pub const KUID96_TIME_RANGE: &str = "1970-01-01 00:00:00+00 to 35198-01-19 07:06:39.999999+00";
pub const KUID64_VALUE_RANGE: &str = crate::error::NON_NEGATIVE_BIGINT;
pub const MIN_INTERVAL: u32 = 5;
pub const MAX_INTERVAL: u32 = 10;
pub const DEFAULT_INTERVAL: u32 = 8;

const KUID64: Alphabet =
    Alphabet::new(b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz");
const KUID64_TEXT_LEN: usize = 11;
const KUID96_TEXT_LEN: usize = 16;
const KUID64_EXPECTED_TEXT: &str =
    "11 characters from '.', 0-9, A-Z, '_' and a-z whose last two padding bits are zero";
const KUID96_EXPECTED_TEXT: &str = "16 characters from '.', 0-9, A-Z, '_' and a-z";

// --- Erlang time --------------------------------------------------------------

/// Erlang's `{A, B, C}` with C reduced to its 1024 µs unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ErlangTime {
    pub megaseconds: u32,
    /// Seconds within the megasecond: 0–999 999 for a real time, though a
    /// decoded value may hold up to 2^20 − 1.
    pub seconds: u32,
    /// `C >> 10`: 0–976 for a real time, up to 1023 in a decoded value.
    pub units: u32,
}

impl ErlangTime {
    /// The triple of an instant at or after the Unix epoch (None before it).
    pub fn from_unix_micros(unix_micros: i64) -> Option<ErlangTime> {
        if unix_micros < 0 {
            return None;
        }
        let secs = unix_micros / 1_000_000;
        Some(ErlangTime {
            megaseconds: (secs / 1_000_000) as u32,
            seconds: (secs % 1_000_000) as u32,
            units: ((unix_micros % 1_000_000) >> 10) as u32,
        })
    }

    /// C as the reference's decoder returns it: the unit's first microsecond.
    pub fn microseconds(&self) -> u32 {
        self.units << 10
    }

    pub fn unix_micros(&self) -> i64 {
        let secs = self.megaseconds as i64 * 1_000_000 + self.seconds as i64;
        secs * 1_000_000 + self.microseconds() as i64
    }

    /// The generators' unit, `unix_seconds · 1024 + (C >> 10)`: unlike the
    /// triple's fields it increases with time, so it can drive a sequencer.
    pub fn monotonic_unit(&self) -> u64 {
        let secs = self.megaseconds as u64 * 1_000_000 + self.seconds as u64;
        secs * 1024 + self.units as u64
    }

    pub fn from_monotonic_unit(unit: u64) -> ErlangTime {
        let secs = unit / 1024;
        ErlangTime {
            megaseconds: (secs / 1_000_000) as u32,
            seconds: (secs % 1_000_000) as u32,
            units: (unit % 1024) as u32,
        }
    }
}

fn erlang_time_below(
    unix_micros: i64,
    megaseconds_limit: u32,
    type_name: &'static str,
    range: &'static str,
) -> Result<ErlangTime> {
    ErlangTime::from_unix_micros(unix_micros)
        .filter(|t| t.megaseconds < megaseconds_limit)
        .ok_or(Error::TimeOutOfRange { type_name, range })
}

/// The triple of a time a kuid64 can hold (A below 2^19, so the `bigint`
/// stays positive).
pub fn kuid64_time(unix_micros: i64) -> Result<ErlangTime> {
    erlang_time_below(
        unix_micros,
        KUID64_MEGASECONDS_LIMIT,
        "kuid64",
        KUID64_TIME_RANGE,
    )
}

/// The triple of a time a kuid96 can hold (A below 2^20).
pub fn kuid96_time(unix_micros: i64) -> Result<ErlangTime> {
    erlang_time_below(
        unix_micros,
        KUID96_MEGASECONDS_LIMIT,
        "kuid96",
        KUID96_TIME_RANGE,
    )
}

fn check_seq(type_name: &'static str, seq: i64) -> Result<u32> {
    field_in_range(type_name, "seq", seq as i128, 0, MAX_SEQ as i128).map(|s| s as u32)
}

// --- text -------------------------------------------------------------------------

// --- kuid64 ---------------------------------------------------------------------

/// The fields of a kuid64, as `kuid64_parts` returns them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kuid64Parts {
    /// Microseconds since the Unix epoch (start of the 1024 µs unit).
    pub time: i64,
    pub megaseconds: u32,
    pub seconds: u32,
    pub microseconds: u32,
    pub seq: u32,
}

fn kuid64_bits(kuid64: i64) -> Result<u64> {
    non_negative("kuid64", kuid64)
}

/// The kuid64 layout; A may reach 2^20 − 1 here (kuid96's range), so the
/// result is unsigned and only a kuid64 when below 2^63.
fn local_bits(time: ErlangTime, seq: u32) -> u64 {
    (time.megaseconds as u64) << 44
        | (time.seconds as u64) << 24
        | (time.units as u64) << 14
        | seq as u64
}

fn kuid64_fields(bits: u64) -> (ErlangTime, u32) {
    let time = ErlangTime {
        megaseconds: (bits >> 44) as u32,
        seconds: (bits >> 24) as u32 & 0xF_FFFF,
        units: (bits >> 14) as u32 & 0x3FF,
    };
    (time, bits as u32 & MAX_SEQ)
}

/// The kuid64 of `unix_micros` (rounded down to its 1024 µs unit) and `seq`.
pub fn kuid64_from_parts(unix_micros: i64, seq: i64) -> Result<i64> {
    let time = kuid64_time(unix_micros)?;
    Ok(local_bits(time, check_seq("kuid64", seq)?) as i64)
}

/// The smallest kuid64 at `unix_micros` (seq 0).
pub fn kuid64_from_time(unix_micros: i64) -> Result<i64> {
    kuid64_from_parts(unix_micros, 0)
}

/// The fields of a kuid64; a negative `bigint` is no kuid64 (22003).
pub fn kuid64_parts(kuid64: i64) -> Result<Kuid64Parts> {
    let (time, seq) = kuid64_fields(kuid64_bits(kuid64)?);
    Ok(Kuid64Parts {
        time: time.unix_micros(),
        megaseconds: time.megaseconds,
        seconds: time.seconds,
        microseconds: time.microseconds(),
        seq,
    })
}

/// Microseconds since the Unix epoch of a kuid64's time unit.
pub fn kuid64_timestamp(kuid64: i64) -> Result<i64> {
    kuid64_parts(kuid64).map(|p| p.time)
}

/// The 11-character text form in a stack buffer.
pub fn kuid64_encode_bytes(kuid64: i64) -> Result<[u8; KUID64_TEXT_LEN]> {
    Ok(KUID64.encode(kuid64_bits(kuid64)? as u128, 64))
}

/// The 11-character text form.
pub fn kuid64_encode(kuid64: i64) -> Result<String> {
    let text = kuid64_encode_bytes(kuid64)?;
    Ok(text.iter().map(|&c| c as char).collect())
}

/// Strict decoding of the 11-character text form. Text whose value has the
/// top bit set is well formed but no positive `bigint` (22003).
pub fn kuid64_decode(text: &str) -> Result<i64> {
    let value = KUID64
        .decode::<KUID64_TEXT_LEN>(text.as_bytes(), 64)
        .ok_or_else(|| Error::invalid_text("kuid64", text, KUID64_EXPECTED_TEXT))?;
    i64::try_from(value).map_err(|_| Error::ValueOutOfRange {
        type_name: "kuid64",
        input: text.to_owned(),
        range: KUID64_VALUE_RANGE,
    })
}

// --- kuid96 ---------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Kuid96([u8; 12]);

// The node fingerprint, where the default interval puts it (the interval
// is not stored in the value; any position keeps the order, this one keeps
// the sequence of IDs made with the default).
crate::flake_id::fixed_id!(
    Kuid96,
    12,
    "kuid96",
    abbreviation = crate::sortkey::Abbreviation::FromBase(crate::sortkey::ServerField {
        shift: low_bits(DEFAULT_INTERVAL),
        width: 32
    })
);

/// The fields of a kuid96 read with one interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kuid96Parts {
    /// Microseconds since the Unix epoch (start of the 1024 µs unit).
    pub time: i64,
    pub node: u32,
    pub seq: u32,
}

/// The neighborhood interval I, which must be 5–10 (the reference loops
/// forever outside that range). Takes any integer, so that a negative SQL
/// `int` is reported as given.
pub fn check_interval(interval: impl Into<i64>) -> Result<u32> {
    let interval: i64 = interval.into();
    if (MIN_INTERVAL as i64..=MAX_INTERVAL as i64).contains(&interval) {
        Ok(interval as u32)
    } else {
        Err(Error::InvalidParameter {
            message: format!(
                "kuid interval {interval} is outside {MIN_INTERVAL} to {MAX_INTERVAL}"
            ),
        })
    }
}

/// Bits below the node: `B1`, `C >> 10` and seq, which a kuid64 holds at the
/// same place.
const fn low_bits(interval: u32) -> u32 {
    24 + interval
}

/// kuid64 layout → kuid96 layout: the 32-bit node goes above the low bits.
fn insert_node(local: u64, node: u32, interval: u32) -> u128 {
    let low = low_bits(interval);
    let high = (local >> low) as u128;
    let low_part = (local & ((1 << low) - 1)) as u128;
    high << (low + 32) | (node as u128) << low | low_part
}

/// kuid96 layout → (kuid64 layout as u64 wide enough for A < 2^20, node).
fn remove_node(global: u128, interval: u32) -> (u64, u32) {
    let low = low_bits(interval);
    let high = (global >> (low + 32)) as u64;
    let low_part = (global & ((1 << low) - 1)) as u64;
    let node = (global >> low) as u32;
    (high << low | low_part, node)
}

impl Kuid96 {
    /// The kuid96 of `unix_micros` (rounded down to its 1024 µs unit) on
    /// `node` with `seq`, laid out for `interval`.
    pub fn from_parts(unix_micros: i64, node: u32, seq: i64, interval: u32) -> Result<Kuid96> {
        let interval = check_interval(interval)?;
        let time = kuid96_time(unix_micros)?;
        let seq = check_seq("kuid96", seq)?;
        Ok(Kuid96::from_key(Kuid96::key_of_fields(
            time, node, seq, interval,
        )))
    }

    /// The [`FlakeId::key`] of the kuid96 with these fields.
    #[inline(always)]
    fn key_of_fields(time: ErlangTime, node: u32, seq: u32, interval: u32) -> u128 {
        insert_node(local_bits(time, seq), node, interval)
    }

    /// The smallest kuid96 at `unix_micros` (node 0, seq 0).
    pub fn from_time(unix_micros: i64, interval: u32) -> Result<Kuid96> {
        Kuid96::from_parts(unix_micros, 0, 0, interval)
    }

    /// The reference's `g/1`: a local kuid64 made global by adding `node`.
    pub fn globalize(kuid64: i64, node: u32, interval: u32) -> Result<Kuid96> {
        let interval = check_interval(interval)?;
        let local = kuid64_bits(kuid64)?;
        Ok(Kuid96::from_key(insert_node(local, node, interval)))
    }

    /// The reference's `gtol/1`: the kuid64 without the node. Times beyond
    /// kuid64's range (A ≥ 2^19) are 22008.
    pub fn localize(&self, interval: u32) -> Result<i64> {
        let (local, _) = remove_node(self.key(), check_interval(interval)?);
        i64::try_from(local).map_err(|_| Error::TimeOutOfRange {
            type_name: "kuid64",
            range: KUID64_TIME_RANGE,
        })
    }

    pub fn parts(&self, interval: u32) -> Result<Kuid96Parts> {
        let (local, node) = remove_node(self.key(), check_interval(interval)?);
        let (time, seq) = kuid64_fields(local);
        Ok(Kuid96Parts {
            time: time.unix_micros(),
            node,
            seq,
        })
    }

    /// Microseconds since the Unix epoch of the value's time unit.
    pub fn timestamp(&self, interval: u32) -> Result<i64> {
        self.parts(interval).map(|p| p.time)
    }

    pub fn node(&self, interval: u32) -> Result<u32> {
        self.parts(interval).map(|p| p.node)
    }

    /// The sequence: the low 14 bits whatever the interval.
    pub fn seq(&self) -> u32 {
        self.key() as u32 & MAX_SEQ
    }

    /// The 16-character text form in a stack buffer.
    pub fn encode(&self) -> [u8; KUID96_TEXT_LEN] {
        KUID64.encode(self.key(), 96)
    }

    /// Strict decoding of the 16-character text form.
    pub fn decode(text: &[u8]) -> Option<Kuid96> {
        KUID64
            .decode::<KUID96_TEXT_LEN>(text, 96)
            .map(Kuid96::from_key)
    }
}

impl fmt::Display for Kuid96 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        // The alphabet is ASCII, so the buffer is always valid UTF-8.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for Kuid96 {
    type Err = Error;
    fn from_str(s: &str) -> Result<Kuid96> {
        Kuid96::decode(s.as_bytes())
            .ok_or_else(|| Error::invalid_text("kuid96", s, KUID96_EXPECTED_TEXT))
    }
}

// --- node fingerprint -------------------------------------------------------------

/// The 32-bit fingerprint of a node name: what the reference gets from
/// `erlang:phash2` of the node atom on OTP 25, i.e. the ELF hash of the
/// atom's Latin-1 bytes. UTF-8 sequences led by 0xC2/0xC3 are exactly the
/// Latin-1 characters 0x80–0xFF, so they count as their single Latin-1 byte.
pub fn node_fingerprint(name: &str) -> u32 {
    let bytes = name.as_bytes();
    let mut h: u32 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let (byte, width) = latin1_at(bytes, i);
        h = (h << 4).wrapping_add(byte as u32);
        let g = h & 0xF000_0000;
        if g != 0 {
            h ^= g >> 24;
            h ^= g;
        }
        i += width;
    }
    h
}

fn latin1_at(bytes: &[u8], i: usize) -> (u8, usize) {
    match (bytes[i], bytes.get(i + 1)) {
        (lead @ (0xC2 | 0xC3), Some(&next)) if next & 0xC0 == 0x80 => {
            ((lead & 0x03) << 6 | (next & 0x3F), 2)
        }
        (byte, _) => (byte, 1),
    }
}

// --- generators -------------------------------------------------------------------

/// kuid's time units, `unix_seconds · 1024 + (C >> 10)` (see
/// [`ErlangTime::monotonic_unit`]): C >> 10 only reaches 976, so units 977 to
/// 1023 of each second stand for no time, and logical time skips them.
#[derive(Debug, Clone, Copy)]
pub struct KuidTimeline {
    type_name: &'static str,
    megaseconds_limit: u32,
    range: &'static str,
}

pub const KUID64_TIMELINE: KuidTimeline = KuidTimeline {
    type_name: "kuid64",
    megaseconds_limit: KUID64_MEGASECONDS_LIMIT,
    range: KUID64_TIME_RANGE,
};

pub const KUID96_TIMELINE: KuidTimeline = KuidTimeline {
    type_name: "kuid96",
    megaseconds_limit: KUID96_MEGASECONDS_LIMIT,
    range: KUID96_TIME_RANGE,
};

/// The last unit of a second that stands for a time: 999 999 µs >> 10.
const LAST_UNIT_OF_A_SECOND: u64 = 976;

impl Timeline for KuidTimeline {
    fn name(&self) -> &'static str {
        self.type_name
    }
    fn unit_at(&self, unix_nanos: i64) -> Result<u64> {
        erlang_time_below(
            unix_nanos.div_euclid(1000),
            self.megaseconds_limit,
            self.type_name,
            self.range,
        )
        .map(|t| t.monotonic_unit())
    }
    fn start_of(&self, unit: u64) -> i128 {
        let (secs, units) = ((unit / 1024) as i128, (unit % 1024) as i128);
        secs * 1_000_000_000 + units * (UNIT_MICROS as i128) * 1000
    }
    fn after(&self, unit: u64) -> Result<u64> {
        // Checked: the last u64 units must not wrap to unit 0.
        let next = if unit % 1024 >= LAST_UNIT_OF_A_SECOND {
            (unit / 1024 + 1).checked_mul(1024)
        } else {
            unit.checked_add(1)
        }
        .ok_or_else(|| self.end())?;
        let start = i64::try_from(self.start_of(next)).map_err(|_| self.end())?;
        self.unit_at(start).map(|_| next)
    }
}

crate::generator::single_sequencer!(Kuid64Generator => SLOT_RULE, KUID64_TIMELINE);
crate::generator::single_sequencer!(Kuid96Generator => SLOT_RULE, KUID96_TIMELINE);

/// A per-process (or, in shared mode, per-server) kuid64 generator. The
/// reference's counter wraps inside a tick; this one waits instead.
#[derive(Debug, Clone, Copy)]
pub struct Kuid64Generator {
    assignment: SlotAssignment,
    sequencer: Sequencer,
}

impl Kuid64Generator {
    /// A generator for one slot that never uses `floor` or a unit below it.
    pub fn new(assignment: SlotAssignment, floor: u64) -> Self {
        Kuid64Generator {
            assignment,
            sequencer: Sequencer::new(Regression::Logical, assignment.range, floor),
        }
    }

    /// A generator for one slot whose floor is the clock's current unit
    /// (which it will not use): for applications that keep no durable mark.
    pub fn starting_now<C: Clock>(assignment: SlotAssignment, clock: &mut C) -> Result<Self> {
        let floor = KUID64_TIMELINE.unit_at(clock.now_nanos())?;
        Ok(Kuid64Generator::new(assignment, floor))
    }

    /// The next kuid64, waiting while a unit is used up.
    pub fn generate<C: Clock>(&mut self, clock: &mut C) -> Result<i64> {
        until_issued(clock, |clock| self.try_generate(clock, &Limits::NO_MARK))
    }

    /// One attempt without waiting (see [`Sequencer::try_next`]).
    #[inline]
    pub fn try_generate<C: Clock>(&mut self, clock: &mut C, limits: &Limits) -> Result<Step<i64>> {
        // The unit came from kuid64's timeline, so A < 2^19 and the value is positive.
        Ok(self
            .sequencer
            .try_next(clock, &KUID64_TIMELINE, limits)?
            .map(|s| local_bits(ErlangTime::from_monotonic_unit(s.unit), s.sequence()) as i64))
    }

    pub fn assignment(&self) -> SlotAssignment {
        self.assignment
    }

    pub fn state(&self) -> SequencerState {
        self.sequencer.state()
    }
}

/// A per-process (or per-server) kuid96 generator.
#[derive(Debug, Clone, Copy)]
pub struct Kuid96Generator {
    assignment: SlotAssignment,
    sequencer: Sequencer,
}

impl Kuid96Generator {
    /// A generator for one slot that never uses `floor` or a unit below it.
    pub fn new(assignment: SlotAssignment, floor: u64) -> Self {
        Kuid96Generator {
            assignment,
            sequencer: Sequencer::new(Regression::Logical, assignment.range, floor),
        }
    }

    /// A generator for one slot whose floor is the clock's current unit
    /// (which it will not use): for applications that keep no durable mark.
    pub fn starting_now<C: Clock>(assignment: SlotAssignment, clock: &mut C) -> Result<Self> {
        let floor = KUID96_TIMELINE.unit_at(clock.now_nanos())?;
        Ok(Kuid96Generator::new(assignment, floor))
    }

    /// The next kuid96 of `node` (a fingerprint) laid out for `interval`,
    /// waiting while a unit is used up.
    pub fn generate<C: Clock>(
        &mut self,
        clock: &mut C,
        node: u32,
        interval: u32,
    ) -> Result<Kuid96> {
        until_issued(clock, |clock| {
            self.try_generate(clock, &Limits::NO_MARK, node, interval)
        })
    }

    /// One attempt without waiting (see [`Sequencer::try_next`]).
    #[inline]
    pub fn try_generate<C: Clock>(
        &mut self,
        clock: &mut C,
        limits: &Limits,
        node: u32,
        interval: u32,
    ) -> Result<Step<Kuid96>> {
        Ok(self
            .try_generate_key(clock, limits, node, interval)?
            .map(Kuid96::from_key))
    }

    /// [`try_generate`](Self::try_generate) with the ID as its
    /// [`FlakeId::key`], the form the generation path carries it in.
    #[inline]
    pub fn try_generate_key<C: Clock>(
        &mut self,
        clock: &mut C,
        limits: &Limits,
        node: u32,
        interval: u32,
    ) -> Result<Step<u128>> {
        let interval = check_interval(interval)?;
        Ok(self
            .sequencer
            .try_next(clock, &KUID96_TIMELINE, limits)?
            .map(|s| {
                let time = ErlangTime::from_monotonic_unit(s.unit);
                Kuid96::key_of_fields(time, node, s.sequence(), interval)
            }))
    }

    pub fn assignment(&self) -> SlotAssignment {
        self.assignment
    }

    pub fn state(&self) -> SequencerState {
        self.sequencer.state()
    }
}
