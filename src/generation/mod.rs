//! The coordination-based generators as a server runs them (docs/guarantees.md
//! "Guarantees", docs/operations.md "Shared mode"): one generator per format
//! for the whole server, in shared memory behind a spinlock, whether or not
//! pg_flake is preloaded (preloaded: memory reserved at the server's start;
//! not preloaded: a DSM segment the first backend makes, named on 17+,
//! pinned and recorded in a file on 15 and 16). Earlier versions gave each
//! backend a generator of its own on 15 and 16 without preloading, which
//! split every time unit between the backends (issue "no cliff").
//!
//! Every generator keeps a durable mark ([`crate::marks`], and in the WAL
//! when preloaded, [`crate::marks::wal`]): it never uses a unit above the mark
//! before a higher mark is recorded, and it starts above the mark a previous
//! run left, whatever the clock says.
//!
//! A format declares its generator as a `static` [`Generator`];
//! the registry (`src/registry.rs`) lists them, and `_PG_init` hands that list
//! to [`register`]. Nothing here knows the formats.

mod counters;
mod generator;
mod recording;
mod registry;
mod set_mark;
mod settings;
mod shared;
mod stats;
pub use counters::unix_micros_now;

use crate::marks::{self, Marks};
use crate::plumbing::clock::BackendClock;
use crate::plumbing::native_type::datum_of_key;
use flake_core::clock::{Clock, ReadAhead};
use flake_core::generator::{MarkedGenerator, SlotGenerator, SHARED_SLOT};
use flake_core::sequencer::{Limits, Step};
use flake_core::{Error, FlakeId};
pub use generator::Generator;
use pgrx::pg_sys;
pub use registry::{learn, register, set_mark, ServerGenerator, StateRow, StatsRow};
pub use settings::define_settings;
use settings::max_lead_nanos;
use shared::{backend_pid, finish_recording};
use std::sync::atomic::Ordering;

/// One attempt's outcome without its error, which [`Attempt::of`] leaves
/// in the caller's `failure`: the path of every ID then moves no
/// `flake_core::Error`-sized `Result` out of the locked block
/// (docs/BENCHMARKS.md "Generation profile").
enum Attempt<T> {
    /// The ID, and the unit a higher mark is due for, if one is.
    Issued(T, Option<u64>),
    Wait,
    Extend(u64),
    Failed,
}

impl<T> Attempt<T> {
    #[inline(always)]
    fn of(
        result: flake_core::Result<Step<T>>,
        failure: &mut Option<Error>,
        extension_due: impl FnOnce() -> Option<u64>,
    ) -> Self {
        match result {
            Ok(Step::Issued(id)) => Attempt::Issued(id, extension_due()),
            Ok(Step::Wait) => Attempt::Wait,
            Ok(Step::Extend(unit)) => Attempt::Extend(unit),
            Err(e) => {
                *failure = Some(e);
                Attempt::Failed
            }
        }
    }
}

/// What [`Attempt::of`] left.
#[cold]
fn failed(failure: Option<Error>) -> Error {
    failure.unwrap_or_else(|| Error::Internal {
        message: "pg_flake: a generator's attempt failed without an error".into(),
    })
}

