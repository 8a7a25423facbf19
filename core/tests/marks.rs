//! Restarts, clock steps and the durable mark (docs/guarantees.md "Guarantees": no ID is
//! ever issued twice, after a restart, crash or failover, whatever the clock
//! did), for every coordination-based generator, under a scripted clock:
//!
//! - a generator never uses its floor or a unit below it;
//! - a generator restarted above the previous run's mark issues above every
//!   ID of that run, or fails (55000) when the clock is too far behind;
//! - when the clock goes back, IDs go on in logical time (sno: a first
//!   regression flips the tick-tock bit instead), strictly increasing and
//!   without a wait longer than one unit, as far as `max_lead` allows;
//! - no unit above the mark is used before a higher mark is recorded, and a
//!   mark learned from elsewhere raises the floor.
//!
//! Format-specific cases (sno's tick-tock, kuid's units that stand for no
//! time, SIQ's kinds) are in the formats' own test files, shared mode in
//! `shared.rs`.

mod common;

use common::generators::*;
use flake_core::clock::ScriptedClock;
use flake_core::generator::{MarkedGenerator, LEASE_NANOS, SHARED_SLOT};
use flake_core::sequencer::{Limits, Step, DEFAULT_MAX_LEAD};
use flake_core::{Error, ErrorKind};
use proptest::prelude::*;
use std::collections::HashSet;

/// One attempt on a marked generator, bounded by the default `max_lead`.
fn try_marked<G: TestGenerator>(
    marked: &mut MarkedGenerator<G>,
    clock: &mut ScriptedClock,
) -> flake_core::Result<Step<G::Id>> {
    marked.try_generate(clock, DEFAULT_MAX_LEAD, |g, clock, limits| {
        g.attempt(clock, limits)
    })
}

// --- the floor ------------------------------------------------------------------

fn the_floor_unit_waits_for_the_next<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    let mut g = generator::<G>(SHARED_SLOT, floor);
    let mut clock = ScriptedClock::new(T0 + 1000, G::UNIT_NANOS / 4);
    assert_eq!(g.attempt(&mut clock, &Limits::NO_MARK), Ok(Step::Wait));
    assert!(
        snapshot(&g).is_empty(),
        "{}: a wait changes nothing",
        G::NAME
    );
    let id = g.blocking(&mut clock).unwrap();
    assert!((1..=one_unit_of_pauses::<G>(&clock)).contains(&clock.pauses));
    let c = G::coordinates(&id);
    assert_eq!((c.unit, c.sequence), (floor + 1, 0), "{}", G::NAME);
    assert_eq!(lead(&g), 0);
}

#[test]
fn the_floor_unit_is_never_used_even_with_the_clock_inside_it() {
    for_every_generator!(the_floor_unit_waits_for_the_next());
}

fn the_first_id_above_a_floor_ahead_of_the_clock<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    for behind in [MS, 5 * SECOND, DEFAULT_MAX_LEAD - SECOND] {
        let reading = T0 - behind;
        let mut clock = ScriptedClock::new(reading, G::UNIT_NANOS);
        let mut g = generator::<G>(SHARED_SLOT, floor);
        let first = g.blocking(&mut clock).unwrap();
        assert_eq!(clock.pauses, 0, "{}: no wait", G::NAME);
        let c = G::coordinates(&first);
        assert_eq!((c.unit, c.sequence), (floor + 1, 0), "{}", G::NAME);
        let state = g.state().unwrap();
        assert_eq!(state.floor, floor);
        assert_eq!(state.lead, start::<G>(floor + 1) - reading, "{}", G::NAME);
        // It goes on above, the clock still behind.
        let mut previous = first;
        for _ in 0..100 {
            clock.now += 1000;
            let id = g.blocking(&mut clock).unwrap();
            assert!(id > previous && G::coordinates(&id).unit > floor);
            previous = id;
        }
        assert_eq!(clock.pauses, 0);
    }
}

#[test]
fn with_the_clock_behind_the_floor_the_first_id_is_just_above_it() {
    for_every_generator!(the_first_id_above_a_floor_ahead_of_the_clock());
}

fn the_first_id_at_a_clock_ahead_of_the_floor<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    let mut clock = ScriptedClock::new(start::<G>(floor + 100) + 7, G::UNIT_NANOS);
    let mut g = generator::<G>(SHARED_SLOT, floor);
    let c = G::coordinates(&g.blocking(&mut clock).unwrap());
    assert_eq!((c.unit, c.sequence), (floor + 100, 0), "{}", G::NAME);
    assert_eq!((clock.pauses, lead(&g)), (0, 0));
}

