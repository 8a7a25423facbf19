//! Where generators read the time, and how they wait for it to move on.
//!
//! Generators never call the system clock directly: they take a `Clock`, so
//! tests can script regressions, stalls and exact readings, and the extension
//! can make every wait interruptible.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub trait Clock {
    /// Wall-clock time in nanoseconds since the Unix epoch.
    fn now_nanos(&mut self) -> i64;
    /// Called when a generator must wait for the clock to reach a later unit:
    /// wait briefly (and, in a server, let a cancel or timeout interrupt).
    fn pause(&mut self);
}

/// Reads the operating system's real-time clock; pauses sleep briefly.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

/// How long one pause sleeps. Short, because the longest unit of any
/// coordination-based format is 4 ms and most waits end within one unit.
pub const PAUSE: Duration = Duration::from_micros(20);

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
