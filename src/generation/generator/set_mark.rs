//! `pg_flake_set_mark`, the operator's deliberate step (docs/guarantees.md
//! "Restarts, crashes and the clock"), and its replay: the generator's
//! server-wide state starts over above the mark.
//!
//! A set mark, lower or higher, must hold:
//! - **no recorder in flight:** the backend that sets it is the
//!   generator's recorder meanwhile (it waits, cancellably, for one
//!   that records), so no mark computed from the old generator reaches the
//!   new file or the new generator after it;
//! - **exactly, in the WAL:** it is written as a set record, which replay
//!   (crash recovery, standbys) applies exactly, where a mark record only
//!   raises; the new file goes in place first, so a failure before the
//!   record leaves the standbys above the primary, never below it;

use super::recording::{abandon_recordings_at_exit, backend_pid, Recording};
use super::report::sequencer_counts;
use super::{Generator, ServerState};
use crate::marks::{self, wal, Marks, MarksError};
use crate::plumbing::backend::errors::{raise, OrRaise};
use flake_core::generator::{MarkedGenerator, SlotGenerator, SHARED_SLOT};
use pgrx::pg_sys;
use std::sync::atomic::Ordering;

impl<G: SlotGenerator> Generator<G> {
    /// [`ServerGenerator::set_mark`](crate::generation::ServerGenerator::set_mark).
    pub(super) fn set_mark_now(&self, unix_nanos: i64) -> (Option<u64>, u64, i128) {
        let unit = G::unit_at(unix_nanos).or_raise();
        let shared = self.server();
        let recording = become_recorder(shared);
        // Held while the file is replaced: nobody records meanwhile.
        let previous = match Marks::lock_interruptible(self.format) {
            Err(e) if matches!(MarksError::of(&e), Some(MarksError::EarlierLibraryRun)) => {
                drop(recording);
                raise(marks::beside_earlier_library(self.format))
            }
            locked => locked.ok(),
        };
        // A backend of an earlier library generated the format in this
        // server run, with a slot of the file: the new file would drop the
        // slots that keep this generator below it, so the set waits for the
        // restart that ends that run (issue 49, item 7; docs/sql-reference.md
        // "Generator state").
        if previous
            .as_ref()
            .is_some_and(|m| m.earlier_library_generated().unwrap_or(false))
        {
            drop(previous);
            drop(recording);
            raise(marks::beside_earlier_library(self.format));
        }
        let old = previous.as_ref().and_then(|m| m.global().ok());
        let nodes = previous
            .as_ref()
            .and_then(|m| m.nodes().ok())
            .unwrap_or_default();
        if let Err(e) = Marks::replace(self.format, unit, nodes) {
            drop(previous);
            marks::failed(self.format, e);
        }
        reset(shared, unit);
        drop(previous);
        // Still the recorder: no mark record of the old generator follows.
        wal::log_set(self.format, unit, self.node.announced());
        drop(recording);
        (old, unit, G::start_of(unit))
    }

    /// [`ServerGenerator::set_from_wal`](crate::generation::ServerGenerator::set_from_wal):
    /// replay of a set record, in the startup process. A server that
    /// generated the format with a node of its own while in recovery (a
    /// standby, docs/operations.md "Standbys and failover") keeps its mark,
    /// which covers its own IDs too, and only learns the record's.
    pub(super) fn set_mark_from_wal(&self, mark: u64, node: Option<u32>) {
        // The old file's lock (if it can be read) while it is replaced: a
        // backend of a standby that starts to generate waits for it.
        let previous = Marks::lock(self.format).ok();
        match crate::node::lineage::generated_here(self.format) {
            Ok(false) => {}
            Ok(true) => {
                drop(previous);
                return self.learn_replayed(mark, node);
            }
            Err(e) => {
                drop(previous);
                marks::failed(self.format, e);
            }
        }
        let nodes = previous
            .as_ref()
            .and_then(|m| m.nodes().ok())
            .unwrap_or_default();
        if let Err(e) = Marks::replace(self.format, mark, nodes) {
            drop(previous);
            marks::failed(self.format, e);
        }
        if let Some(shared) = self.shared() {
            reset(shared, mark);
        }
        drop(previous);
        pgrx::log!(
            "pg_flake: the {} mark was set to unit {mark} by a pg_flake_set_mark replayed from the WAL",
            self.format
        );
        if let Some(node) = node {
            let replayed = Marks::lock(self.format)
                .and_then(|marks| crate::node::lineage::replayed(&marks, self.format, node));
            if let Err(e) = replayed {
                marks::failed(self.format, e);
            }
        }
    }
}

/// Shared mode: waits (cancellably, on the condition variable) until no
/// backend records a mark, and becomes the recorder itself until the
/// returned guard goes.
fn become_recorder<G: Copy>(shared: &ServerState<G>) -> Recording<'_, G> {
    abandon_recordings_at_exit();
    let cv = (&raw const shared.recorded).cast_mut();
    let me = backend_pid();
    loop {
        let free = {
            let _locked = shared.generator.lock();
            let free = shared.recorder.load(Ordering::Relaxed) == 0;
            if free {
                shared.recorder.store(me, Ordering::Relaxed);
            }
            free
        };
        if free {
            break;
        }
        // SAFETY: an initialised condition variable; the first call only
        // prepares to sleep; an interrupt raises here.
        unsafe { pg_sys::ConditionVariableSleep(cv, pg_sys::PG_WAIT_EXTENSION) };
    }
    // SAFETY: leaves the condition variable's wait list, if on it.
    unsafe { pg_sys::ConditionVariableCancelSleep() };
    Recording { shared }
}

/// Shared mode: the server's generator starts over above `unit`, the clock
/// taken as it is from its next mark on. Its statistics go on: what the old
/// sequencers counted is carried into the counters' baselines.
fn reset<G: SlotGenerator>(shared: &ServerState<G>, unit: u64) {
    // Made before the spinlock is taken: nothing raises under it.
    let generator = MarkedGenerator::above(SHARED_SLOT.0, SHARED_SLOT.1, unit).or_raise();
    {
        let mut locked = shared.generator.lock();
        let (issued, steps_back, _) = sequencer_counts(locked.generator());
        shared.stats.carry_over(issued, steps_back);
        *locked = generator;
    }
    shared.floor_known.store(true, Ordering::Release);
}
