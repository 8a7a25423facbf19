//! What every coordination-based generator offers (docs/guarantees.md "Guarantees"), and
//! the durable mark that keeps a restarted generator from reissuing an ID.
//!
//! This module is a mechanism: the formats implement [`SlotGenerator`] for
//! their generators (most with `single_sequencer!`),
//! never the other way round.
//!
//! A generator is plain data: `Copy`, without pointers or anything to drop.
//! Per backend it lives in the backend's memory; in shared mode one
//! [`MarkedGenerator`] per format lives in shared memory, behind a lock that
//! is held for one step of the format's sequencer, never while waiting.

use crate::clock::{Clock, ClockReference};
use crate::error::{Error, Result};
use crate::sequencer::{Limits, SequencerState, Step};
use crate::slot::SlotAssignment;

/// One sequencer of a generator, as `pg_flake_generator_state()` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequencerRow {
    /// The SIQ kind the sequencer counts for; `None` for the other formats.
    pub kind: Option<&'static str>,
    pub assignment: SlotAssignment,
    pub state: SequencerState,
}

/// A coordination-based generator: made for one slot, counting with one
/// sequencer (SIQ: one per kind), in the format's time units.
pub trait SlotGenerator: Copy {
    /// The format's name, for errors.
    fn name() -> &'static str;

    /// The generator of slot `slot` of `nslots` (22023 if the slots do not
    /// fit the format) that never uses `floor` or a unit below it.
    fn for_slot(slot: u32, nslots: u32, floor: u64) -> Result<Self>;

    /// The format's unit containing a clock reading (an error outside the
    /// format's range).
    fn unit_at(unix_nanos: i64) -> Result<u64>;

    /// The first nanosecond of `unit` since the Unix epoch.
    fn start_of(unit: u64) -> i128;

    /// Raises the floor: no unit at or below `floor` is used from now on.
    fn raise_floor(&mut self, floor: u64);

    /// The highest unit any of its sequencers has used (its floor before
    /// the first ID).
    fn last_unit(&self) -> u64;

    /// Its sequencers that exist so far.
    fn sequencers(&self) -> Vec<SequencerRow>;

    /// The unit that contains the instant `nanos` after the start of `unit`,
    /// saturated at the format's last unit: a mark never names a unit
    /// beyond the format's range, where the next unit would wrap (docs/guarantees.md
    /// "Restarts, crashes and the clock"). A `unit` beyond the range itself
    /// (a mark from elsewhere) is answered unchanged.
    fn unit_after(unit: u64, nanos: i64) -> u64 {
        let from = Self::start_of(unit).clamp(0, i64::MAX as i128) as i64;
        let at = (from as i128 + nanos as i128).clamp(0, i64::MAX as i128) as i64;
        if let Ok(after) = Self::unit_at(at) {
            return after.max(unit);
        }
        if Self::unit_at(from).is_err() {
            return unit;
        }
        // The last reading in range, between `from` (in range) and `at`
        // (beyond): the range ends once, so a bisection finds it.
        let (mut inside, mut beyond) = (from, at);
        while beyond - inside > 1 {
            let middle = inside + (beyond - inside) / 2;
            if Self::unit_at(middle).is_ok() {
                inside = middle;
            } else {
                beyond = middle;
            }
        }
        Self::unit_at(inside).map_or(unit, |last| last.max(unit))
    }
}

/// Implements [`SlotGenerator`] for a generator counting with one sequencer:
/// `single_sequencer!(SnoGenerator => SLOT_RULE, Timeline)`. The generator
/// needs `new(assignment, floor)`, `assignment()`, `state()` and a
/// `sequencer` field; `Timeline` is the format's [`Timeline`](crate::sequencer::Timeline).
macro_rules! single_sequencer {
    ($generator:ty => $rule:expr, $timeline:expr) => {
        impl $crate::generator::SlotGenerator for $generator {
            fn name() -> &'static str {
                $crate::sequencer::Timeline::name(&$timeline)
            }

            fn for_slot(slot: u32, nslots: u32, floor: u64) -> $crate::error::Result<Self> {
                Ok(<$generator>::new($rule.assign(slot, nslots)?, floor))
            }

            fn unit_at(unix_nanos: i64) -> $crate::error::Result<u64> {
                $crate::sequencer::Timeline::unit_at(&$timeline, unix_nanos)
            }

            fn start_of(unit: u64) -> i128 {
                $crate::sequencer::Timeline::start_of(&$timeline, unit)
            }

            fn raise_floor(&mut self, floor: u64) {
                self.sequencer.raise_floor(floor)
            }

            #[inline]
            fn last_unit(&self) -> u64 {
                self.sequencer.highest()
            }

            fn sequencers(&self) -> Vec<$crate::generator::SequencerRow> {
                vec![$crate::generator::SequencerRow {
                    kind: None,
                    assignment: self.assignment(),
                    state: self.state(),
                }]
            }
        }
    };
}
pub(crate) use single_sequencer;

/// The slot of a server-wide generator, and the number of slots: the whole
/// process field value 0 and the whole sequence space.
pub const SHARED_SLOT: (u32, u32) = (0, 1);

/// How far ahead of the unit in use a mark is set when it moves: once per
/// second of IDs at most, not per ID (docs/guarantees.md "Guarantees").
pub const LEASE_NANOS: i64 = 1_000_000_000;