#[test]
fn with_the_clock_ahead_of_the_floor_the_first_id_is_at_the_clock() {
    for_every_generator!(the_first_id_at_a_clock_ahead_of_the_floor());
}

fn a_floor_too_far_ahead<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    let reading = T0 - DEFAULT_MAX_LEAD - SECOND;
    let mut clock = ScriptedClock::new(reading, G::UNIT_NANOS);
    let mut g = generator::<G>(SHARED_SLOT, floor);
    let expected = Error::ClockBehind {
        type_name: G::NAME,
        lead_nanos: start::<G>(floor + 1) - reading,
        max_lead_nanos: DEFAULT_MAX_LEAD,
    };
    assert_eq!(
        g.attempt(&mut clock, &Limits::NO_MARK),
        Err(expected.clone())
    );
    assert_eq!(g.blocking(&mut clock), Err(expected));
    assert!(snapshot(&g).is_empty());
    assert_eq!(clock.pauses, 0, "{}: an error, not a wait", G::NAME);
}

#[test]
fn a_floor_further_ahead_of_the_clock_than_max_lead_is_an_error() {
    for_every_generator!(a_floor_too_far_ahead());
}

// --- restarts ---------------------------------------------------------------------

/// Run 1 makes 3000 IDs while the clock moves on, goes back 3 units and
/// then 2 s; run 2 starts above run 1's mark with the clock `behind` run
/// 1's last reading.
fn restart<G: TestGenerator>(slot: (u32, u32)) {
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut run1 = marked_above::<G>(slot, unit::<G>(T0));
    let mut first = vec![];
    for i in 0..3000 {
        match i {
            1000 => clock.now -= 3 * G::UNIT_NANOS,
            2000 => clock.now -= 2 * SECOND,
            _ => clock.now += 1000,
        }
        first.push(
            next_marked(&mut run1, &mut clock, DEFAULT_MAX_LEAD)
                .unwrap()
                .0,
        );
    }
    check_order::<G>(&first);
    let highest = *first.iter().max().unwrap();
    let mark = run1.mark();
    assert!(first.iter().all(|id| G::coordinates(id).unit <= mark));
    let last_reading = clock.now;

    for (behind, max_lead) in [
        (5 * SECOND, DEFAULT_MAX_LEAD),
        (HOUR, DEFAULT_MAX_LEAD),
        (HOUR, 2 * HOUR),
    ] {
        let mut clock = ScriptedClock::new(last_reading - behind, G::UNIT_NANOS / 4);
        let mut run2 = marked_above::<G>(slot, mark);
        let mut second = vec![];
        for _ in 0..1000 {
            clock.now += 1000;
            match next_marked(&mut run2, &mut clock, max_lead) {
                Ok((id, _)) => second.push(id),
                Err(Error::ClockBehind {
                    type_name,
                    lead_nanos,
                    max_lead_nanos,
                }) => {
                    assert_eq!((type_name, max_lead_nanos), (G::NAME, max_lead));
                    assert!(behind > max_lead && lead_nanos > behind, "{}", G::NAME);
                    break;
                }
                Err(e) => panic!("{}: {e}", G::NAME),
            }
        }
        assert_eq!(second.is_empty(), behind > max_lead, "{}", G::NAME);
        check_order::<G>(&second);
        for id in &second {
            assert!(*id > highest, "{}: {id:?} not above {highest:?}", G::NAME);
            assert!(G::coordinates(id).unit > mark);
        }
        assert_eq!(clock.pauses, 0, "{}: logical time, no wait", G::NAME);
    }
}

#[test]
fn a_restart_issues_above_every_id_of_the_previous_run_whatever_the_clock() {
    for_every_generator!(restart(SHARED_SLOT));
}

fn narrow_restart<G: TestGenerator>() {
    restart::<G>(G::NARROW_SLOT);
}

#[test]
fn a_restart_issues_above_the_previous_run_also_when_units_run_out() {
    for_every_generator!(narrow_restart());
}

// --- steps back while running -------------------------------------------------------