impl<G: SlotGenerator> Generator<G> {
    /// Runs `step` (one attempt of the generator's non-blocking
    /// `try_generate`) until it issues an ID, pausing while a unit is used up
    /// (at most one unit) and recording a higher mark when the generator
    /// reaches its mark (docs/guarantees.md "Guarantees").
    ///
    /// In shared mode each attempt reads the clock, then holds the spinlock
    /// for one step of the server's generator: arithmetic only (a second
    /// clock reading if the first one turns out stale), nothing that can
    /// wait, raise, panic or allocate on the success path. Pauses, errors
    /// and the recording of marks come after the lock is released.
    pub fn generate<T>(
        &'static self,
        mut step: impl FnMut(
            &mut G,
            &mut ReadAhead<BackendClock>,
            &Limits,
        ) -> flake_core::Result<Step<T>>,
    ) -> T {
        let mut clock = BackendClock::new();
        let max_lead = max_lead_nanos();
        // Written only where an attempt fails (see `Attempt`).
        let mut failure = None;
        let shared = self.server();
        let mut waited = false;
        loop {
            let attempt = {
                let mut clock = ReadAhead::new(&mut clock);
                let mut generator = shared.generator.lock();
                let result = generator.try_generate(&mut clock, max_lead, &mut step);
                Attempt::of(result, &mut failure, || generator.extension_due())
            };
            match attempt {
                Attempt::Issued(id, due) => {
                    if let Some(unit) = due {
                        self.extend_shared(shared, unit, false);
                    }
                    return id;
                }
                Attempt::Wait => {
                    if !waited {
                        waited = true;
                        shared.stats.count_wait();
                    }
                    clock.pause()
                }
                Attempt::Extend(unit) => self.extend_shared(shared, unit, true),
                Attempt::Failed => self.refuse(failed(failure)),
            }
        }
    }

    /// [`generate`](Self::generate) for a format of 9 to 16 bytes, into its
    /// datum: the ID is carried as its [`FlakeId::key`] from the step to the
    /// datum, in registers. As a byte array it went through memory twice on
    /// the way, written in pieces and read back in 8-byte loads across them,
    /// each load waiting for the stores (docs/BENCHMARKS.md "Generation
    /// profile").
    #[inline(always)]
    pub fn generate_datum<I: FlakeId>(
        &'static self,
        step: impl FnMut(
            &mut G,
            &mut ReadAhead<BackendClock>,
            &Limits,
        ) -> flake_core::Result<Step<u128>>,
    ) -> pg_sys::Datum {
        datum_of_key::<I>(self.generate(step))
    }

    /// A copy of the server's generator, taken under its lock.
    fn snapshot(&self) -> MarkedGenerator<G> {
        *self.server().generator.lock()
    }
}

impl<G: SlotGenerator> ServerGenerator for Generator<G> {
    fn format(&self) -> &'static str {
        self.format
    }

    fn abandon_recording(&self) {
        // The state this backend attached, if any: nothing is attached at
        // exit.
        // SAFETY: as in `shared`.
        if let Some(shared) = unsafe { self.shared.load(Ordering::Acquire).as_ref() } {
            if shared.recorder.load(Ordering::Relaxed) == backend_pid() {
                finish_recording(shared);
            }
        }
    }

    fn learn(&self, mark: u64, node: Option<u32>) {
        if let Some(shared) = self.shared() {
            shared.generator.lock().learn(mark);
        }
        let learned = Marks::recover(self.format, mark).and_then(|marks| {
            marks.extend(mark)?;
            match node {
                Some(node) => crate::node::lineage::replayed(&marks, self.format, node),
                None => Ok(()),
            }
        });
        if let Err(e) = learned {
            marks::failed(self.format, e);
        }
    }

    fn set_mark(&self, unix_nanos: i64) -> (Option<u64>, u64, i128) {
        self.set_mark_now(unix_nanos)
    }

    fn set_from_wal(&self, mark: u64, node: Option<u32>) {
        self.set_mark_from_wal(mark, node)
    }

    fn stats(&self) -> StatsRow {
        self.stats_row()
    }

    fn reset_stats(&self, unix_micros: i64) {
        self.reset_stats_at(unix_micros)
    }

    fn state_rows(&self) -> Vec<StateRow> {
        let generator = self.snapshot();
        generator
            .generator()
            .sequencers()
            .into_iter()
            // A shared generator exists from server start: it shows from
            // then on (issued 0), with its mark, also while the clock is too
            // far behind for it to issue anything.
            .map(|sequencer| StateRow {
                format: self.format,
                slot: SHARED_SLOT.0,
                nslots: SHARED_SLOT.1,
                mark: generator.mark(),
                mark_nanos: G::start_of(generator.mark()),
                sequencer,
            })
            .collect()
    }
}
