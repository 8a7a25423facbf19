//! The earliest and the latest time the real-time clock can read, told
//! from the CPU's time-stamp counter instead of a reading (docs/guarantees.md
//! "What an ID's time is").
//!
//! A generator needs the clock for every ID only to learn whether the unit it
//! is in has ended; a reading through the vDSO costs about twice a counter
//! read (docs/BENCHMARKS.md "Generation profile"). [`TscBound`] remembers the
//! counter beside the last real reading, learns how many nanoseconds a tick
//! is at most, and answers with the earliest the clock can read now, that
//! last reading, and the latest: the last reading plus the ticks since, each
//! taken 2 % longer than measured, plus a margin. While both lie inside the
//! unit in use, the clock reads inside it, and a generator may go on in it
//! as if it had read the clock (`Sequencer::try_next`).
//!
//! It answers only where the counter is what the kernel keeps time with
//! (Linux's clock source `tsc`, which the kernel chooses only for a counter
//! that runs at a constant rate and in step on every CPU), and only once its
//! rate is learnt against `CLOCK_MONOTONIC_RAW`, over at least
//! [`CALIBRATION_NANOS`]. Every real reading checks the bound it had given:
//! a clock that reads later than that (set forward, a counter whose rate
//! changed, a machine suspended) makes it learn the rate again before it
//! answers again. A clock set back is seen at the next real reading, which
//! then becomes the earliest: until then (at most to the end of the unit in
//! use) IDs go on as if the clock had been read before it was set.
//!
//! The decisions are pure functions of the counter and the clocks' readings
//! ([`TscBound::observe`], [`TscBound::latest_at`]), so the tests script them.

/// How long the counter's rate is measured before the bound is used.
pub const CALIBRATION_NANOS: i64 = 10_000_000;

/// Added to every bound: what the counter and the clock may disagree by (a
/// counter read out of order, by some cycles; CPUs whose counters differ by
/// less than the kernel's check of them at boot can see). Small beside the
/// shortest unit, SIQ's 15.26 µs tick, which it shortens for this purpose.
pub const MARGIN_NANOS: i64 = 1_000;

/// Ticks beyond which the bound is not given (a real reading is cheaper than
/// the risk of an overflow): about a second at 4 GHz.
pub const MAX_TICKS: u64 = 1 << 32;

/// A clock's reading between two readings of the counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub before: u64,
    pub value: i64,
    pub after: u64,
}

/// Counter readings further apart around a raw reading than this (about
/// 40 µs at 3 GHz: the process was interrupted) are not measured with.
const MAX_SAMPLE_TICKS: u64 = 1 << 17;

/// The bound's state in one process (a PostgreSQL backend keeps one for all
/// its generators). Plain data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TscBound {
    /// Whether the counter may be used at all on this machine: unknown until
    /// the first calibration asks.
    usable: Option<bool>,
    /// The counter and the real-time clock at the last real reading.
    last: Option<(u64, i64)>,
    /// The counter and `CLOCK_MONOTONIC_RAW` where the rate's measurement
    /// began.
    base: Option<(u64, i64)>,
    /// Nanoseconds per tick, at most, in 32.32 fixed point; 0 until learnt.
    nanos_per_tick: u64,
    /// The counter as [`bounds`](Self::bounds) last read it, until a real
    /// reading takes it as the counter before it.
    unused: Option<u64>,
}

impl Default for TscBound {
    fn default() -> Self {
        TscBound::new()
    }
}

impl TscBound {
    pub const fn new() -> Self {
        TscBound {
            usable: None,
            last: None,
            base: None,
            nanos_per_tick: 0,
            unused: None,
        }
    }

    /// A real reading of the clock (Unix ns), with the counter remembered
    /// beside it.
    pub fn read(&mut self) -> i64 {
        if self.usable == Some(false) {
            // Every ID reads the clock here: no counter reads around it.
            return crate::clock::system_now_nanos();
        }
        // A generator reads the clock when the bounds could not tell: the
        // counter they read is one before this reading too, unless it is
        // too old to bound it (then the reading is taken again).
        if let Some(before) = self.unused.take() {
            let now = crate::clock::system_now_nanos();
            if self.observe_within(before, now) {
                return now;
            }
        }
        let before = counter();
        let now = crate::clock::system_now_nanos();
        if before.is_some_and(|before| self.observe_within(before, now)) {
            return now;
        }
        if let (Some(before), Some(after)) = (before, counter()) {
            self.observe(
                Sample {
                    before,
                    value: now,
                    after,
                },
                || {
                    let before = counter()?;
                    let raw = raw_monotonic_nanos()?;
                    Some(Sample {
                        before,
                        value: raw,
                        after: counter()?,
                    })
                },
                counter_keeps_time,
            );
        }
        now
    }

