//! Snowflake, Discord flavour (SUOU `suou.snowflake`): a positive `bigint`
//! `ms << 22 | worker << 17 | process << 12 | sequence`, with `ms` the
//! milliseconds since a configurable epoch (Discord's by default).

use crate::clock::Clock;
use crate::error::{field_in_range, non_negative, Error, Result};
use crate::sequencer::{
    until_issued, Limits, Regression, Sequencer, SequencerState, Step, Timeline,
};
use crate::slot::{SlotAssignment, SlotRule};

/// 2015-01-01T00:00:00Z in milliseconds since the Unix epoch (Discord's).
pub const DEFAULT_EPOCH_MILLIS: i64 = 1_420_070_400_000;
/// Below 2^41 so that the `bigint` never turns negative.
pub const MAX_MILLIS: i64 = (1 << 41) - 1;
pub const MAX_WORKER: i64 = 31;
pub const MAX_PROCESS: i64 = 31;
pub const MAX_SEQUENCE: i64 = 4095;
pub const TIME_RANGE: &str =
    "the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)";

/// Epochs from 1970-01-01 to 9999-12-31 23:59:59.999 UTC, so that every
/// snowflake time (up to 2^41 ms after its epoch) is a valid timestamp.
pub const EPOCH_RANGE_MS: std::ops::RangeInclusive<i64> = 0..=253_402_300_799_999;
/// What an epoch setting accepts, for a rejected value's detail line.
pub const EPOCH_ACCEPTED: &str = "A snowflake epoch is an integer number of milliseconds since \
     1970-01-01 00:00:00 UTC, from 0 to 253402300799999 (9999-12-31 23:59:59.999 UTC).";

/// An epoch argument or setting, in milliseconds since the Unix epoch
/// (22023 outside [`EPOCH_RANGE_MS`]).
pub fn check_epoch(epoch_ms: i64) -> Result<i64> {
    if EPOCH_RANGE_MS.contains(&epoch_ms) {
        Ok(epoch_ms)
    } else {
        Err(Error::InvalidParameter {
            message: format!(
                "snowflake epoch {epoch_ms} is outside 0 to 253402300799999 \
                 (milliseconds since 1970-01-01 00:00:00 UTC, up to 9999-12-31)"
            ),
        })
    }
}

/// Process field: the 5-bit process id; sequence: 12 bits.
pub const SLOT_RULE: SlotRule = SlotRule::new(5, 12);

const TYPE_NAME: &str = "snowflake";

/// The fields of a snowflake, as `snowflake_parts` returns them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnowflakeParts {
    /// Microseconds since the Unix epoch (start of the millisecond).
    pub time: i64,
    pub worker: u32,
    pub process: u32,
    pub sequence: u32,
}

fn time_out_of_range() -> Error {
    Error::TimeOutOfRange {
        type_name: TYPE_NAME,
        range: TIME_RANGE,
    }
}

/// Milliseconds since `epoch_ms` of `unix_millis`, if a snowflake can hold it.
pub fn millis_since_epoch(unix_millis: i64, epoch_ms: i64) -> Result<i64> {
    let since = unix_millis as i128 - epoch_ms as i128;
    if !(0..=MAX_MILLIS as i128).contains(&since) {
        return Err(time_out_of_range());
    }
    Ok(since as i64)
}

/// The snowflake of `unix_millis` with the given fields. The reference
/// reduces worker and process modulo 32; pg_flake refuses them (22003).
pub fn from_parts(
    unix_millis: i64,
    worker: i64,
    process: i64,
    sequence: i64,
    epoch_ms: i64,
) -> Result<i64> {
    let worker = field_in_range(TYPE_NAME, "worker", worker as i128, 0, MAX_WORKER as i128)?;
    let process = field_in_range(
        TYPE_NAME,
        "process",
        process as i128,
        0,
        MAX_PROCESS as i128,
    )?;
    let sequence = field_in_range(
        TYPE_NAME,
        "sequence",
        sequence as i128,
        0,
        MAX_SEQUENCE as i128,
    )?;
    let millis = millis_since_epoch(unix_millis, epoch_ms)?;
    Ok(millis << 22 | (worker as i64) << 17 | (process as i64) << 12 | sequence as i64)
}

/// The smallest snowflake at `unix_micros` (rounded down to the millisecond).
pub fn from_time(unix_micros: i64, epoch_ms: i64) -> Result<i64> {
    from_parts(unix_micros.div_euclid(1000), 0, 0, 0, epoch_ms)
}

