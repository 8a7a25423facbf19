//! A clock that can tell the latest time it can read (a backend's time-stamp
//! counter, `tsc::TscBound`): the sequencer goes on in the unit it read the
//! clock inside while that time lies before the unit's end, without a
//! reading, and reads the clock in every other case (docs/guarantees.md
//! "What an ID's time is").

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

/// Reads `now`; tells `latest` where set; counts its readings.
struct Counted {
    now: i64,
    latest: Option<i64>,
    readings: u32,
}

impl Clock for Counted {
    fn now_nanos(&mut self) -> i64 {
        self.readings += 1;
        self.now
    }
    fn pause(&mut self) {
        self.now += 20_000;
    }
    fn latest_nanos(&mut self) -> Option<i64> {
        self.latest
    }
}

fn sequencer(policy: Regression, floor: u64) -> Sequencer {
    Sequencer::new(policy, SequenceRange { first: 0, last: 3 }, floor)
}

fn next(sequencer: &mut Sequencer, clock: &mut Counted) -> Step<(u64, u32)> {
    sequencer
        .try_next(&mut ReadAhead::new(clock), &Millis, &Limits::NO_MARK)
        .unwrap()
        .map(|s| (s.unit, s.sequence))
}

fn unit(nanos: i64) -> u64 {
    (nanos / MS) as u64
}

#[test]
fn inside_a_unit_read_before_no_reading_is_taken() {
    let mut s = sequencer(Regression::Logical, unit(T0) - 1);
    let mut clock = Counted {
        now: T0 + 100,
        latest: None,
        readings: 0,
    };
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0), 0)));
    let read = clock.readings;
    clock.latest = Some(T0 + MS - 1);
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0), 1)));
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0), 2)));
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0), 3)));
    // Used up while the clock is still inside: wait, as a reading would say.
    assert_eq!(next(&mut s, &mut clock), Step::Wait);
    assert_eq!(clock.readings, read);
}

#[test]
fn at_the_unit_end_the_clock_is_read() {
    let mut s = sequencer(Regression::Logical, unit(T0) - 1);
    let mut clock = Counted {
        now: T0 + 100,
        latest: None,
        readings: 0,
    };
    next(&mut s, &mut clock);
    clock.latest = Some(T0 + MS);
    clock.now = T0 + MS + 5;
    let read = clock.readings;
    assert_eq!(next(&mut s, &mut clock), Step::Issued((unit(T0) + 1, 0)));
    assert!(clock.readings > read);
}

#[test]
fn a_unit_ahead_of_the_clock_is_never_taken_for_the_clock() {
    // A floor (a mark) ahead of the clock: the first unit is logical time.
    let floor = unit(T0) + 5;
    let mut s = sequencer(Regression::Logical, floor);
    let mut clock = Counted {
        now: T0,
        latest: Some(T0 + 10),
        readings: 0,
    };
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
fn a_floor_raised_into_the_unit_in_use_reads_again() {
    let mut s = sequencer(Regression::Logical, unit(T0) - 1);
    let mut clock = Counted {
        now: T0 + 100,
        latest: None,
        readings: 0,
    };
    next(&mut s, &mut clock);
    s.raise_floor(unit(T0));
    clock.latest = Some(T0 + 200);
    let read = clock.readings;
    // The floor's unit is never used: the clock, read, says wait.
    assert_eq!(next(&mut s, &mut clock), Step::Wait);
    assert!(clock.readings > read);
}

#[test]
fn another_callers_later_unit_counts_only_once_read_inside() {
    // Shared mode: the unit in use was moved on by another caller's
    // reading; this caller's latest time before its end is then inside.
    let mut s = sequencer(Regression::TickTock, unit(T0) - 1);
    let mut other = Counted {
        now: T0 + 2 * MS + 1,
        latest: None,
        readings: 0,
    };
    next(&mut s, &mut other);
    let mut mine = Counted {
        now: T0 + 100,
        latest: Some(T0 + 2 * MS + 500),
        readings: 0,
    };
    assert_eq!(next(&mut s, &mut mine), Step::Issued((unit(T0) + 2, 1)));
    assert_eq!(mine.readings, 0);
    // Without a latest time, its stale reading is read again, never a
    // regression (no tick-tock flip).
    mine.latest = None;
    mine.now = T0 + 2 * MS + 600;
    assert_eq!(next(&mut s, &mut mine), Step::Issued((unit(T0) + 2, 2)));
}
