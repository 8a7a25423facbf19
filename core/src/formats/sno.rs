//! sno (muyo/sno v1.2.1): 80 bits = 39-bit 4 ms units since 2010-01-01 and a
//! tick-tock bit, a metabyte, a 16-bit partition and a 16-bit sequence.
//! Text form "sno32": 16 characters over `23456789abcdefghijklmnopqrstuvwx`.

use crate::clock::Clock;
use crate::codec::Alphabet;
use crate::error::{Error, Result};
use crate::flake_id::FlakeId;
use crate::sequencer::{
    until_issued, Limits, Regression, Sequencer, SequencerState, Step, Timeline,
};
use crate::slot::{SlotAssignment, SlotRule};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sno([u8; 10]);

// The partition: one server's, between the time and meta byte and the
// sequence.
crate::flake_id::fixed_id!(
    Sno,
    10,
    "sno",
    abbreviation = crate::sortkey::Abbreviation::FromBase(crate::sortkey::ServerField {
        shift: 16,
        width: 16
    })
);

/// 2010-01-01T00:00:00Z in nanoseconds since the Unix epoch.
pub const EPOCH_NANOS: i128 = 1_262_304_000_000_000_000;
pub const UNIT_NANOS: i128 = 4_000_000;
pub const MAX_UNITS: u64 = (1 << 39) - 1;
pub const TIME_RANGE: &str = "2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00";

/// Process field: the partition's low byte; sequence: 16 bits.
pub const SLOT_RULE: SlotRule = SlotRule::new(8, 16);

const SNO32: Alphabet = Alphabet::new(b"23456789abcdefghijklmnopqrstuvwx");
const TEXT_LEN: usize = 16;
const EXPECTED_TEXT: &str = "16 characters from 2-9 and a-x";

/// The 4 ms unit containing `unix_nanos`, if inside the format's range.
pub fn units_at(unix_nanos: i128) -> Result<u64> {
    let since = unix_nanos - EPOCH_NANOS;
    if since < 0 || since / UNIT_NANOS > MAX_UNITS as i128 {
        return Err(Error::TimeOutOfRange {
            type_name: "sno",
            range: TIME_RANGE,
        });
    }
    Ok((since / UNIT_NANOS) as u64)
}

impl Sno {
    #[inline]
    pub fn from_parts(
        units: u64,
        tick_tock: bool,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> Result<Sno> {
        Sno::key_of_parts(units, tick_tock, meta, partition, sequence).map(Sno::from_key)
    }

    /// The [`FlakeId::key`] of [`from_parts`](Self::from_parts).
    #[inline(always)]
    fn key_of_parts(
        units: u64,
        tick_tock: bool,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> Result<u128> {
        if units > MAX_UNITS {
            return Err(Error::TimeOutOfRange {
                type_name: "sno",
                range: TIME_RANGE,
            });
        }
        Ok(u128::from(units << 1 | tick_tock as u64) << 40
            | u128::from(meta) << 32
            | u128::from(partition) << 16
            | u128::from(sequence))
    }

    /// The smallest sno at `unix_nanos` (every other field zero).
    pub fn from_time(unix_nanos: i128) -> Result<Sno> {
        Sno::from_parts(units_at(unix_nanos)?, false, 0, 0, 0)
    }

    fn head(&self) -> u64 {
        let mut h = [0u8; 8];
        h[3..].copy_from_slice(&self.0[..5]);
        u64::from_be_bytes(h)
    }

    pub fn units(&self) -> u64 {
        self.head() >> 1
    }

    pub fn tick_tock(&self) -> bool {
        self.head() & 1 == 1
    }

    pub fn meta(&self) -> u8 {
        self.0[5]
    }

    pub fn partition(&self) -> u16 {
        u16::from_be_bytes([self.0[6], self.0[7]])
    }

    pub fn sequence(&self) -> u16 {
        u16::from_be_bytes([self.0[8], self.0[9]])
    }

    /// Start of the value's 4 ms unit, in nanoseconds since the Unix epoch.
    pub fn unix_nanos(&self) -> i128 {
        EPOCH_NANOS + self.units() as i128 * UNIT_NANOS
    }

    pub fn unix_micros(&self) -> i64 {
        (self.unix_nanos() / 1000) as i64
    }

    /// The 16-character text form, in a stack buffer.
    pub fn encode(&self) -> [u8; TEXT_LEN] {
        SNO32.encode(self.key(), 80)
    }

    /// Strict decoding of the 16-character text form.
    pub fn decode(text: &[u8]) -> Option<Sno> {
        SNO32.decode::<TEXT_LEN>(text, 80).map(Sno::from_key)
    }
}

impl fmt::Display for Sno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        // The alphabet is ASCII, so the buffer is always valid UTF-8.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for Sno {
    type Err = Error;
    fn from_str(s: &str) -> Result<Sno> {
        Sno::decode(s.as_bytes()).ok_or_else(|| Error::invalid_text("sno", s, EXPECTED_TEXT))
    }
}

/// sno's time units: 4 ms since 2010-01-01.
#[derive(Debug, Clone, Copy, Default)]
pub struct SnoTimeline;

impl Timeline for SnoTimeline {
    fn name(&self) -> &'static str {
        "sno"
    }
    fn unit_at(&self, unix_nanos: i64) -> Result<u64> {
        units_at(unix_nanos as i128)
    }
    fn start_of(&self, unit: u64) -> i128 {
        EPOCH_NANOS + unit as i128 * UNIT_NANOS
    }
}

