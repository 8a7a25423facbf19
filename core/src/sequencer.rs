//! The one counter behind every coordination-based generator (docs/guarantees.md
//! "Guarantees"; sno's tick-tock rule: docs/formats/sno.md#generation).
//!
//! A `Sequencer` hands out (time unit, sequence) pairs from its slot's
//! `SequenceRange`. It starts above a *floor*: a unit it will never use (the
//! unit it was made in, or the durable mark of a previous run), so its first
//! ID can never repeat what an earlier owner of the slot produced. A used-up
//! unit is never reopened.
//!
//! Time is a hybrid logical clock: the sequencer follows the clock while the
//! clock moves forward, and when the clock is behind the unit in use it goes
//! on in logical time above it (the rest of the unit's sequence, then the
//! next unit, and so on), so IDs stay unique and increasing without waiting
//! for the clock. [`Limits`] bound that: logical time may run at most
//! `max_lead` ahead of the clock (beyond, [`Error::ClockBehind`]), and no
//! unit above the durable `mark` is used before a higher mark is recorded
//! ([`Step::Extend`]).

use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::slot::SequenceRange;

/// A format's time units, for the clock and for logical time.
pub trait Timeline {
    /// The format's name, for errors.
    fn name(&self) -> &'static str;
    /// The unit containing `unix_nanos`; an error outside the format's range.
    fn unit_at(&self, unix_nanos: i64) -> Result<u64>;
    /// The first nanosecond of `unit` since the Unix epoch.
    fn start_of(&self, unit: u64) -> i128;
    /// The unit after `unit` in logical time: the next one that stands for a
    /// time, or an error (22008) beyond the format's range — also for the
    /// last `u64`, which must not wrap to unit 0.
    fn after(&self, unit: u64) -> Result<u64> {
        let next = unit.checked_add(1).ok_or_else(|| self.end())?;
        // A unit starting beyond the clock's range is beyond what any clock
        // reading reaches: refused rather than taken for the clock's end
        // (SIQ's 56-bit ticks would overflow).
        let start = i64::try_from(self.start_of(next)).map_err(|_| self.end())?;
        self.unit_at(start).map(|_| next)
    }
    /// The error for a unit beyond the format's range, or beyond the
    /// clock's (22008).
    fn end(&self) -> Error {
        match self.unit_at(i64::MAX) {
            Err(e) => e,
            Ok(_) => Error::TimeOutOfRange {
                type_name: self.name(),
                range: "up to 2262-04-11 23:47:16.854775807+00, the end of the clock's range",
            },
        }
    }
}

/// What a generator does when the clock reads an earlier unit than the last
/// one it used. Either way it never waits for the clock to come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regression {
    /// Go on in logical time above the last unit (every format but sno).
    /// IDs stay strictly increasing.
    Logical,
    /// sno's rule: the first regression flips the tick-tock bit and
    /// continues at the earlier unit, at once; a regression into a window
    /// already used in the flipped phase, or to or below the floor, goes on
    /// in logical time instead. Unique, but not ordered across a flip.
    TickTock,
}

/// What bounds the next step (docs/guarantees.md "Guarantees").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The highest unit that may be used before a higher mark is durable.
    pub mark: u64,
    /// How far, in nanoseconds, logical time may run ahead of the clock.
    pub max_lead: i64,
}

/// The bound on logical time when nothing else is said: one minute.
pub const DEFAULT_MAX_LEAD: i64 = 60_000_000_000;

impl Limits {
    /// No durable mark to respect (an application's generator), logical time
    /// bounded by [`DEFAULT_MAX_LEAD`].
    pub const NO_MARK: Limits = Limits {
        mark: u64::MAX,
        max_lead: DEFAULT_MAX_LEAD,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::NO_MARK
    }
}

/// The outcome of one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<T> {
    /// Handed out.
    Issued(T),
    /// Nothing until the clock reaches the next unit (at most one unit).
    Wait,
    /// Unit `.0` lies above the mark: record a higher mark durably, then try
    /// again. Nothing was handed out.
    Extend(u64),
}

impl<T> Step<T> {
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Step<U> {
        match self {
            Step::Issued(t) => Step::Issued(f(t)),
            Step::Wait => Step::Wait,
            Step::Extend(unit) => Step::Extend(unit),
        }
    }

    /// A step whose value may fail to be built (a field out of range).
    pub fn and_then<U>(self, f: impl FnOnce(T) -> Result<U>) -> Result<Step<U>> {
        Ok(match self {
            Step::Issued(t) => Step::Issued(f(t)?),
            Step::Wait => Step::Wait,
            Step::Extend(unit) => Step::Extend(unit),
        })
    }
}

/// Runs `attempt` until it issues, pausing `clock` while it waits: the
/// blocking `generate` of a generator that keeps no durable mark (with
/// [`Limits::NO_MARK`] no attempt answers `Extend`).
pub fn until_issued<C: Clock, T>(
    clock: &mut C,
    mut attempt: impl FnMut(&mut C) -> Result<Step<T>>,
) -> Result<T> {
    loop {
        match attempt(clock)? {
            Step::Issued(value) => return Ok(value),
            Step::Wait | Step::Extend(_) => clock.pause(),
        }
    }
}

