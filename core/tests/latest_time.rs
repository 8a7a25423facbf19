//! A clock that can tell the earliest and latest time it can read (a
//! backend's time-stamp counter, `tsc::TscBound`): the sequencer goes on in
//! the unit in use without a reading while both lie inside it, and reads the
//! clock in every other case (docs/guarantees.md "What an ID's time is").

use flake_core::clock::{Clock, ReadAhead};
use flake_core::sequencer::{Limits, Regression, Sequencer, Step, Timeline};
use flake_core::slot::SequenceRange;
use flake_core::Result;

const MS: i64 = 1_000_000;
const T0: i64 = 1_700_000_000_000 * MS;

/// Millisecond units.
struct Millis;

impl Timeline for Millis {
    fn name(&self) -> &'static str {
        "test"
    }
    fn unit_at(&self, unix_nanos: i64) -> Result<u64> {
        Ok((unix_nanos / MS) as u64)
    }
    fn start_of(&self, unit: u64) -> i128 {
        unit as i128 * MS as i128
    }
}

/// Reads `now`; tells `bounds` where set; counts its readings.
struct Counted {
    now: i64,
    bounds: Option<(i64, i64)>,
    readings: u32,
}

impl Counted {
    fn at(now: i64) -> Self {
        Counted {
            now,
            bounds: None,
            readings: 0,
        }
    }
}

impl Clock for Counted {
    fn now_nanos(&mut self) -> i64 {
        self.readings += 1;
        self.now
    }
    fn pause(&mut self) {
        self.now += 20_000;
    }
    fn bounds_nanos(&mut self) -> Option<(i64, i64)> {
        self.bounds
    }
}

fn sequencer(policy: Regression, floor: u64) -> Sequencer {
    Sequencer::new(policy, SequenceRange { first: 0, last: 3 }, floor)
}

fn next(sequencer: &mut Sequencer, clock: &mut Counted) -> Step<(u64, u32)> {
    sequencer
        .try_next(&mut ReadAhead::new(clock), &Millis, &Limits::NO_MARK)
        .unwrap()
        .map(|s| (s.unit, s.sequence()))
}

fn unit(nanos: i64) -> u64 {
    (nanos / MS) as u64
}

/// Steps `sequencer` with bounds `bounds` (an error is a step too):
/// whether it read the clock.
fn reads(sequencer: &mut Sequencer, clock: &mut Counted, bounds: (i64, i64)) -> bool {
    clock.bounds = Some(bounds);
    let before = clock.readings;
    let _ = sequencer.try_next(&mut ReadAhead::new(clock), &Millis, &Limits::NO_MARK);
    clock.readings > before
}

#[test]
fn inside_the_unit_in_use_no_reading_is_taken() {
    let mut s = sequencer(Regression::Logical, unit(T0) - 1);
    let mut clock = Counted::at(T0 + 100);
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0), 0)));
    let read = clock.readings;
    clock.bounds = Some((T0 + 100, T0 + MS - 1));
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0), 1)));
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0), 2)));
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0), 3)));
    assert_eq!(clock.readings, read);
    // Used up while the clock is still inside: the clock is read, and says
    // wait.
    assert_eq!(next(&mut s, &mut clock), Step::Wait);
}

#[test]
fn bounds_reaching_out_of_the_unit_read_the_clock() {
    let mut s = sequencer(Regression::Logical, unit(T0) - 1);
    let mut clock = Counted::at(T0 + 100);
    next(&mut s, &mut clock);
    assert!(reads(&mut s, &mut clock, (T0 + 100, T0 + MS)), "the end");
    assert!(reads(&mut s, &mut clock, (T0 - 1, T0 + 200)), "the start");
    clock.now = T0 + MS + 5;
    assert!(reads(&mut s, &mut clock, (T0 + 100, T0 + MS + 10)));
    assert_eq!(s.unit(), unit(T0) + 1);
}

#[test]
fn a_unit_ahead_of_the_clock_is_never_taken_for_the_clock() {
    // A floor (a mark) ahead of the clock: the first units are logical time.
    let floor = unit(T0) + 5;
    let mut s = sequencer(Regression::Logical, floor);
    let mut clock = Counted::at(T0);
    clock.bounds = Some((T0, T0 + 10));
    assert_eq!(next(&mut s, &mut clock), Step::Issued((floor + 1, 0)));
    for sequence in 1..=3 {
        let read = clock.readings;
        assert_eq!(
            next(&mut s, &mut clock),
            Step::Issued((floor + 1, sequence))
        );
        assert!(clock.readings > read, "a unit ahead of the clock reads it");
    }
    // Used up ahead of the clock: on in logical time, not a wait.
    assert_eq!(next(&mut s, &mut clock), Step::Issued((floor + 2, 0)));
}

#[test]
fn a_clock_set_back_is_seen_at_the_next_reading_and_from_then_on() {
    let mut s = sequencer(Regression::Logical, unit(T0) - 1);
    let mut clock = Counted::at(T0 + 100);
    next(&mut s, &mut clock);
    // Set back 10 ms (logical time above the unit in use) or 2 h (beyond
    // the lead allowed: an error): the next reading sees it, and the bounds
    // that start there never pass for the unit in use.
    for back in [10 * MS, 7_200_000 * MS] {
        clock.now = T0 - back;
        assert!(reads(&mut s, &mut clock, (T0 + 100, T0 + MS)));
        let now = clock.now;
        for _ in 0..5 {
            assert!(reads(&mut s, &mut clock, (now, now + 1_000)));
        }
    }
}

#[test]
fn a_floor_raised_into_the_unit_in_use_reads_again() {
    let mut s = sequencer(Regression::Logical, unit(T0) - 1);
    let mut clock = Counted::at(T0 + 100);
    next(&mut s, &mut clock);
    s.raise_floor(unit(T0));
    assert!(reads(&mut s, &mut clock, (T0 + 100, T0 + 200)));
}

#[test]
fn another_callers_later_unit_counts_once_this_caller_read_inside_it() {
    // Shared mode: the unit in use was moved on by another caller's reading.
    let mut s = sequencer(Regression::TickTock, unit(T0) - 1);
    next(&mut s, &mut Counted::at(T0 + 2 * MS + 1));
    // This caller last read the clock in an earlier unit: it reads, and its
    // stale reading is read again, never taken for a regression (no
    // tick-tock flip).
    let mut mine = Counted::at(T0 + 2 * MS + 400);
    assert!(reads(&mut s, &mut mine, (T0 + 100, T0 + 2 * MS + 500)));
    assert!(!s.state().tick_tock);
    // Now its last reading is inside: no reading.
    assert!(!reads(
        &mut s,
        &mut mine,
        (T0 + 2 * MS + 400, T0 + 2 * MS + 900)
    ));
    assert_eq!(s.unit(), unit(T0) + 2);
}