crate::generator::single_sequencer!(SnoGenerator => SLOT_RULE, SnoTimeline);

/// A per-process (or, in shared mode, per-server) sno generator.
#[derive(Debug, Clone, Copy)]
pub struct SnoGenerator {
    assignment: SlotAssignment,
    sequencer: Sequencer,
}

impl SnoGenerator {
    /// A generator for one slot that never uses `floor` or a unit below it.
    pub fn new(assignment: SlotAssignment, floor: u64) -> Self {
        SnoGenerator {
            assignment,
            sequencer: Sequencer::new(Regression::TickTock, assignment.range, floor),
        }
    }

    /// A generator for one slot whose floor is the clock's current unit
    /// (which it will not use): for applications that keep no durable mark.
    pub fn starting_now<C: Clock>(assignment: SlotAssignment, clock: &mut C) -> Result<Self> {
        Ok(SnoGenerator::new(
            assignment,
            SnoTimeline.unit_at(clock.now_nanos())?,
        ))
    }

    /// The next sno, waiting while a unit is used up (no durable mark,
    /// logical time bounded by [`DEFAULT_MAX_LEAD`](crate::sequencer::DEFAULT_MAX_LEAD)).
    /// `node` is the partition's high byte.
    pub fn generate<C: Clock>(&mut self, clock: &mut C, node: u8, meta: u8) -> Result<Sno> {
        until_issued(clock, |clock| {
            self.try_generate(clock, &Limits::NO_MARK, node, meta)
        })
    }

    /// One attempt without waiting (see [`Sequencer::try_next`]).
    #[inline]
    pub fn try_generate<C: Clock>(
        &mut self,
        clock: &mut C,
        limits: &Limits,
        node: u8,
        meta: u8,
    ) -> Result<Step<Sno>> {
        Ok(self
            .try_generate_key(clock, limits, node, meta)?
            .map(Sno::from_key))
    }

    /// [`try_generate`](Self::try_generate) with the ID as its
    /// [`FlakeId::key`], the form the generation path carries it in.
    #[inline]
    pub fn try_generate_key<C: Clock>(
        &mut self,
        clock: &mut C,
        limits: &Limits,
        node: u8,
        meta: u8,
    ) -> Result<Step<u128>> {
        let partition = (node as u16) << 8 | self.assignment.process as u16;
        self.sequencer
            .try_next(clock, &SnoTimeline, limits)?
            .and_then(|s| {
                Sno::key_of_parts(s.unit, s.tick_tock(), meta, partition, s.sequence() as u16)
            })
    }

    pub fn assignment(&self) -> SlotAssignment {
        self.assignment
    }

    pub fn state(&self) -> SequencerState {
        self.sequencer.state()
    }
}