/// A generator with its durable mark: the highest unit it may use before a
/// higher mark has been recorded where a restart (or a promoted standby)
/// will find it. The mark moves a lease ahead of the unit in use, and half a
/// lease before it is reached ([`MarkedGenerator::extension_due`]), so that
/// in steady state nobody waits for it.
///
/// Plain data, meant to live in a backend (per-backend mode) or in shared
/// memory behind a lock (shared mode: slot 0 of 1, so every caller counts on
/// the same sequencers and IDs strictly increase across all of them; sno:
/// unique, and ordered except across a tick-tock flip). Callers drive it
/// with [`crate::clock::retry`]-style loops: each attempt reads the clock,
/// takes the lock, calls [`MarkedGenerator::try_generate`] and lets go; the
/// pause between attempts, and the recording of a mark, happen outside the
/// lock.
#[derive(Debug, Clone, Copy)]
pub struct MarkedGenerator<G> {
    generator: G,
    mark: u64,
    /// Units below this one are known not to need a higher mark yet: the
    /// mark only rises, so once [`MarkedGenerator::extension_due`] found a
    /// unit quiet it stays quiet, and the next IDs of that unit skip the
    /// format's unit arithmetic (docs/BENCHMARKS.md "Generation profile").
    quiet_below: u64,
    /// Tells a step of the real-time clock from time passing, before a mark
    /// is recorded ([`MarkedGenerator::check_clock`]).
    clock: ClockReference,
}

impl<G: SlotGenerator> MarkedGenerator<G> {
    /// The generator of slot `slot` of `nslots` after a run whose IDs lie at
    /// or below `floor` (the mark it left): it uses no unit at or below it,
    /// and its own mark starts there.
    pub fn above(slot: u32, nslots: u32, floor: u64) -> Result<Self> {
        Ok(MarkedGenerator {
            generator: G::for_slot(slot, nslots, floor)?,
            mark: floor,
            quiet_below: 0,
            clock: ClockReference::NONE,
        })
    }

    /// To be called before a higher mark is recorded (and once where a run
    /// begins, to take the reference then): an error (55000) if the
    /// real-time clock moved more than `max_jump` nanoseconds further than
    /// the monotonic clock since the reference was taken (0: no check), so
    /// that a clock set years ahead does not carry the mark with it (docs/guarantees.md
    /// "Restarts, crashes and the clock"). Without a reference (the first
    /// call of a run) the clock is taken as it is. Changes nothing but the
    /// reference.
    pub fn check_clock<C: Clock>(&mut self, clock: &mut C, max_jump: i64) -> Result<()> {
        match self.clock.check(clock, max_jump) {
            None => Ok(()),
            Some(jump_nanos) => Err(Error::ClockJumped {
                type_name: G::name(),
                jump_nanos,
                max_jump_nanos: max_jump,
            }),
        }
    }

    /// The reference [`check_clock`](Self::check_clock) compares with.
    pub fn clock_reference(&self) -> ClockReference {
        self.clock
    }

    /// Replaces the reference: per backend, with the server's, kept in the
    /// marks file, so that every backend compares with the same one.
    pub fn set_clock_reference(&mut self, reference: ClockReference) {
        self.clock = reference;
    }

    /// Takes the clock as it is from now on: after an administrator moved
    /// the mark to the clock's new time deliberately (`pg_flake_set_mark`).
    pub fn forget_clock(&mut self) {
        self.clock.forget();
    }

    /// One attempt, meant to run under the lock: one step of `step` (a
    /// generator's `try_generate`) within the mark and `max_lead`. Never
    /// waits and never panics; `Wait`, `Extend` and errors leave the state
    /// unchanged.
    ///
    /// `clock` is best a [`ReadAhead`](crate::clock::ReadAhead) whose reading
    /// was taken before the lock, so that the lock is not held while the
    /// clock is read (a stale reading is taken again under the lock, see
    /// [`Sequencer::try_next`](crate::sequencer::Sequencer::try_next)).
    pub fn try_generate<C, T>(
        &mut self,
        clock: &mut C,
        max_lead: i64,
        step: impl FnOnce(&mut G, &mut C, &Limits) -> Result<Step<T>>,
    ) -> Result<Step<T>> {
        let limits = Limits {
            mark: self.mark,
            max_lead,
        };
        step(&mut self.generator, clock, &limits)
    }

    /// The durable mark.
    pub fn mark(&self) -> u64 {
        self.mark
    }

    /// The mark to record so that `unit` may be used: a lease beyond the
    /// later of `unit` and the unit in use.
    pub fn lease_for(&self, unit: u64) -> u64 {
        G::unit_after(unit.max(self.generator.last_unit()), LEASE_NANOS)
    }

    /// Whether the unit in use is within half a lease of the mark: the
    /// caller should record [`lease_for`](Self::lease_for) of it now, while
    /// IDs can still be issued, so that nobody waits for the mark later.
    pub fn extension_due(&mut self) -> Option<u64> {
        let unit = self.generator.last_unit();
        if unit < self.quiet_below {
            return None;
        }
        if G::unit_after(unit, LEASE_NANOS / 2) > self.mark {
            return Some(unit);
        }
        self.quiet_below = unit.saturating_add(1);
        None
    }

    /// After `mark` has been recorded durably: units up to it may be used.
    pub fn extend_to(&mut self, mark: u64) {
        self.mark = self.mark.max(mark);
    }

    /// A mark learned from elsewhere (replayed from WAL): units up to it may
    /// have been used by another server with this one's identity, so this
    /// generator never uses them.
    pub fn learn(&mut self, mark: u64) {
        self.generator.raise_floor(mark);
        self.extend_to(mark);
    }

    /// The generator.
    pub fn generator(&self) -> &G {
        &self.generator
    }
}