    /// The earliest and the latest the clock can read now, if the counter
    /// can tell: the last reading (a clock set back since is seen at the
    /// next one), and [`latest_at`](Self::latest_at) the counter now.
    #[inline]
    pub fn bounds(&mut self) -> Option<(i64, i64)> {
        if self.nanos_per_tick == 0 {
            return None;
        }
        let (_, earliest) = self.last?;
        let ticks = counter()?;
        self.unused = Some(ticks);
        Some((earliest, self.latest_at(ticks)?))
    }

    /// The latest the clock can read when the counter reads `ticks`: the
    /// last real reading, plus the ticks since at the learnt (longest) tick,
    /// plus [`MARGIN_NANOS`]; `None` before the rate is learnt, for a counter
    /// that went back, or after [`MAX_TICKS`].
    #[inline]
    pub fn latest_at(&self, ticks: u64) -> Option<i64> {
        let (at, nanos) = self.last?;
        let elapsed = ticks.checked_sub(at).filter(|t| *t < MAX_TICKS)?;
        if self.nanos_per_tick == 0 {
            return None;
        }
        // Below 2^32 ticks times below 2^32: no overflow.
        let elapsed_nanos = (elapsed * self.nanos_per_tick) >> 32;
        nanos.checked_add(elapsed_nanos as i64 + 1 + MARGIN_NANOS)
    }

    /// Remembers a real reading `value` of the real-time clock, taken after
    /// the counter read `before`, if the rate is learnt and the bound at
    /// `before` already allows it; otherwise changes nothing and answers
    /// false, and the caller reads the counter after it for [`observe`].
    ///
    /// The bound grows with the counter, so a reading within the bound at
    /// the counter before it is within it at any counter after it:
    /// [`observe`] would keep the rate and remember the same. That is
    /// nearly every reading once the rate is learnt, and each then costs
    /// one counter read less (in SIQ's units, read at the end of every
    /// unit, that is about 1 ns an ID: docs/BENCHMARKS.md "Generation
    /// profile").
    ///
    /// [`observe`]: Self::observe
    #[inline]
    pub fn observe_within(&mut self, before: u64, value: i64) -> bool {
        let within = self.nanos_per_tick != 0
            && self.latest_at(before).is_some_and(|latest| value <= latest);
        if within {
            self.last = Some((before, value));
        }
        within
    }

    /// Remembers a real reading `now` of the real-time clock, between two
    /// readings of the counter; checks the bound given before it and, until
    /// the rate is learnt, measures the rate with `monotonic`'s sample of
    /// `CLOCK_MONOTONIC_RAW`. `keeps_time` says, once, whether the counter
    /// is the kernel's clock source.
    ///
    /// Each use of a sample takes the side of the counter that errs safe if
    /// the process was interrupted between the readings: the bound starts
    /// from the counter before the reading, the check and the end of the
    /// rate's measurement from the counter after it, the start of the
    /// measurement from the counter after the raw reading, and a sample
    /// whose counter readings lie far apart is not measured with.
    pub fn observe(
        &mut self,
        now: Sample,
        monotonic: impl FnOnce() -> Option<Sample>,
        keeps_time: impl FnOnce() -> bool,
    ) {
        if self.nanos_per_tick != 0
            && self
                .latest_at(now.after)
                .is_none_or(|latest| now.value > latest)
        {
            // The clock moved further than the counter allowed, or the
            // counter went back: learn the rate again.
            self.nanos_per_tick = 0;
            self.base = None;
        }
        self.last = Some((now.before, now.value));
        if self.nanos_per_tick == 0 {
            self.calibrate(monotonic, keeps_time);
        }
    }

    fn calibrate(
        &mut self,
        monotonic: impl FnOnce() -> Option<Sample>,
        keeps_time: impl FnOnce() -> bool,
    ) {
        if !*self.usable.get_or_insert_with(keeps_time) {
            return;
        }
        let Some(raw) = monotonic() else {
            self.usable = Some(false);
            return;
        };
        if raw.after.wrapping_sub(raw.before) > MAX_SAMPLE_TICKS {
            return;
        }
        let Some((base_ticks, base_raw)) = self.base else {
            self.base = Some((raw.after, raw.value));
            return;
        };
        let (Some(ticks_since), Some(nanos_since)) = (
            raw.before.checked_sub(base_ticks).filter(|t| *t > 0),
            raw.value.checked_sub(base_raw).filter(|n| *n >= 0),
        ) else {
            self.base = Some((raw.after, raw.value));
            return;
        };
        if nanos_since < CALIBRATION_NANOS {
            return;
        }
        // 2 % longer than measured: the real-time clock is slewed by at most
        // 0.05 % against the raw one, and the measurement is a few reading
        // times in ten milliseconds.
        let per_tick = ((nanos_since as u128) << 32) * 102 / 100 / ticks_since as u128 + 1;
        match u64::try_from(per_tick) {
            Ok(per_tick) if per_tick < 1 << 32 => self.nanos_per_tick = per_tick,
            // A nanosecond or more per tick (a counter under 1 GHz): not
            // the kind of counter this is meant for.
            _ => self.usable = Some(false),
        }
    }

