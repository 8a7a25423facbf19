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
    /// A clock that nobody sets, in nanoseconds from an arbitrary start
    /// (the same for every process of one boot), or `None` where there is
    /// none: what tells a step of the real-time clock from time passing
    /// (see [`ClockReference`]).
    fn monotonic_nanos(&mut self) -> Option<i64> {
        None
    }
    /// The earliest and the latest time the clock can read now, where the
    /// clock can tell that more cheaply than by a reading (a backend's
    /// time-stamp counter, [`crate::tsc::TscBound`]); `None` where it
    /// cannot. The earliest is its last reading: a clock set back since is
    /// seen at its next reading. Generators use it only to learn that the
    /// clock still reads inside the unit in use
    /// ([`crate::sequencer::Sequencer::try_next`]).
    fn bounds_nanos(&mut self) -> Option<(i64, i64)> {
        None
    }
}

/// How far the real-time clock may have been stepped forward: the highest
/// offset of the real-time clock from the monotonic one seen so far.
///
/// Both clocks advance together while nobody sets the real-time clock (NTP
/// slews them alike, and on Linux `CLOCK_BOOTTIME` also counts a suspend),
/// so the offset stays put through any idle time; a step forward raises it
/// by the step, a step back lowers it. Keeping the highest offset means that
/// undoing a step back is not taken for a step forward. Plain data, so that
/// in shared mode it lives in shared memory with the generator (the
/// monotonic clock is system-wide, so readings of different processes
/// compare).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockReference {
    offset: Option<i64>,
}

impl ClockReference {
    /// No reference yet: the first reading becomes it.
    pub const NONE: ClockReference = ClockReference { offset: None };

    /// Takes `clock`'s readings as the reference if there is none yet; with
    /// one, checks that the real-time clock has not moved more than
    /// `max_jump` nanoseconds further than the monotonic clock since (0: no
    /// check) and answers how far it did if so, else keeps the higher offset.
    /// A clock without a monotonic reading is never checked.
    pub fn check<C: Clock>(&mut self, clock: &mut C, max_jump: i64) -> Option<i64> {
        let real = clock.now_nanos();
        let monotonic = clock.monotonic_nanos()?;
        let offset = real.wrapping_sub(monotonic);
        match self.offset {
            Some(reference) => {
                let jump = offset.saturating_sub(reference);
                if max_jump > 0 && jump > max_jump {
                    return Some(jump);
                }
                self.offset = Some(reference.max(offset));
            }
            None => self.offset = Some(offset),
        }
        None
    }

    /// Forgets the reference: the next reading becomes it. For a step
    /// forward that an administrator confirmed (the mark moved to the new
    /// time deliberately, `pg_flake_set_mark`).
    pub fn forget(&mut self) {
        self.offset = None;
    }

    /// Whether there is a reference.
    pub fn is_set(&self) -> bool {
        self.offset.is_some()
    }

    /// The reference as a number to store (per backend, in the marks file
    /// for the whole server): the offset of the real-time clock from the
    /// monotonic one in nanoseconds, `None` before the first reading.
    pub fn offset(&self) -> Option<i64> {
        self.offset
    }

    /// A reference stored with [`offset`](Self::offset).
    pub const fn from_offset(offset: Option<i64>) -> Self {
        ClockReference { offset }
    }
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

/// A clock whose next reading, or where the clock can tell them its bounds
/// ([`Clock::bounds_nanos`]), was taken ahead of time; every later one
/// is fresh. Shared mode reads the clock before taking the lock, so that the
/// lock is held only for a generator's step (a few nanoseconds) rather than
/// also for the clock reading (tens of nanoseconds). Generators read again
/// when that reading proves older than their last unit (see
/// [`crate::sequencer::Sequencer::try_next`]), so another caller's step in
/// between is never mistaken for a clock regression.
#[derive(Debug)]
pub struct ReadAhead<'a, C> {
    reading: Option<i64>,
    bounds: Option<(i64, i64)>,
    clock: &'a mut C,
}

impl<'a, C: Clock> ReadAhead<'a, C> {
    /// Takes the clock's bounds now, where it can tell them, else its next
    /// reading.
    #[inline]
    pub fn new(clock: &'a mut C) -> Self {
        match clock.bounds_nanos() {
            Some(bounds) => ReadAhead {
                reading: None,
                bounds: Some(bounds),
                clock,
            },
            None => ReadAhead {
                reading: Some(clock.now_nanos()),
                bounds: None,
                clock,
            },
        }
    }
}

impl<C: Clock> Clock for ReadAhead<'_, C> {
    fn now_nanos(&mut self) -> i64 {
        self.reading
            .take()
            .unwrap_or_else(|| self.clock.now_nanos())
    }
    fn bounds_nanos(&mut self) -> Option<(i64, i64)> {
        self.bounds.take()
    }
    fn pause(&mut self) {
        self.clock.pause();
    }
    fn monotonic_nanos(&mut self) -> Option<i64> {
        self.clock.monotonic_nanos()
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

/// The monotonic clock in nanoseconds: on Linux `CLOCK_BOOTTIME`, which
/// also counts time spent suspended (a resumed laptop or VM is not a step
/// of the real-time clock), elsewhere on Unix `CLOCK_MONOTONIC`; both are
/// one clock for every process of one boot. `None` where there is none.
#[cfg(unix)]
pub fn system_monotonic_nanos() -> Option<i64> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const CLOCK: libc::clockid_t = libc::CLOCK_BOOTTIME;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const CLOCK: libc::clockid_t = libc::CLOCK_MONOTONIC;
    unix_clock_nanos(CLOCK)
}

/// One of the system's clocks in nanoseconds, `None` where the system lacks
/// it.
#[cfg(unix)]
pub(crate) fn unix_clock_nanos(clock: libc::clockid_t) -> Option<i64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec; a clock the system lacks makes the
    // call fail, answered by None.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    Some(
        (ts.tv_sec as i64)
            .wrapping_mul(1_000_000_000)
            .wrapping_add(ts.tv_nsec as i64),
    )
}

#[cfg(not(unix))]
pub fn system_monotonic_nanos() -> Option<i64> {
    None
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
    fn monotonic_nanos(&mut self) -> Option<i64> {
        system_monotonic_nanos()
    }
}

/// A clock for tests: returns scripted readings in order, then keeps returning
/// `now`; every pause is counted and moves `now` forward by `pause_step`.
/// Its monotonic clock reads `now - stepped`: changes of `now` are time
/// passing, [`ScriptedClock::step`] is someone setting the clock.
#[derive(Debug, Clone)]
pub struct ScriptedClock {
    pub now: i64,
    pub pause_step: i64,
    pub pauses: u64,
    pub readings: VecDeque<i64>,
    /// How far the real-time clock was stepped in all (forward positive).
    pub stepped: i64,
}

impl ScriptedClock {
    /// A clock standing at `now` that advances by `pause_step` ns per pause.
    pub fn new(now: i64, pause_step: i64) -> Self {
        ScriptedClock {
            now,
            pause_step,
            pauses: 0,
            readings: VecDeque::new(),
            stepped: 0,
        }
    }

    /// Sets the real-time clock `by` nanoseconds ahead (back if negative),
    /// the monotonic clock untouched.
    pub fn step(&mut self, by: i64) {
        self.now += by;
        self.stepped += by;
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
        self.now = self.now.saturating_add(self.pause_step);
    }
    fn monotonic_nanos(&mut self) -> Option<i64> {
        Some(self.now - self.stepped)
    }
}
