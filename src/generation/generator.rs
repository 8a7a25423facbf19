//! A coordination-based generator and its server-wide state in shared
//! memory. The types only: what is done with them is in `mod.rs` (an ID),
//! `shared.rs` (a higher mark, one recorder at a time) and `set_mark.rs`.

use super::counters::Counters;
use crate::node::NodeField;
use crate::plumbing::errors::internal;
use crate::plumbing::shared_memory;
use crate::plumbing::spinlock::SpinLocked;
use flake_core::generator::{MarkedGenerator, SlotGenerator};
use pgrx::pg_sys;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};

/// A coordination-based generator of one format, one for the whole server
/// once attached to shared memory (docs/operations.md "Shared mode"). A format declares it as a `static` of its node field, which
/// names the format and gives the node its mark records carry:
/// `pub static GENERATOR: Generator<SnoGenerator> = Generator::new(&NODE);`.
///
/// The spinlock is held for one step of the sequencer, tens of instructions;
/// an LWLock was measured as well and was no faster (`docs/BENCHMARKS.md`).
pub struct Generator<G: 'static> {
    pub(super) format: &'static str,
    pub(super) node: &'static NodeField,
    pub(super) shared: AtomicPtr<ServerState<G>>,
}

impl<G: SlotGenerator> Generator<G> {
    pub const fn new(node: &'static NodeField) -> Self {
        Generator {
            format: node.format,
            node,
            shared: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The server-wide state: attached in every backend from its first ID
    /// on (a backend without preloading makes or finds the segment then).
    pub(super) fn server(&self) -> &ServerState<G> {
        self.shared().unwrap_or_else(|| {
            internal(format!(
                "pg_flake: the {} generator has no shared memory",
                self.format
            ))
        })
    }

    /// The server-wide state, once attached.
    pub(super) fn shared(&self) -> Option<&ServerState<G>> {
        shared_memory::attach_dynamic();
        // SAFETY: set by `attach` to shared memory that lives as long as the
        // process; the generator behind it is reached only under its lock.
        unsafe { self.shared.load(Ordering::Acquire).as_ref() }
    }
}

/// A generator's server-wide state: the generator with its mark behind a
/// spinlock, and who records a higher mark (file and WAL I/O, and under
/// synchronous replication the standbys' confirmation: never under the
/// spinlock, and never under a lock others wait for uncancellably).
#[repr(C)]
pub(super) struct ServerState<G> {
    pub(super) generator: SpinLocked<MarkedGenerator<G>>,
    /// The pid of the one backend recording a higher mark, 0 if none;
    /// changed only under `generator`'s spinlock, so that claiming it and
    /// seeing the mark it must raise are one step.
    pub(super) recorder: AtomicI32,
    /// Broadcast when a recorder is done, whether it recorded, failed or
    /// exited: backends that need a higher mark sleep on it, cancellably
    /// (`ConditionVariableSleep` checks for interrupts).
    pub(super) recorded: pg_sys::ConditionVariable,
    /// Whether the generator's floor is the marks file's mark: false where
    /// the file could not be read when the state was set up (docs/guarantees.md
    /// "Restarts, crashes and the clock"); the first recording reads it
    /// again before anything is issued.
    pub(super) floor_known: AtomicBool,
    /// What it counts for `pg_flake_stats` (`stats.rs`).
    pub(super) stats: Counters,
}