/// 4000 IDs while the clock moves on 700 ns per ID, except that before ID
/// 1000 and ID 2000 it goes back `step`, and before ID 3000 it jumps past
/// everything issued. No ID waits while the clock is behind, none waits
/// more than one unit ever, and the lead stays within `max_lead`.
fn steps_back<G: TestGenerator>(step: i64, max_lead: i64) {
    for slot in [SHARED_SLOT, G::NARROW_SLOT] {
        // The floor well below: sno flips only above it.
        let floor = unit::<G>(T0 - 3 * step);
        let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
        let mut marked = marked_above::<G>(slot, floor);
        let mut ids = vec![];
        for i in 0..4000 {
            match i {
                1000 | 2000 => clock.now -= step,
                3000 => clock.now += 2 * step + 10 * SECOND,
                _ => clock.now += 700,
            }
            let (id, pauses) = next_marked(&mut marked, &mut clock, max_lead).unwrap();
            ids.push(id);
            let lead = lead(marked.generator());
            assert!(lead <= max_lead);
            // Behind the clock there is nothing to wait for (sno: from the
            // second step on, the first one flips the tick-tock bit and
            // goes on at the clock).
            let behind = if G::ORDERED { 1000..3000 } else { 2000..3000 };
            if behind.contains(&i) {
                assert_eq!(pauses, 0, "{}: ID {i} waited", G::NAME);
            }
            match i {
                // sno's first regression flips the tick-tock bit: no lead.
                1000 if !G::ORDERED => assert_eq!(lead, 0),
                1000 | 2000 => assert!(lead > step - 2 * G::UNIT_NANOS, "{}: {lead}", G::NAME),
                3000.. => assert_eq!(lead, 0, "{}: back at the clock", G::NAME),
                _ => {}
            }
        }
        let flips = check_order::<G>(&ids);
        assert_eq!(flips, if G::ORDERED { 0 } else { 1 }, "{}", G::NAME);
    }
}

fn steps_back_of_10_s<G: TestGenerator>() {
    steps_back::<G>(10 * SECOND, DEFAULT_MAX_LEAD);
}

fn steps_back_of_2_h<G: TestGenerator>() {
    steps_back::<G>(2 * HOUR, 5 * HOUR);
}

#[test]
fn a_step_back_of_10_s_goes_on_in_logical_time_without_waiting() {
    for_every_generator!(steps_back_of_10_s());
}

#[test]
fn a_step_back_of_2_h_goes_on_in_logical_time_when_max_lead_allows() {
    for_every_generator!(steps_back_of_2_h());
}

/// A duration in seconds the way errors print it.
fn seconds(nanos: i64) -> String {
    let text = format!("{:.3}", nanos as f64 / 1e9);
    format!("{} s", text.trim_end_matches('0').trim_end_matches('.'))
}

fn a_step_back_beyond_max_lead<G: TestGenerator>() {
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let floor = unit::<G>(T0 - 5 * HOUR);
    let mut marked = marked_above::<G>(SHARED_SLOT, floor);
    let mut ids = vec![];
    for _ in 0..10 {
        clock.now += 1000;
        ids.push(
            next_marked(&mut marked, &mut clock, DEFAULT_MAX_LEAD)
                .unwrap()
                .0,
        );
    }
    // sno's first step back flips the tick-tock bit and goes on at the
    // clock's unit; its second, into the window already used, cannot.
    let mut steps = 0;
    let err = loop {
        clock.now -= 2 * HOUR;
        steps += 1;
        match next_marked(&mut marked, &mut clock, DEFAULT_MAX_LEAD) {
            Ok((id, _)) => ids.push(id),
            Err(e) => break e,
        }
    };
    assert_eq!(steps, if G::ORDERED { 1 } else { 2 }, "{}", G::NAME);
    // The unit in use still has room: that is the one that would be used
    // (for sno after its flip not the highest unit used, which
    // `last_unit` gives).
    let in_use = marked
        .generator()
        .sequencers()
        .iter()
        .map(|s| s.state.unit)
        .max()
        .unwrap();
    let lead_nanos = start::<G>(in_use) - clock.now;
    assert!(lead_nanos > 2 * HOUR - G::UNIT_NANOS);
    assert_eq!(
        err,
        Error::ClockBehind {
            type_name: G::NAME,
            lead_nanos,
            max_lead_nanos: DEFAULT_MAX_LEAD
        }
    );
    assert_eq!(
        (err.kind(), err.kind().sqlstate()),
        (ErrorKind::NotReady, "55000")
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{name} generation stopped: the clock is {} behind the last {name} IDs issued",
            seconds(lead_nanos),
            name = G::NAME
        )
    );
    assert_eq!(
        err.detail().as_deref(),
        Some("IDs may run at most 60 s ahead of the clock.")
    );
    // Nothing changed: the same error again, and once the clock is back,
    // IDs go on (above all others but sno's flipped phase).
    assert_eq!(
        next_marked(&mut marked, &mut clock, DEFAULT_MAX_LEAD).unwrap_err(),
        err
    );
    clock.now += steps * 2 * HOUR;
    for _ in 0..10 {
        clock.now += 1000;
        ids.push(
            next_marked(&mut marked, &mut clock, DEFAULT_MAX_LEAD)
                .unwrap()
                .0,
        );
    }
    check_order::<G>(&ids);
}

