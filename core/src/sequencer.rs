//! The one counter behind every coordination-based generator (README "Guarantees"; sno's tick-tock rule: docs/formats/sno.md#generation).
//!
//! A `Sequencer` hands out (time unit, sequence) pairs from its slot's
//! `SequenceRange`. It is created with the unit it was initialised in marked
//! as used up, so its first ID waits for the next unit and can never repeat
//! what a previous owner of the slot produced in that unit. A used-up unit is
//! never reopened: the generator waits for the clock instead of wrapping.

use crate::clock::{retry, Clock};
use crate::error::Result;
use crate::slot::SequenceRange;

/// What a generator does when the clock reads an earlier unit than the last
/// one it used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regression {
    /// Keep the last unit and keep counting in it; when its range is used up,
    /// wait until the clock passes it. IDs stay strictly increasing.
    HoldLastUnit,
    /// sno's rule: the first regression flips the tick-tock bit and continues
    /// at the earlier unit; a second regression into the window already used
    /// waits until the clock leaves it. Unique, but not ordered across it.
    TickTock,
}

/// One ID's worth of coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sequenced {
    pub unit: u64,
    pub sequence: u32,
    pub tick_tock: bool,
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
    /// TickTock: units up to here belong to the other tick-tock phase.
    safe: u64,
    /// TickTock: number of regressions; its lowest bit is the tick-tock bit.
    drift: u32,
    issued: u64,
}

/// A snapshot for `pg_flake_generator_state()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequencerState {
    pub range: SequenceRange,
    pub unit: u64,
    /// The last sequence value handed out in `unit`, if any.
    pub last_sequence: Option<u32>,
    pub tick_tock: bool,
    pub safe_unit: u64,
    pub issued: u64,
}

impl Sequencer {
    /// A sequencer initialised in unit `init_unit`, which it will not use.
    pub fn new(policy: Regression, range: SequenceRange, init_unit: u64) -> Self {
        Sequencer {
            policy,
            range,
            unit: init_unit,
            next: range.last as u64 + 1,
            safe: 0,
            drift: 0,
            issued: 0,
        }
    }

    /// Starts a sequencer at the clock's current unit.
    pub fn starting_now<C: Clock>(
        policy: Regression,
        range: SequenceRange,
        clock: &mut C,
        to_unit: impl Fn(i64) -> Result<u64>,
    ) -> Result<Self> {
        let unit = to_unit(clock.now_nanos())?;
        Ok(Self::new(policy, range, unit))
    }

    pub fn range(&self) -> SequenceRange {
        self.range
    }

    /// The next (unit, sequence) pair. `to_unit` turns a clock reading into the
    /// format's time unit, failing when the time is outside the format's range.
    /// Waits (pausing `clock`) while the unit is used up.
    pub fn next<C: Clock>(
        &mut self,
        clock: &mut C,
        to_unit: impl Fn(i64) -> Result<u64>,
    ) -> Result<Sequenced> {
        retry(clock, |clock| self.try_next(clock, &to_unit))
    }

    /// One attempt, without waiting: the next pair, or `None` when nothing may
    /// be handed out until the clock moves on (the unit's range is used up,
    /// or for `TickTock` the clock is back inside the window already used).
    /// `None` and errors change nothing.
    ///
    /// A reading behind the unit in use is taken again before it counts as a
    /// clock regression: in shared mode the first reading may come from
    /// before the lock (see [`crate::clock::ReadAhead`]), made stale by
    /// another caller's step in the meantime. The second reading is fresh.
    pub fn try_next<C: Clock>(
        &mut self,
        clock: &mut C,
        to_unit: impl Fn(i64) -> Result<u64>,
    ) -> Result<Option<Sequenced>> {
        let mut now = to_unit(clock.now_nanos())?;
        if now < self.unit {
            now = to_unit(clock.now_nanos())?;
        }
        Ok(self.step(now))
    }

    /// The step at the clock's unit `now`.
    fn step(&mut self, now: u64) -> Option<Sequenced> {
        if now > self.unit {
            self.unit = now;
            self.next = self.range.first as u64;
            return Some(self.take());
        }
        let exhausted = self.next > self.range.last as u64;
        match self.policy {
            Regression::HoldLastUnit => (!exhausted).then(|| self.take()),
            Regression::TickTock if now == self.unit => (!exhausted).then(|| self.take()),
            Regression::TickTock if now > self.safe => {
                self.safe = self.unit;
                self.unit = now;
                self.next = self.range.first as u64;
                self.drift = self.drift.wrapping_add(1);
                Some(self.take())
            }
            Regression::TickTock => None,
        }
    }

    fn take(&mut self) -> Sequenced {
        let sequence = self.next as u32;
        self.next += 1;
        self.issued += 1;
        Sequenced {
            unit: self.unit,
            sequence,
            tick_tock: self.drift & 1 == 1,
        }
    }

    pub fn state(&self) -> SequencerState {
        let used = self.next > self.range.first as u64 && self.issued > 0;
        SequencerState {
            range: self.range,
            unit: self.unit,
            last_sequence: used.then(|| (self.next - 1) as u32),
            tick_tock: self.drift & 1 == 1,
            safe_unit: self.safe,
            issued: self.issued,
        }
    }
}
