//! Where generators read the time, and how they wait for it to move on.
//!
//! Generators never call the system clock directly: they take a `Clock`, so
//! tests can script regressions, stalls and exact readings, and the extension
//! can make every wait interruptible.

use crate::error::Result;
use std::collections::VecDeque;
use std::time::Duration;
#[cfg(not(unix))]
use std::time::{SystemTime, UNIX_EPOCH};

pub trait Clock {
    /// Wall-clock time in nanoseconds since the Unix epoch.
    fn now_nanos(&mut self) -> i64;
    /// Called when a generator must wait for the clock to reach a later unit:
    /// wait briefly (and, in a server, let a cancel or timeout interrupt).
    fn pause(&mut self);
}

/// Runs `attempt` until it produces a value, pausing `clock` between tries.
///
/// An attempt reads the clock itself and answers `Ok(None)` when it must wait
/// for a later time unit. This is the one waiting loop of every
/// coordination-based generator: per backend the attempt steps the backend's
/// own generator; in shared mode it takes the lock, steps the server's
/// generator and lets go, so that nobody waits while holding the lock.
pub fn retry<C: Clock, T>(
    clock: &mut C,
    mut attempt: impl FnMut(&mut C) -> Result<Option<T>>,
) -> Result<T> {
    loop {
        if let Some(value) = attempt(clock)? {
            return Ok(value);
        }
        clock.pause();
    }
}

/// A clock whose next reading was taken ahead of time; every later reading
/// is fresh. Shared mode reads the clock before taking the lock, so that the
/// lock is held only for a generator's step (a few nanoseconds) rather than
/// also for the clock reading (tens of nanoseconds). Generators read again
/// when that reading proves older than their last unit (see
/// [`crate::sequencer::Sequencer::try_next`]), so another caller's step in
/// between is never mistaken for a clock regression.
#[derive(Debug)]
pub struct ReadAhead<'a, C> {
    reading: Option<i64>,
    clock: &'a mut C,
}

impl<'a, C: Clock> ReadAhead<'a, C> {
    /// Takes the next reading of `clock` now.
    pub fn new(clock: &'a mut C) -> Self {
        ReadAhead {
            reading: Some(clock.now_nanos()),
            clock,
        }
    }
}

impl<C: Clock> Clock for ReadAhead<'_, C> {
    fn now_nanos(&mut self) -> i64 {
        self.reading
            .take()
            .unwrap_or_else(|| self.clock.now_nanos())
    }
    fn pause(&mut self) {
        self.clock.pause();
    }
}

/// Reads the operating system's real-time clock; pauses sleep briefly.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

/// How long one pause sleeps. Short, because the longest unit of any
/// coordination-based format is 4 ms and most waits end within one unit.
pub const PAUSE: Duration = Duration::from_micros(20);

/// The real-time clock in nanoseconds since the Unix epoch: on Unix one
/// `clock_gettime(CLOCK_REALTIME)` (a vDSO call, no system call) and a
/// multiply-add, the cheapest exact reading there is; elsewhere through
/// `SystemTime`.
#[cfg(unix)]
#[inline]
pub fn system_now_nanos() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec; CLOCK_REALTIME always exists, so the
    // call cannot fail (and ts would stay at the epoch if it did).
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    // time_t and c_long are 32-bit on some targets.
    #[allow(clippy::unnecessary_cast)]
    (ts.tv_sec as i64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as i64)
}

#[cfg(not(unix))]
pub fn system_now_nanos() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        Err(e) => -(e.duration().as_nanos() as i64),
    }
}

impl Clock for SystemClock {
    fn now_nanos(&mut self) -> i64 {
        system_now_nanos()
    }
    fn pause(&mut self) {
        std::thread::sleep(PAUSE);
    }
}

/// A clock for tests: returns scripted readings in order, then keeps returning
/// `now`; every pause is counted and moves `now` forward by `pause_step`.
#[derive(Debug, Clone)]
pub struct ScriptedClock {
    pub now: i64,
    pub pause_step: i64,
    pub pauses: u64,
    pub readings: VecDeque<i64>,
}

impl ScriptedClock {
    /// A clock standing at `now` that advances by `pause_step` ns per pause.
    pub fn new(now: i64, pause_step: i64) -> Self {
        ScriptedClock {
            now,
            pause_step,
            pauses: 0,
            readings: VecDeque::new(),
        }
    }

    /// Queue readings to be returned (in order) before falling back to `now`.
    pub fn script(&mut self, readings: impl IntoIterator<Item = i64>) {
        self.readings.extend(readings);
    }
}

impl Clock for ScriptedClock {
    fn now_nanos(&mut self) -> i64 {
        match self.readings.pop_front() {
            Some(r) => {
                self.now = r;
                r
            }
            None => self.now,
        }
    }
    fn pause(&mut self) {
        self.pauses += 1;
        self.now += self.pause_step;
    }
}
