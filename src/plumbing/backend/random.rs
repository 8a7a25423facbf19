//! The backend's CSPRNG, shared by the random formats (flaxid,
//! distributed_id, distributed_id128; docs/guarantees.md "Guarantees"): the
//! core's `OsRandom`, one per backend, named as core/src/random.rs.

use crate::plumbing::backend::clock::{BackendClock, ONE_MILLISECOND};
use crate::plumbing::backend::errors::OrRaise;
use flake_core::random::OsRandom;
use pgrx::pg_sys;
use std::cell::RefCell;
use std::thread::LocalKey;

thread_local! {
    /// Seeded from the operating system on first use in this backend (and
    /// reseeded if the process id changes), so no two backends share a
    /// stream.
    static RANDOM: RefCell<Option<OsRandom>> = const { RefCell::new(None) };
}

/// This backend's process id as PostgreSQL keeps it (set in every new
/// backend), read without a system call.
fn backend_pid() -> u32 {
    // SAFETY: a plain global of the backend, set before any SQL runs.
    unsafe { pg_sys::MyProcPid as u32 }
}

/// Runs `f` with this backend's CSPRNG.
pub fn with_random<T>(f: impl FnOnce(&mut OsRandom) -> T) -> T {
    RANDOM.with_borrow_mut(|random| {
        f(random.get_or_insert_with(|| OsRandom::with_process_id(backend_pid)))
    })
}

/// Runs `step` on the random-based generator kept in `cell` (DistributedId,
/// DistributedId128), with the backend's CSPRNG and a clock whose pauses
/// sleep 1 ms, as the reference does.
pub fn with_random_generator<G, T>(
    cell: &'static LocalKey<RefCell<G>>,
    step: impl FnOnce(&mut G, &mut BackendClock, &mut OsRandom) -> flake_core::Result<T>,
) -> T {
    let mut clock = BackendClock::pausing(ONE_MILLISECOND);
    cell.with_borrow_mut(|generator| with_random(|random| step(generator, &mut clock, random)))
        .or_raise()
}