#[test]
fn a_step_back_beyond_max_lead_stops_generation_with_55000() {
    for_every_generator!(a_step_back_beyond_max_lead());
}

/// The clock stands still 10 units below the floor; with two sequence
/// values per unit, logical time runs ahead until the next unit would
/// start more than `max_lead` after the clock.
fn logical_time_up_to_max_lead<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    let reading = T0 - 10 * G::UNIT_NANOS;
    let max_lead = 200 * G::UNIT_NANOS;
    let limits = Limits {
        mark: u64::MAX,
        max_lead,
    };
    let mut clock = ScriptedClock::new(reading, 1);
    let mut g = generator::<G>(G::NARROW_SLOT, floor);
    let mut ids = vec![];
    let err = loop {
        match g.attempt(&mut clock, &limits) {
            Ok(Step::Issued(id)) => {
                let unit = G::coordinates(&id).unit;
                assert_eq!(lead(&g), start::<G>(unit) - reading, "{}", G::NAME);
                assert!(lead(&g) <= max_lead);
                ids.push(id);
            }
            Ok(step) => panic!("{}: {step:?} with the clock behind", G::NAME),
            Err(e) => break e,
        }
    };
    let last = G::coordinates(ids.last().unwrap()).unit;
    assert_eq!(
        ids.len() as u64,
        2 * (last - floor),
        "{}: two per unit",
        G::NAME
    );
    assert!(ids.len() > 300);
    let expected = Error::ClockBehind {
        type_name: G::NAME,
        lead_nanos: start::<G>(last + 1) - reading,
        max_lead_nanos: max_lead,
    };
    assert_eq!(err, expected);
    let before = snapshot(&g);
    assert_eq!(g.attempt(&mut clock, &limits), Err(expected));
    assert_eq!(
        snapshot(&g),
        before,
        "{}: an error changes nothing",
        G::NAME
    );
    // One unit later on the clock, one more unit of logical time.
    clock.now += G::UNIT_NANOS;
    let next = issued::<G>(g.attempt(&mut clock, &limits));
    assert_eq!(G::coordinates(&next).unit, last + 1);
    ids.push(next);
    assert_eq!(check_order::<G>(&ids), 0);
    assert_eq!(clock.pauses, 0);
}

#[test]
fn logical_time_runs_at_most_max_lead_ahead_of_the_clock() {
    for_every_generator!(logical_time_up_to_max_lead());
}

fn blocking_generate_has_the_default_bound<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    let mut g = generator::<G>(SHARED_SLOT, floor);
    let mut clock = ScriptedClock::new(T0 - 30 * SECOND, 1);
    g.blocking(&mut clock).unwrap();
    assert_eq!(lead(&g), start::<G>(floor + 1) - clock.now);
    clock.now = T0 - 61 * SECOND;
    match g.blocking(&mut clock) {
        Err(Error::ClockBehind { max_lead_nanos, .. }) => {
            assert_eq!(max_lead_nanos, DEFAULT_MAX_LEAD)
        }
        other => panic!("{}: {other:?}", G::NAME),
    }
}

#[test]
fn blocking_generate_keeps_no_mark_and_runs_at_most_a_minute_ahead() {
    for_every_generator!(blocking_generate_has_the_default_bound());
}

// --- the mark -------------------------------------------------------------------

