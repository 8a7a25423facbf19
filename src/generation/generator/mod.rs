//! A coordination-based generator as a server runs it, [`Generator`], and
//! its server-wide state in shared memory, [`ServerState`]: this file holds
//! the types, and every `impl` of them is in this folder, one file per
//! concern:
//! - `generate.rs`: an ID (`generate`, `generate_datum`), the node its IDs
//!   carry (`generating_node`), a refusal (`refuse`);
//! - `recording.rs`: a higher mark, recorded by one backend at a time while
//!   the others wait cancellably (`extend_shared`, `record_mark`), and a
//!   mark learned from the WAL's replay (`learn_replayed`);
//! - `set_mark.rs`: `pg_flake_set_mark`, and its replay;
//! - `shared_state.rs`: the state's set-up in shared memory from the marks
//!   file, and its last mark at shutdown (the [`SharedState`] it is);
//! - `report.rs`: what an operator reads of it: its rows of
//!   `pg_flake_generator_state()` and `pg_flake_stats`, and their reset;
//! - `counters.rs`: the counters its state holds for `pg_flake_stats`;
//! - `registered.rs`: the [`ServerGenerator`] it is, what the registry of
//!   live generators (`src/generation/registry.rs`) calls of it.
//!
//! [`SharedState`]: crate::plumbing::shmem::SharedState
//! [`ServerGenerator`]: crate::generation::ServerGenerator

pub(super) mod counters;
mod generate;
mod recording;
mod registered;
mod report;
mod set_mark;
mod shared_state;

use crate::node::NodeField;
use crate::plumbing::backend::errors::internal;
use crate::plumbing::shmem;
use crate::plumbing::shmem::spinlock::SpinLocked;
use counters::Counters;
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
    format: &'static str,
    node: &'static NodeField,
    shared: AtomicPtr<ServerState<G>>,
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
    fn server(&self) -> &ServerState<G> {
        self.shared().unwrap_or_else(|| {
            internal(format!(
                "pg_flake: the {} generator has no shared memory",
                self.format
            ))
        })
    }

    /// The server-wide state, once attached.
    fn shared(&self) -> Option<&ServerState<G>> {
        shmem::attach_dynamic();
        // SAFETY: set by `attach` to shared memory that lives as long as the
        // process; the generator behind it is reached only under its lock.
        unsafe { self.shared.load(Ordering::Acquire).as_ref() }
    }

    /// A copy of the server's generator, taken under its lock.
    fn snapshot(&self) -> MarkedGenerator<G> {
        *self.server().generator.lock()
    }
}

/// A generator's server-wide state: the generator with its mark behind a
/// spinlock, and who records a higher mark (file and WAL I/O, and under
/// synchronous replication the standbys' confirmation: never under the
/// spinlock, and never under a lock others wait for uncancellably).
#[repr(C)]
struct ServerState<G> {
    generator: SpinLocked<MarkedGenerator<G>>,
    /// The pid of the one backend recording a higher mark, 0 if none;
    /// changed only under `generator`'s spinlock, so that claiming it and
    /// seeing the mark it must raise are one step.
    recorder: AtomicI32,
    /// Broadcast when a recorder is done, whether it recorded, failed or
    /// exited: backends that need a higher mark sleep on it, cancellably
    /// (`ConditionVariableSleep` checks for interrupts).
    recorded: pg_sys::ConditionVariable,
    /// Whether the generator's floor is the marks file's mark: false where
    /// the file could not be read when the state was set up (docs/guarantees.md
    /// "Restarts, crashes and the clock"); the first recording reads it
    /// again before anything is issued.
    floor_known: AtomicBool,
    /// What it counts for `pg_flake_stats` (`counters.rs`, read in `report.rs`).
    stats: Counters,
}