    /// Whether the rate has been learnt (for tests and diagnostics).
    pub fn calibrated(&self) -> bool {
        self.nanos_per_tick != 0
    }
}

/// The CPU's time-stamp counter, where there is one.
#[inline]
fn counter() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC exists on every x86-64 CPU and reads a register.
        Some(unsafe { core::arch::x86_64::_rdtsc() })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// `CLOCK_MONOTONIC_RAW`: the hardware's rate, not slewed by NTP.
fn raw_monotonic_nanos() -> Option<i64> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        crate::clock::unix_clock_nanos(libc::CLOCK_MONOTONIC_RAW)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        None
    }
}

/// Whether the kernel keeps time with the counter (Linux's current clock
/// source is `tsc`): only then is it known to run at a constant rate and
/// in step on every CPU.
fn counter_keeps_time() -> bool {
    std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .is_ok_and(|source| source.trim() == "tsc")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GHZ3: f64 = 3.0; // ticks per nanosecond

    fn ticks_at(nanos: i64) -> u64 {
        (nanos as f64 * GHZ3) as u64
    }

    /// A reading `value` at `t` ns, the counter read at once before and
    /// after it.
    fn at(t: i64, value: i64) -> Sample {
        Sample {
            before: ticks_at(t),
            value,
            after: ticks_at(t),
        }
    }

    /// A bound fed real readings every `step` ns from `start` to `end`, with
    /// the raw clock equal to the real one.
    fn fed(start: i64, end: i64, step: i64) -> TscBound {
        let mut bound = TscBound::new();
        let mut t = start;
        while t <= end {
            bound.observe(
                at(t, 1_700_000_000_000_000_000 + t),
                || Some(at(t, t)),
                || true,
            );
            t += step;
        }
        bound
    }

    #[test]
    fn a_reading_within_the_bound_before_it_is_remembered_as_observe_would() {
        let t = 2 * CALIBRATION_NANOS;
        let learnt = fed(0, t, 1_000_000);
        assert!(learnt.calibrated());
        let wall = 1_700_000_000_000_000_000;
        for later in [0, 10, 1_000, 14_000, 900_000] {
            for late in [0, 500, 1_000] {
                let before = ticks_at(t + later);
                let value = wall + t + later + late;
                let mut quick = learnt;
                if !quick.observe_within(before, value) {
                    assert_eq!(quick, learnt, "{later} {late}: changed and refused");
                    continue;
                }
                // The counter after the reading: at once, and an
                // interruption later.
                for after in [before, before + 3_000, before + 300_000] {
                    let mut full = learnt;
                    full.observe(
                        Sample {
                            before,
                            value,
                            after,
                        },
                        || panic!("no measurement once learnt"),
                        || true,
                    );
                    assert_eq!(quick, full, "{later} {late} {after}");
                }
            }
        }
    }

    #[test]
    fn a_reading_beyond_the_bound_before_it_is_left_to_observe() {
        let t = 2 * CALIBRATION_NANOS;
        let learnt = fed(0, t, 1_000_000);
        let before = ticks_at(t + 10_000);
        let beyond = learnt.latest_at(before).unwrap() + 1;
        let mut quick = learnt;
        assert!(!quick.observe_within(before, beyond));
        assert_eq!(quick, learnt);
        let mut learning = fed(0, CALIBRATION_NANOS / 2, 1_000_000);
        let unchanged = learning;
        assert!(!learning.observe_within(before, 1_700_000_000_000_000_000 + t));
        assert_eq!(learning, unchanged);
    }

    #[test]
    fn no_bound_before_the_rate_is_learnt() {
        let bound = fed(0, CALIBRATION_NANOS - 1, 1_000_000);
        assert!(!bound.calibrated());
        assert_eq!(bound.latest_at(ticks_at(CALIBRATION_NANOS)), None);
    }

    #[test]
    fn the_bound_is_never_before_the_clock() {
        let bound = fed(0, 2 * CALIBRATION_NANOS, 1_000_000);
        assert!(bound.calibrated());
        let (_, last) = bound.last.unwrap();
        let last_t = 2 * CALIBRATION_NANOS;
        for later in [0, 1, 1_000, 1_000_000, 100_000_000] {
            let latest = bound.latest_at(ticks_at(last_t + later)).unwrap();
            let truth = last + later;
            assert!(
                latest >= truth + MARGIN_NANOS,
                "{later}: {latest} < {truth}"
            );
            // and not far above: 2 % and the margin
            assert!(latest <= truth + MARGIN_NANOS + later / 40 + 2, "{later}");
        }
    }

    #[test]
    fn a_clock_set_forward_makes_it_learn_again() {
        let mut bound = fed(0, 2 * CALIBRATION_NANOS, 1_000_000);
        let t = 2 * CALIBRATION_NANOS + 1_000_000;
        bound.observe(
            at(t, 1_700_000_000_000_000_000 + t + 5_000_000_000),
            || Some(at(t, t)),
            || true,
        );
        assert!(!bound.calibrated());
        assert_eq!(bound.latest_at(ticks_at(t + 1)), None);
    }

    #[test]
    fn a_counter_that_went_back_gives_no_bound() {
        let bound = fed(0, 2 * CALIBRATION_NANOS, 1_000_000);
        assert_eq!(bound.latest_at(ticks_at(CALIBRATION_NANOS)), None);
        assert_eq!(
            bound.latest_at(ticks_at(2 * CALIBRATION_NANOS) + MAX_TICKS),
            None
        );
    }

    #[test]
    fn a_machine_whose_clock_source_is_not_the_counter_never_uses_it() {
        let mut bound = TscBound::new();
        for t in (0..3 * CALIBRATION_NANOS).step_by(1_000_000) {
            bound.observe(at(t, t), || Some(at(t, t)), || false);
        }
        assert!(!bound.calibrated());
    }

    #[test]
    fn a_slower_counter_than_learnt_is_caught_at_the_next_reading() {
        // Learnt at 3 GHz; the counter then runs at half the rate (a VM
        // moved to another host): the next real reading is beyond the bound.
        let mut bound = fed(0, 2 * CALIBRATION_NANOS, 1_000_000);
        let t0 = 2 * CALIBRATION_NANOS;
        let ticks = ticks_at(t0) + ticks_at(1_000_000) / 2;
        let reading = Sample {
            before: ticks,
            value: 1_700_000_000_000_000_000 + t0 + 1_000_000,
            after: ticks,
        };
        bound.observe(reading, || Some(at(t0, t0)), || true);
        assert!(!bound.calibrated());
    }

    #[test]
    fn an_interrupted_reading_is_no_step_and_an_interrupted_measurement_does_not_count() {
        let mut bound = fed(0, 2 * CALIBRATION_NANOS, 1_000_000);
        // Interrupted for 5 ms between the counter and the clock: the
        // reading is late for the counter before it, not for the one after.
        let t = 2 * CALIBRATION_NANOS + 1_000_000;
        let reading = Sample {
            before: ticks_at(t),
            value: 1_700_000_000_000_000_000 + t + 5_000_000,
            after: ticks_at(t + 5_000_000),
        };
        bound.observe(reading, || None, || true);
        assert!(bound.calibrated());
        // While learning the rate, a raw sample interrupted for 5 ms is
        // left out: the rate learnt is the true one, not 5 ms short.
        let mut bound = TscBound::new();
        let mut t = 0;
        while !bound.calibrated() {
            let raw = if t == 0 {
                Sample {
                    before: ticks_at(0),
                    value: 5_000_000,
                    after: ticks_at(5_000_000),
                }
            } else {
                at(t, t)
            };
            bound.observe(at(t, t), || Some(raw), || true);
            t += 1_000_000;
        }
        let (_, last) = bound.last.unwrap();
        let later = 1_000_000;
        let latest = bound.latest_at(ticks_at(t - 1_000_000 + later)).unwrap();
        assert!(latest >= last + later + MARGIN_NANOS);
    }

    #[test]
    fn the_system_counter_bounds_the_system_clock() {
        let mut bound = TscBound::new();
        let start = crate::clock::system_now_nanos();
        while crate::clock::system_now_nanos() < start + 3 * CALIBRATION_NANOS {
            bound.read();
        }
        if !bound.calibrated() {
            return; // not an x86-64 machine keeping time with its counter
        }
        // A reading just before the bounds is at most the latest, and the
        // earliest at most a reading just after them (however long the
        // process is kept from running in between). Every third time a real
        // reading follows the bounds, as in a generator that could not tell
        // (it takes the counter the bounds read).
        for i in 0..30_000 {
            let before = crate::clock::system_now_nanos();
            let bounds = bound.bounds();
            let after = crate::clock::system_now_nanos();
            if let Some((earliest, latest)) = bounds {
                assert!(before <= latest, "{before} > {latest}");
                assert!(earliest <= after, "{earliest} > {after}");
            }
            if i % 3 == 0 {
                let reading = bound.read();
                assert!(reading >= after, "{reading} < {after}");
            }
        }
    }
}