/// One ID's worth of coordinates: the unit, and the sequence with the
/// tick-tock bit in one 64-bit word. Two words, each written and read whole:
/// the step's fast path and its slow path meet in memory, and a `u32` and a
/// `bool` written apart and read back as one word made every ID wait for
/// the two stores (docs/BENCHMARKS.md "Generation profile").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sequenced {
    pub unit: u64,
    sequence_and_tick_tock: u64,
}

impl Sequenced {
    #[inline(always)]
    pub fn new(unit: u64, sequence: u32, tick_tock: bool) -> Self {
        Sequenced {
            unit,
            sequence_and_tick_tock: u64::from(tick_tock) << 32 | u64::from(sequence),
        }
    }

    #[inline(always)]
    pub fn sequence(&self) -> u32 {
        self.sequence_and_tick_tock as u32
    }

    #[inline(always)]
    pub fn tick_tock(&self) -> bool {
        self.sequence_and_tick_tock >> 32 != 0
    }
}

/// Plain data (`Copy`, no pointers), so that in shared mode it can live in
/// shared memory.
#[derive(Debug, Clone, Copy)]
pub struct Sequencer {
    policy: Regression,
    range: SequenceRange,
    /// The unit IDs are currently being made in (`wall_hi` in sno's terms).
    unit: u64,
    /// The next sequence value; `range.last + 1` when the unit is used up.
    next: u64,
    /// Units at or below are never used, in either tick-tock phase.
    floor: u64,
    /// TickTock: units up to here belong to the other tick-tock phase.
    safe: u64,
    /// TickTock: number of regressions; its lowest bit is the tick-tock bit.
    drift: u32,
    issued: u64,
    /// How far the last ID ran ahead of the clock, in nanoseconds (0 when
    /// the clock was inside or past its unit).
    lead: i64,
    /// The instants of the unit in use (Unix ns, the end exclusive), kept
    /// from its first ID on; empty (start after end) before.
    span: (i64, i64),
    /// The clock's unit at the last step that read the clock and issued.
    clock_unit: u64,
    /// How many times the clock read a unit before `clock_unit`: steps back
    /// of the clock seen (docs/sql-reference.md "Statistics").
    steps_back: u64,
}

/// [`Sequencer`]'s `span` where it is not known.
const NO_SPAN: (i64, i64) = (i64::MAX, i64::MIN);

/// A snapshot for `pg_flake_generator_state()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequencerState {
    pub range: SequenceRange,
    pub unit: u64,
    /// The last sequence value handed out in `unit`, if any.
    pub last_sequence: Option<u32>,
    pub tick_tock: bool,
    pub safe_unit: u64,
    pub floor: u64,
    pub issued: u64,
    /// How far the last ID ran ahead of the clock, in nanoseconds.
    pub lead: i64,
    /// Steps back of the clock seen: readings of a unit before the one an
    /// earlier issuing step read.
    pub steps_back: u64,
}

impl Sequencer {
    /// A sequencer that never uses `floor` or any unit below it.
    pub fn new(policy: Regression, range: SequenceRange, floor: u64) -> Self {
        Sequencer {
            policy,
            range,
            unit: floor,
            next: range.last as u64 + 1,
            floor,
            safe: 0,
            drift: 0,
            issued: 0,
            lead: 0,
            span: NO_SPAN,
            clock_unit: 0,
            steps_back: 0,
        }
    }

    /// A sequencer whose floor is the clock's current unit.
    pub fn starting_now<C: Clock>(
        policy: Regression,
        range: SequenceRange,
        clock: &mut C,
        timeline: &impl Timeline,
    ) -> Result<Self> {
        let unit = timeline.unit_at(clock.now_nanos())?;
        Ok(Self::new(policy, range, unit))
    }

    pub fn range(&self) -> SequenceRange {
        self.range
    }

    /// The unit in use (the floor before the first ID).
    pub fn unit(&self) -> u64 {
        self.unit
    }

    /// The highest unit used (or the floor): after a tick-tock flip the
    /// unit in use may lie below units used before it.
    #[inline]
    pub fn highest(&self) -> u64 {
        self.unit.max(self.safe)
    }

    /// Raises the floor to `floor` (a mark learned later, e.g. replayed from
    /// another server's WAL): no unit at or below it is used from now on.
    pub fn raise_floor(&mut self, floor: u64) {
        if floor > self.floor {
            self.floor = floor;
        }
        if floor >= self.unit {
            self.unit = floor;
            self.next = self.range.last as u64 + 1;
            self.span = NO_SPAN;
        }
    }

