//! The clock generators read in a backend: the real-time clock, with pauses
//! that honour cancel requests and `statement_timeout`, and the bounds of
//! what it can read told by the time-stamp counter (docs/guarantees.md "What an
//! ID's time is"). Named as core/src/clock.rs, whose `Clock` it is.

use crate::plumbing::backend::local::BackendLocal;
use flake_core::clock::{system_monotonic_nanos, Clock, PAUSE};
use flake_core::tsc::TscBound;
use std::time::Duration;

/// The backend's counter bound, one for all its generators: it learns the
/// counter's rate once per backend.
static TSC: BackendLocal<TscBound> = BackendLocal::new(TscBound::new());

/// The real-time clock; a pause sleeps and then checks for interrupts.
#[derive(Debug, Clone, Copy)]
pub struct BackendClock {
    pause: Duration,
}

/// DistributedId's and DistributedId128's wait: the reference sleeps 1 ms.
pub const ONE_MILLISECOND: Duration = Duration::from_millis(1);

impl BackendClock {
    /// Pauses of `clock::PAUSE` (20 µs): the coordination-based formats wait
    /// for the end of a short time unit.
    pub const fn new() -> Self {
        BackendClock::pausing(PAUSE)
    }

    /// Pauses of `pause`, for generators whose reference sleeps a fixed time.
    pub const fn pausing(pause: Duration) -> Self {
        BackendClock { pause }
    }
}

impl Default for BackendClock {
    fn default() -> Self {
        BackendClock::new()
    }
}

impl Clock for BackendClock {
    fn now_nanos(&mut self) -> i64 {
        TSC.with_borrow_mut(TscBound::read)
    }
    fn pause(&mut self) {
        std::thread::sleep(self.pause);
        pgrx::check_for_interrupts!();
    }
    fn monotonic_nanos(&mut self) -> Option<i64> {
        system_monotonic_nanos()
    }
    #[inline]
    fn bounds_nanos(&mut self) -> Option<(i64, i64)> {
        TSC.with_borrow_mut(TscBound::bounds)
    }
}
