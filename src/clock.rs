//! The clock generators read in a backend: the real-time clock, with pauses
//! that honour cancel requests and `statement_timeout`.

use flake_core::clock::{system_monotonic_nanos, system_now_nanos, Clock, PAUSE};
use std::time::Duration;

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
        system_now_nanos()
    }
    fn pause(&mut self) {
        std::thread::sleep(self.pause);
        pgrx::check_for_interrupts!();
    }
    fn monotonic_nanos(&mut self) -> Option<i64> {
        system_monotonic_nanos()
    }
}