fn the_mark_bounds_the_units<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    let mut marked = marked_above::<G>(SHARED_SLOT, floor);
    assert_eq!(
        marked.mark(),
        floor,
        "{}: the mark starts at the floor",
        G::NAME
    );
    let mut clock = ScriptedClock::new(start::<G>(floor + 10) + 1, 1);
    assert_eq!(
        try_marked(&mut marked, &mut clock),
        Ok(Step::Extend(floor + 10))
    );
    assert!(snapshot(marked.generator()).is_empty());
    assert_eq!(
        (marked.mark(), marked.generator().last_unit()),
        (floor, floor)
    );

    let lease = marked.lease_for(floor + 10);
    assert_eq!(lease, unit::<G>(start::<G>(floor + 10) + LEASE_NANOS));
    marked.extend_to(lease);
    assert_eq!(marked.mark(), lease);
    let id = issued::<G>(try_marked(&mut marked, &mut clock));
    assert_eq!(G::coordinates(&id).unit, floor + 10);
    assert_eq!(marked.extension_due(), None, "{}: just extended", G::NAME);
    marked.extend_to(floor);
    assert_eq!(marked.mark(), lease, "a mark is never lowered");

    // A quarter of a lease on, nothing is due; three quarters on, the unit
    // in use is within half a lease of the mark: an extension is due while
    // IDs are still issued.
    clock.now = start::<G>(floor + 10) + LEASE_NANOS / 4;
    issued::<G>(try_marked(&mut marked, &mut clock));
    assert_eq!(marked.extension_due(), None, "{}", G::NAME);
    clock.now = start::<G>(floor + 10) + 3 * LEASE_NANOS / 4;
    let id = issued::<G>(try_marked(&mut marked, &mut clock));
    let in_use = G::coordinates(&id).unit;
    assert_eq!(marked.extension_due(), Some(in_use), "{}", G::NAME);
    assert_eq!(
        marked.extension_due(),
        Some(in_use),
        "{}: due again until extended",
        G::NAME
    );
    assert!(marked.lease_for(in_use) > lease);

    // Nobody extended it: past the mark, nothing is issued.
    clock.now = start::<G>(lease + 1);
    let before = snapshot(marked.generator());
    assert_eq!(
        try_marked(&mut marked, &mut clock),
        Ok(Step::Extend(lease + 1))
    );
    assert_eq!(snapshot(marked.generator()), before, "{}", G::NAME);
    marked.extend_to(marked.lease_for(lease + 1));
    let id = issued::<G>(try_marked(&mut marked, &mut clock));
    assert_eq!(G::coordinates(&id).unit, lease + 1);
    assert_eq!(clock.pauses, 0);
}

#[test]
fn no_unit_above_the_mark_is_used_before_the_mark_is_extended() {
    for_every_generator!(the_mark_bounds_the_units());
}

fn logical_time_stops_at_the_mark<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    let mut marked = marked_above::<G>(G::NARROW_SLOT, floor);
    marked.extend_to(floor + 3);
    let mut clock = ScriptedClock::new(T0 - SECOND, 1);
    let units: Vec<u64> = (0..6)
        .map(|_| G::coordinates(&issued::<G>(try_marked(&mut marked, &mut clock))).unit)
        .collect();
    assert_eq!(units, [1, 1, 2, 2, 3, 3].map(|k| floor + k), "{}", G::NAME);
    assert_eq!(
        try_marked(&mut marked, &mut clock),
        Ok(Step::Extend(floor + 4))
    );
    marked.extend_to(marked.lease_for(floor + 4));
    let id = issued::<G>(try_marked(&mut marked, &mut clock));
    assert_eq!(G::coordinates(&id).unit, floor + 4);
}

#[test]
fn logical_time_too_stops_at_the_mark() {
    for_every_generator!(logical_time_stops_at_the_mark());
}

fn a_learned_mark<G: TestGenerator>() {
    let floor = unit::<G>(T0);
    let mut marked = marked_above::<G>(SHARED_SLOT, floor);
    let mut clock = ScriptedClock::new(start::<G>(floor + 10), G::UNIT_NANOS / 4);
    let (first, _) = next_marked(&mut marked, &mut clock, DEFAULT_MAX_LEAD).unwrap();
    // Another server with this identity got as far as `learned` (its mark,
    // replayed from WAL): units up to it are never used here.
    let learned = unit::<G>(start::<G>(marked.mark()) + 2 * SECOND);
    marked.learn(learned);
    assert_eq!(marked.mark(), learned);
    let rows = marked.generator().sequencers();
    assert!(
        rows.iter().all(|row| row.state.floor == learned),
        "{}",
        G::NAME
    );
    let before = snapshot(marked.generator());
    assert_eq!(
        try_marked(&mut marked, &mut clock),
        Ok(Step::Extend(learned + 1))
    );
    assert_eq!(snapshot(marked.generator()), before);
    marked.extend_to(marked.lease_for(learned + 1));
    let next = issued::<G>(try_marked(&mut marked, &mut clock));
    assert_eq!(G::coordinates(&next).unit, learned + 1, "{}", G::NAME);
    assert_eq!(
        lead(marked.generator()),
        start::<G>(learned + 1) - clock.now
    );
    assert!(next > first);
    // A lower mark learned later changes nothing.
    let (mark, rows) = (marked.mark(), marked.generator().sequencers());
    marked.learn(floor);
    assert_eq!(marked.mark(), mark);
    assert_eq!(marked.generator().sequencers(), rows);
}