/// The fields of a snowflake; a negative `bigint` is none (22003).
pub fn parts(snowflake: i64, epoch_ms: i64) -> Result<SnowflakeParts> {
    non_negative(TYPE_NAME, snowflake)?;
    let unix_millis = epoch_ms
        .checked_add(snowflake >> 22)
        .ok_or_else(time_out_of_range)?;
    Ok(SnowflakeParts {
        time: unix_millis
            .checked_mul(1000)
            .ok_or_else(time_out_of_range)?,
        worker: (snowflake >> 17) as u32 & 31,
        process: (snowflake >> 12) as u32 & 31,
        sequence: snowflake as u32 & 4095,
    })
}

/// Microseconds since the Unix epoch of the snowflake's millisecond.
pub fn timestamp(snowflake: i64, epoch_ms: i64) -> Result<i64> {
    parts(snowflake, epoch_ms).map(|p| p.time)
}

/// Snowflake's time units: the Unix millisecond rather than the epoch's, so
/// a change of epoch setting cannot move a generator's notion of "later".
/// With an epoch, readings outside what a snowflake of that epoch can hold
/// are errors (checked before a sequence value is spent).
#[derive(Debug, Clone, Copy, Default)]
pub struct SnowflakeTimeline {
    pub epoch_ms: Option<i64>,
}

impl Timeline for SnowflakeTimeline {
    fn name(&self) -> &'static str {
        TYPE_NAME
    }
    fn unit_at(&self, unix_nanos: i64) -> Result<u64> {
        let unit =
            u64::try_from(unix_nanos.div_euclid(1_000_000)).map_err(|_| time_out_of_range())?;
        if let Some(epoch_ms) = self.epoch_ms {
            millis_since_epoch(unit as i64, epoch_ms)?;
        }
        Ok(unit)
    }
    fn start_of(&self, unit: u64) -> i128 {
        unit as i128 * 1_000_000
    }
}

crate::generator::single_sequencer!(SnowflakeGenerator => SLOT_RULE, SnowflakeTimeline { epoch_ms: None });

/// A per-process (or, in shared mode, per-server) snowflake generator. The
/// reference repeats IDs within a millisecond; this one waits instead.
#[derive(Debug, Clone, Copy)]
pub struct SnowflakeGenerator {
    assignment: SlotAssignment,
    sequencer: Sequencer,
}

impl SnowflakeGenerator {
    /// A generator for one slot that never uses `floor` or a unit below it.
    pub fn new(assignment: SlotAssignment, floor: u64) -> Self {
        SnowflakeGenerator {
            assignment,
            sequencer: Sequencer::new(Regression::Logical, assignment.range, floor),
        }
    }

    /// A generator for one slot whose floor is the clock's current unit
    /// (which it will not use): for applications that keep no durable mark.
    pub fn starting_now<C: Clock>(assignment: SlotAssignment, clock: &mut C) -> Result<Self> {
        let floor = SnowflakeTimeline::default().unit_at(clock.now_nanos())?;
        Ok(SnowflakeGenerator::new(assignment, floor))
    }

    /// The next snowflake, waiting while a unit is used up. `worker` is the
    /// server's number, the process field is the slot's.
    pub fn generate<C: Clock>(&mut self, clock: &mut C, worker: i64, epoch_ms: i64) -> Result<i64> {
        until_issued(clock, |clock| {
            self.try_generate(clock, &Limits::NO_MARK, worker, epoch_ms)
        })
    }

    /// One attempt without waiting (see [`Sequencer::try_next`]).
    #[inline]
    pub fn try_generate<C: Clock>(
        &mut self,
        clock: &mut C,
        limits: &Limits,
        worker: i64,
        epoch_ms: i64,
    ) -> Result<Step<i64>> {
        field_in_range(TYPE_NAME, "worker", worker as i128, 0, MAX_WORKER as i128)?;
        let timeline = SnowflakeTimeline {
            epoch_ms: Some(epoch_ms),
        };
        self.sequencer
            .try_next(clock, &timeline, limits)?
            .and_then(|s| {
                from_parts(
                    s.unit as i64,
                    worker,
                    self.assignment.process as i64,
                    s.sequence() as i64,
                    epoch_ms,
                )
            })
    }

    pub fn assignment(&self) -> SlotAssignment {
        self.assignment
    }

    pub fn state(&self) -> SequencerState {
        self.sequencer.state()
    }
}