    /// One attempt, without waiting: the next pair, [`Step::Wait`] when the
    /// unit in use is used up and the clock is inside it, or
    /// [`Step::Extend`] when the pair would lie above `limits.mark`. Only
    /// `Issued` changes what the sequencer issues next (a refusal for the
    /// clock counts its step back).
    ///
    /// A reading that is not the unit in use is taken again before it
    /// counts: in shared mode the first reading may come from before the
    /// lock (see [`crate::clock::ReadAhead`]), made stale by another
    /// caller's step or by a clock step in the meantime; the second reading
    /// is fresh. That costs a clock reading per change of unit, not per ID.
    ///
    /// Where the clock can tell the earliest and latest time it can read
    /// ([`Clock::bounds_nanos`]), both lie inside the unit in use and the
    /// unit has room, the step is the one a reading would give, without one
    /// (docs/guarantees.md "What an ID's time is"): the unit's next value.
    #[inline(always)]
    pub fn try_next<C: Clock>(
        &mut self,
        clock: &mut C,
        timeline: &impl Timeline,
        limits: &Limits,
    ) -> Result<Step<Sequenced>> {
        if let Some((earliest, latest)) = clock.bounds_nanos() {
            let inside = earliest >= self.span.0 && latest < self.span.1;
            if inside && self.next <= self.range.last as u64 && self.unit <= limits.mark {
                self.lead = 0;
                return Ok(Step::Issued(self.take()));
            }
        }
        self.read_and_step(clock, timeline, limits)
    }

    /// [`try_next`](Self::try_next) with a reading of the clock.
    #[inline(never)]
    fn read_and_step<C: Clock>(
        &mut self,
        clock: &mut C,
        timeline: &impl Timeline,
        limits: &Limits,
    ) -> Result<Step<Sequenced>> {
        let mut nanos = clock.now_nanos();
        let mut now = timeline.unit_at(nanos)?;
        if now != self.unit {
            nanos = clock.now_nanos();
            now = timeline.unit_at(nanos)?;
        }
        self.step(now, nanos, timeline, limits)
    }

    /// Whether a regression to `now` may flip the tick-tock bit.
    fn may_flip(&self, now: u64) -> bool {
        self.policy == Regression::TickTock && now > self.safe && now > self.floor
    }

    /// The step at the clock's unit `now`, read at `nanos`.
    fn step(
        &mut self,
        now: u64,
        nanos: i64,
        timeline: &impl Timeline,
        limits: &Limits,
    ) -> Result<Step<Sequenced>> {
        let room = self.next <= self.range.last as u64;
        let first = self.range.first as u64;
        // (unit, next sequence, flip the tick-tock bit)
        let (unit, next, flip) = if now > self.unit {
            (now, first, false)
        } else if now < self.unit && self.may_flip(now) {
            (now, first, true)
        } else if room {
            (self.unit, self.next, false)
        } else if now == self.unit {
            return Ok(Step::Wait);
        } else {
            (timeline.after(self.unit)?, first, false)
        };
        let lead = if unit > now {
            (timeline.start_of(unit) - nanos as i128).clamp(0, i64::MAX as i128) as i64
        } else {
            0
        };
        if lead > limits.max_lead {
            // A fresh reading (it is not the unit in use): the step back
            // that stops generation counts too.
            self.note_clock(now);
            return Err(Error::ClockBehind {
                type_name: timeline.name(),
                lead_nanos: lead,
                max_lead_nanos: limits.max_lead,
            });
        }
        if unit > limits.mark {
            return Ok(Step::Extend(unit));
        }
        if flip {
            self.safe = self.unit;
            self.drift = self.drift.wrapping_add(1);
        }
        if unit != self.unit || self.span == NO_SPAN {
            let nanos = |unit: u64| timeline.start_of(unit).clamp(0, i64::MAX as i128) as i64;
            self.span = (nanos(unit), nanos(unit.saturating_add(1)));
        }
        self.note_clock(now);
        self.unit = unit;
        self.next = next;
        self.lead = lead;
        Ok(Step::Issued(self.take()))
    }

    /// Counts a step back of the clock: a reading of an earlier unit than
    /// the last step that issued (or refused for the clock) read. Only
    /// those steps note their reading, which is either fresh (taken under
    /// the caller's lock) or of the unit in use (see
    /// [`try_next`](Self::try_next)), never below an earlier noted one
    /// unless the clock went back: a reading taken before another caller's
    /// step is never counted. A step back shorter than a unit is not seen,
    /// and needs not be (the unit in use goes on).
    fn note_clock(&mut self, now: u64) {
        if now < self.clock_unit {
            self.steps_back += 1;
        }
        self.clock_unit = now;
    }

    #[inline(always)]
    fn take(&mut self) -> Sequenced {
        let sequence = self.next as u32;
        self.next += 1;
        self.issued += 1;
        Sequenced::new(self.unit, sequence, self.drift & 1 == 1)
    }

    pub fn state(&self) -> SequencerState {
        let used = self.next > self.range.first as u64 && self.issued > 0;
        SequencerState {
            range: self.range,
            unit: self.unit,
            last_sequence: used.then(|| (self.next - 1) as u32),
            tick_tock: self.drift & 1 == 1,
            safe_unit: self.safe,
            floor: self.floor,
            issued: self.issued,
            lead: self.lead,
            steps_back: self.steps_back,
        }
    }
}
