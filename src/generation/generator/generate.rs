//! What a caller of a format's generator gets: an ID ([`Generator::generate`],
//! into a datum [`Generator::generate_datum`]), the node its IDs carry
//! ([`Generator::generating_node`]), or a refusal, raised and counted in the
//! generator's statistics ([`Generator::refuse`]).

use super::Generator;
use crate::generation::clock_settings::max_lead_nanos;
use crate::plumbing::backend::clock::BackendClock;
use crate::plumbing::backend::errors::raise;
use crate::plumbing::fmgr::native_type::datum_of_key;
use flake_core::clock::{Clock, ReadAhead};
use flake_core::generator::SlotGenerator;
use flake_core::sequencer::{Limits, Step};
use flake_core::{Error, FlakeId};
use pgrx::pg_sys;

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

    /// Raises `error` as the refusal of this format's generation, counted
    /// in its statistics (by SQLSTATE). The server-wide state is attached
    /// for it if it is not yet (a backend's first ID, refused for its node).
    #[cold]
    pub fn refuse(&self, error: Error) -> ! {
        if let Some(shared) = self.shared() {
            shared.stats.count_refusal(error.kind());
        }
        raise(error)
    }

    /// The node this format's IDs carry (`NodeField::generating_node`),
    /// its refusal counted.
    #[inline(always)]
    pub fn generating_node(&self) -> u32 {
        match self.node.generating_node() {
            Ok(node) => node,
            Err(e) => self.refuse(e),
        }
    }
}
