//! What every coordination-based generator offers (README "Guarantees"), and
//! the state of a server-wide generator in shared mode (README "Shared mode").
//!
//! This module is a mechanism: the formats implement [`SlotGenerator`] for
//! their generators (most with [`single_sequencer!`](crate::single_sequencer)),
//! never the other way round.
//!
//! A generator is plain data: `Copy`, without pointers or anything to drop.
//! Per backend it lives in the backend's memory; in shared mode one
//! [`SharedGenerator`] per format lives in shared memory, behind a lock that
//! is held for one step of the format's sequencer, never while waiting.

use crate::clock::Clock;
use crate::error::Result;
use crate::sequencer::SequencerState;
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
/// sequencer (SIQ: one per kind).
pub trait SlotGenerator: Copy {
    /// The generator of slot `slot` of `nslots` (22023 if the slots do not
    /// fit the format), initialised at the clock's current unit, which it
    /// will not use.
    fn for_slot<C: Clock>(slot: u32, nslots: u32, clock: &mut C) -> Result<Self>;

    /// Its sequencers that exist so far.
    fn sequencers(&self) -> Vec<SequencerRow>;
}

/// Implements [`SlotGenerator`] for a generator counting with one sequencer:
/// `single_sequencer!(SnoGenerator => SLOT_RULE)`. The generator needs
/// `new(assignment, clock)`, `assignment()` and `state()`.
#[macro_export]
#[doc(hidden)]
macro_rules! single_sequencer {
    ($generator:ty => $rule:expr) => {
        impl $crate::generator::SlotGenerator for $generator {
            fn for_slot<C: $crate::clock::Clock>(
                slot: u32,
                nslots: u32,
                clock: &mut C,
            ) -> $crate::Result<Self> {
                <$generator>::new($rule.assign(slot, nslots)?, clock)
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

/// The slot of a server-wide generator, and the number of slots: the whole
/// process field value 0 and the whole sequence space.
pub const SHARED_SLOT: (u32, u32) = (0, 1);

/// A server-wide generator (shared mode): slot 0 of 1, so every caller counts
/// on the same sequencer and IDs strictly increase across all of them (sno:
/// unique, and ordered except across a clock regression).
///
/// It is plain data, meant to live in shared memory behind a lock. Callers
/// drive it with [`crate::clock::retry`]: each attempt reads the clock, takes
/// the lock, calls [`SharedGenerator::try_generate`] and lets go; the pause
/// between attempts happens outside the lock.
#[derive(Debug, Clone, Copy)]
pub struct SharedGenerator<G> {
    generator: Option<G>,
}

impl<G: SlotGenerator> SharedGenerator<G> {
    /// The state at server start: the generator is initialised now, so the
    /// current unit counts as used (IDs of a previous run of the server, up
    /// to this unit, can never be repeated). If the clock is outside the
    /// format's range, the generator is made on first use instead.
    pub fn starting_now<C: Clock>(clock: &mut C) -> Self {
        SharedGenerator {
            generator: G::for_slot(SHARED_SLOT.0, SHARED_SLOT.1, clock).ok(),
        }
    }

    /// One attempt, meant to run under the lock: one step of `step` (a
    /// generator's `try_generate`) with `clock`. `Ok(None)`: release the lock,
    /// pause, try again. Never waits and never panics; errors (time outside
    /// the format's range) leave the state unchanged.
    ///
    /// `clock` is best a [`ReadAhead`](crate::clock::ReadAhead) whose reading
    /// was taken before the lock, so that the lock is not held while the clock
    /// is read. A reading made stale by other callers' steps in the meantime
    /// is taken again under the lock (the generator finds it behind its last
    /// unit), so it never passes for a clock regression (for sno, a needless
    /// flip of the tick-tock bit).
    pub fn try_generate<C: Clock, T>(
        &mut self,
        clock: &mut C,
        step: impl FnOnce(&mut G, &mut C) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        let generator = match &mut self.generator {
            Some(generator) => generator,
            empty => empty.insert(G::for_slot(SHARED_SLOT.0, SHARED_SLOT.1, clock)?),
        };
        step(generator, clock)
    }

    /// The generator, once made.
    pub fn generator(&self) -> Option<&G> {
        self.generator.as_ref()
    }
}