#[test]
fn a_learned_mark_raises_the_floor() {
    for_every_generator!(a_learned_mark());
}

// --- random clocks and restarts ------------------------------------------------

#[derive(Debug, Clone)]
enum Event {
    /// `ids` IDs, the clock moving `step` ns before each.
    Run { ids: usize, step: i64 },
    /// The clock goes back by so many ns.
    Back(i64),
    /// The clock jumps forward by so many ns.
    Jump(i64),
    /// The server restarts: a new generator above the last run's mark.
    Restart,
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        6 => (1usize..40, prop_oneof![0i64..2000, 0i64..3 * MS])
            .prop_map(|(ids, step)| Event::Run { ids, step }),
        2 => prop_oneof![3 => 1i64..20 * MS, 1 => 1i64..90 * SECOND].prop_map(Event::Back),
        1 => prop_oneof![1i64..20 * MS, 1i64..60 * SECOND].prop_map(Event::Jump),
        1 => Just(Event::Restart),
    ]
}

/// Plays `events` on `G` (the whole sequence space or two values per unit),
/// with the clock starting `offset` ns after [`T0`]. When the clock is more
/// than `max_lead` behind, generation fails, and the clock is moved on as
/// whoever runs the server would.
fn play<G: TestGenerator>(narrow: bool, offset: i64, events: &[Event]) {
    let slot = if narrow { G::NARROW_SLOT } else { SHARED_SLOT };
    let mut clock = ScriptedClock::new(T0 + offset, G::UNIT_NANOS / 3 + 1);
    let mut floors = vec![unit::<G>(clock.now)];
    let mut marked = marked_above::<G>(slot, floors[0]);
    let mut runs: Vec<Vec<G::Id>> = vec![vec![]];
    for event in events {
        match *event {
            Event::Run { ids, step } => {
                for _ in 0..ids {
                    clock.now += step;
                    match next_marked(&mut marked, &mut clock, DEFAULT_MAX_LEAD) {
                        Ok((id, _)) => runs.last_mut().unwrap().push(id),
                        Err(Error::ClockBehind {
                            type_name,
                            lead_nanos,
                            max_lead_nanos,
                        }) => {
                            assert_eq!(type_name, G::NAME);
                            assert!(lead_nanos > max_lead_nanos);
                            clock.now += lead_nanos - max_lead_nanos / 2;
                        }
                        Err(e) => panic!("{}: {e}", G::NAME),
                    }
                }
            }
            Event::Back(nanos) => clock.now -= nanos,
            Event::Jump(nanos) => clock.now += nanos,
            Event::Restart => {
                floors.push(marked.mark());
                marked = marked_above(slot, marked.mark());
                runs.push(vec![]);
            }
        }
    }
    let mut seen = HashSet::new();
    let mut highest: Option<G::Id> = None;
    for (run, floor) in runs.iter().zip(&floors) {
        check_order::<G>(run);
        for id in run {
            assert!(seen.insert(*id), "{}: {id:?} issued twice", G::NAME);
            assert!(
                G::coordinates(id).unit > *floor,
                "{}: at or below the floor",
                G::NAME
            );
            if let Some(highest) = highest {
                assert!(
                    *id > highest,
                    "{}: {id:?} below the previous run's {highest:?}",
                    G::NAME
                );
            }
        }
        highest = run.iter().copied().max().or(highest);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random clocks (steps forward, regressions of random size, jumps)
    /// and random restarts: every ID distinct, every run above the runs
    /// before it, and strictly increasing within a run (sno: within each
    /// tick-tock phase), with no wait longer than one unit.
    #[test]
    fn random_clocks_and_restarts_never_reissue_an_id(
        narrow in any::<bool>(),
        offset in prop_oneof![0i64..2 * SECOND, SECOND - 30 * MS..SECOND],
        events in prop::collection::vec(event(), 1..40),
    ) {
        for_every_generator!(play(narrow, offset, &events));
    }
}
