//! What a generator needs from the backend it runs in: its slot (`sql-api.md`
//! §4), a clock whose waits can be cancelled, the backend's CSPRNG, and time
//! conversions between PostgreSQL's `timestamptz` and the core's Unix
//! microseconds.

use crate::errors::{raise, OrRaise};
use flake_core::clock::{system_now_nanos, Clock, PAUSE};
use flake_core::random::OsRandom;
use flake_core::slot::{SlotAssignment, SlotRule};
use flake_core::Error;
use pgrx::prelude::*;
use std::cell::RefCell;
use std::thread::LocalKey;
use std::time::Duration;

/// Unix epoch in PostgreSQL's timestamp representation (µs since 2000-01-01).
const UNIX_EPOCH_IN_PG_MICROS: i64 = -946_684_800_000_000;

/// This backend's slot and the number of slots: unique among running backends.
pub fn slot() -> (u32, u32) {
    // SAFETY: plain globals that PostgreSQL sets before any SQL runs.
    unsafe {
        #[cfg(any(feature = "pg13", feature = "pg14", feature = "pg15", feature = "pg16"))]
        let slot = pg_sys::MyBackendId - 1;
        #[cfg(not(any(feature = "pg13", feature = "pg14", feature = "pg15", feature = "pg16")))]
        let slot = pg_sys::MyProcNumber;
        (slot.max(0) as u32, pg_sys::MaxBackends.max(1) as u32)
    }
}

/// Runs `step` on this backend's generator kept in `cell`, first creating it
/// with `new` for the backend's slot under `rule` (`sql-api.md` §4).
pub fn with_generator<G, T>(
    cell: &'static LocalKey<RefCell<Option<G>>>,
    rule: SlotRule,
    new: impl FnOnce(SlotAssignment, &mut BackendClock) -> flake_core::Result<G>,
    step: impl FnOnce(&mut G, &mut BackendClock) -> flake_core::Result<T>,
) -> T {
    cell.with_borrow_mut(|generator| {
        let generator = generator.get_or_insert_with(|| {
            let (slot, nslots) = slot();
            new(
                rule.assign(slot, nslots).or_raise(),
                &mut BackendClock::new(),
            )
            .or_raise()
        });
        step(generator, &mut BackendClock::new()).or_raise()
    })
}

/// The real-time clock; a pause sleeps and then honours cancel requests and
/// `statement_timeout`.
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
}

thread_local! {
    /// The backend's CSPRNG, shared by the random formats: seeded from the
    /// operating system on first use in this backend (and reseeded if the
    /// process id changes), so no two backends share a stream.
    static RANDOM: RefCell<Option<OsRandom>> = const { RefCell::new(None) };
}

/// Runs `f` with this backend's CSPRNG.
pub fn with_random<T>(f: impl FnOnce(&mut OsRandom) -> T) -> T {
    RANDOM.with_borrow_mut(|random| f(random.get_or_insert_with(OsRandom::new)))
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

/// Microseconds since the Unix epoch of a finite timestamp; infinite ones are
/// outside every format's range.
pub fn unix_micros(ts: TimestampWithTimeZone, type_name: &'static str, range: &'static str) -> i64 {
    if !ts.is_finite() {
        raise(Error::TimeOutOfRange { type_name, range });
    }
    i64::from(ts) - UNIX_EPOCH_IN_PG_MICROS
}

/// The timestamp of a Unix-microsecond instant. Every format's range lies
/// inside PostgreSQL's, so this only fails on a bug.
pub fn timestamp(unix_micros: i64) -> TimestampWithTimeZone {
    TimestampWithTimeZone::try_from(unix_micros + UNIX_EPOCH_IN_PG_MICROS).unwrap_or_else(|_| {
        pgrx::error!("pg_flake: timestamp {unix_micros} out of PostgreSQL's range")
    })
}
