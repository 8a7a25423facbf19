//! Shared mode (docs/operations.md "Shared mode"): the state that lives in shared
//! memory, a `MarkedGenerator` of slot 0 of 1, driven the way the extension
//! drives it (read the clock, take the lock, one attempt, let go; pauses and
//! the recording of a higher mark happen outside the lock), under a
//! scripted clock — several callers on one counter, regressions for both
//! rules, readings made stale by other callers, the mark in steady state —
//! and with real threads behind a lock.

mod common;

use common::generators::{
    self, check_order, lead, marked_above, one_unit_of_pauses, start, unit, TestGenerator, HOUR,
    MS, SECOND, T0,
};
use flake_core::clock::{Clock, ReadAhead, ScriptedClock, SystemClock};
use flake_core::generator::{MarkedGenerator, SlotGenerator, SHARED_SLOT};
use flake_core::kuid::{self, Kuid64Generator, Kuid96Generator};
use flake_core::sequencer::{Limits, Step, DEFAULT_MAX_LEAD};
use flake_core::siq::{Kind, SiqGenerator};
use flake_core::sno::{self, SnoGenerator};
use flake_core::snowflake::{self, SnowflakeGenerator};
use flake_core::{ErrorKind, Result};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};

const EPOCH: i64 = snowflake::DEFAULT_EPOCH_MILLIS;

/// (time unit, sequence) of an ID, as read back from the ID itself.
type Coordinates = (i128, u32);

type Ahead<'a> = ReadAhead<'a, ScriptedClock>;

/// The server's generator at start: above `floor` (the previous run's
/// mark, or the unit the server started in), its mark there too.
fn shared_above<G: SlotGenerator>(floor: u64) -> MarkedGenerator<G> {
    marked_above(SHARED_SLOT, floor)
}

/// What the extension does in one attempt: read the clock, take the lock,
/// step, let go.
fn attempt<G: SlotGenerator, T>(
    clock: &mut ScriptedClock,
    shared: &mut MarkedGenerator<G>,
    step: impl FnOnce(&mut G, &mut Ahead, &Limits) -> Result<Step<T>>,
) -> Result<Step<T>> {
    let mut clock = ReadAhead::new(clock);
    // (lock)
    shared.try_generate(&mut clock, DEFAULT_MAX_LEAD, step)
    // (unlock)
}

/// What one caller does for one ID: attempts until one issues, pausing
/// outside the lock, and recording a higher mark (outside the lock too)
/// when an attempt asks for one or, after an ID, when one is due. Returns
/// the ID and how many attempts answered `Extend`.
fn one<G: SlotGenerator, T>(
    clock: &mut ScriptedClock,
    shared: &mut MarkedGenerator<G>,
    mut step: impl FnMut(&mut G, &mut Ahead, &Limits) -> Result<Step<T>>,
) -> Result<(T, usize)> {
    let mut extends = 0;
    loop {
        match attempt(clock, shared, &mut step)? {
            Step::Issued(id) => {
                if let Some(unit) = shared.extension_due() {
                    let mark = shared.lease_for(unit);
                    // (the mark is recorded durably here)
                    shared.extend_to(mark);
                }
                return Ok((id, extends));
            }
            Step::Wait => clock.pause(),
            Step::Extend(unit) => {
                extends += 1;
                let mark = shared.lease_for(unit);
                shared.extend_to(mark);
            }
        }
    }
}

/// Callers take turns on one shared state, each generating one ID per turn,
/// while the clock moves `advance` ns per ID. Returns the IDs in generation
/// order.
fn take_turns<G: SlotGenerator, T>(
    clock: &mut ScriptedClock,
    shared: &mut MarkedGenerator<G>,
    ids: usize,
    advance: i64,
    mut step: impl FnMut(&mut G, &mut Ahead, &Limits) -> Result<Step<T>>,
) -> Vec<T> {
    (0..ids)
        .map(|_| {
            clock.now += advance;
            one(clock, shared, &mut step).unwrap().0
        })
        .collect()
}

/// The proof of one counter: strictly increasing in generation order, and
/// within each time unit the sequence values are exactly `0, 1, 2, …`.
/// Returns the number of units.
fn assert_one_counter<T: Ord + Debug>(ids: &[T], coordinates: impl Fn(&T) -> Coordinates) -> usize {
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "strictly increasing across callers"
    );
    let mut units: BTreeMap<i128, Vec<u32>> = BTreeMap::new();
    for id in ids {
        let (unit, sequence) = coordinates(id);
        units.entry(unit).or_default().push(sequence);
    }
    let count = units.len();
    for (unit, sequences) in units {
        let expected: Vec<u32> = (0..sequences.len() as u32).collect();
        assert_eq!(
            sequences, expected,
            "unit {unit}: contiguous from the range's start"
        );
    }
    count
}

#[test]
fn the_shared_state_is_plain_data() {
    macro_rules! assert_plain_data {
        ($generator:ty) => {
            assert!(!std::mem::needs_drop::<MarkedGenerator<$generator>>());
            // Copy, so that shared memory can hold it without a destructor.
            let _: fn(&MarkedGenerator<$generator>) -> MarkedGenerator<$generator> = |g| *g;
        };
    }
    flake_core::for_each_slot_generator!(assert_plain_data);
}

#[test]
fn slot_0_of_1_has_process_0_and_the_whole_sequence_space() {
    assert_eq!(SHARED_SLOT, (0, 1));
    let sno = shared_above::<SnoGenerator>(0);
    let a = sno.generator().assignment();
    assert_eq!((a.process, a.range.first, a.range.last), (0, 0, 65535));
    let snowflake = shared_above::<SnowflakeGenerator>(0);
    let a = snowflake.generator().assignment();
    assert_eq!((a.process, a.range.first, a.range.last), (0, 0, 4095));
    let kuid = shared_above::<Kuid96Generator>(0);
    assert_eq!(kuid.generator().assignment().range.len(), 16384);
    let mut clock = ScriptedClock::new(T0, 1);
    let mut siq = shared_above::<SiqGenerator>(unit::<SiqGenerator>(T0 - MS));
    one(&mut clock, &mut siq, |g, clock, limits| {
        g.try_generate(clock, limits, Kind::Thread, 0)
    })
    .unwrap();
    let rows = siq.generator().sequencers();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].kind, Some("thread"));
    assert_eq!(rows[0].assignment.process, 0);
    assert_eq!(rows[0].assignment.range.len(), 4096);
}

#[test]
fn the_unit_of_server_start_is_never_used() {
    let mut clock = ScriptedClock::new(T0 + 100, MS / 4);
    let mut shared = shared_above::<SnowflakeGenerator>(unit::<SnowflakeGenerator>(T0));
    let step = |g: &mut SnowflakeGenerator, clock: &mut Ahead, limits: &Limits| {
        g.try_generate(clock, limits, 0, EPOCH)
    };
    let first_attempt = attempt(&mut clock, &mut shared, step).unwrap();
    assert_eq!(
        first_attempt,
        Step::Wait,
        "same millisecond as the start: wait"
    );
    let (first, extends) = one(&mut clock, &mut shared, step).unwrap();
    assert_eq!(extends, 1, "the mark starts at the floor: record one first");
    let p = snowflake::parts(first, EPOCH).unwrap();
    assert_eq!(p.time, (T0 + MS) / 1000);
    assert_eq!((p.process, p.sequence), (0, 0));
    assert_eq!(clock.pauses, 4);
}

#[test]
fn a_clock_outside_the_range_is_an_error_that_changes_nothing() {
    let floor = unit::<SnoGenerator>(T0);
    let mut clock = ScriptedClock::new(0, sno::UNIT_NANOS as i64);
    let mut shared = shared_above::<SnoGenerator>(floor);
    let step = |g: &mut SnoGenerator, clock: &mut Ahead, limits: &Limits| {
        g.try_generate(clock, limits, 0, 0)
    };
    let err = attempt(&mut clock, &mut shared, step).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    assert_eq!(
        shared.generator().state().issued,
        0,
        "an error changes nothing"
    );
    assert_eq!(
        (shared.mark(), shared.generator().last_unit()),
        (floor, floor)
    );
    clock.now = T0;
    let (first, _) = one(&mut clock, &mut shared, step).unwrap();
    assert_eq!(clock.pauses, 1, "the floor's unit is not used");
    assert_eq!(first.units(), floor + 1);
}

#[test]
fn kuid64_callers_share_one_counter() {
    let mut clock = ScriptedClock::new(T0, 300);
    let mut shared = shared_above::<Kuid64Generator>(unit::<Kuid64Generator>(T0));
    let ids = take_turns(&mut clock, &mut shared, 20_000, 300, |g, clock, limits| {
        g.try_generate(clock, limits)
    });
    let units = assert_one_counter(&ids, |&id| {
        let p = kuid::kuid64_parts(id).unwrap();
        (p.time as i128, p.seq)
    });
    assert!(units > 3);
}

#[test]
fn kuid96_callers_share_one_counter() {
    let mut clock = ScriptedClock::new(T0, 300);
    let mut shared = shared_above::<Kuid96Generator>(unit::<Kuid96Generator>(T0));
    let ids = take_turns(&mut clock, &mut shared, 20_000, 300, |g, clock, limits| {
        g.try_generate(clock, limits, 0xC0FFEE, 8)
    });
    let units = assert_one_counter(&ids, |id| {
        let p = id.parts(8).unwrap();
        assert_eq!(p.node, 0xC0FFEE);
        (p.time as i128, p.seq)
    });
    assert!(units > 3);
}

#[test]
fn snowflake_callers_share_one_counter_and_wait_when_it_is_used_up() {
    let mut clock = ScriptedClock::new(T0, MS / 10);
    let mut shared = shared_above::<SnowflakeGenerator>(unit::<SnowflakeGenerator>(T0));
    // 4096 per millisecond: at 100 ns per ID, most milliseconds run out.
    let ids = take_turns(&mut clock, &mut shared, 30_000, 100, |g, clock, limits| {
        g.try_generate(clock, limits, 3, EPOCH)
    });
    assert!(clock.pauses > 0, "the counter ran out and callers waited");
    let units = assert_one_counter(&ids, |&id| {
        let p = snowflake::parts(id, EPOCH).unwrap();
        assert_eq!((p.worker, p.process), (3, 0));
        (p.time as i128, p.sequence)
    });
    assert!(units > 3);
}

#[test]
fn sno_callers_share_one_counter() {
    let mut clock = ScriptedClock::new(T0, 50_000);
    let mut shared = shared_above::<SnoGenerator>(unit::<SnoGenerator>(T0));
    let ids = take_turns(
        &mut clock,
        &mut shared,
        20_000,
        1_000,
        |g, clock, limits| g.try_generate(clock, limits, 9, 0),
    );
    let units = assert_one_counter(&ids, |id| {
        assert_eq!(id.partition(), 9 << 8);
        (id.units() as i128, id.sequence() as u32)
    });
    assert!(units > 3);
}

#[test]
fn siq_callers_share_one_counter_per_kind() {
    let mut clock = ScriptedClock::new(T0, 3_000);
    let mut shared = shared_above::<SiqGenerator>(unit::<SiqGenerator>(T0));
    let mut kinds = [Kind::User, Kind::Message, Kind::Content]
        .into_iter()
        .cycle();
    let ids = take_turns(&mut clock, &mut shared, 30_000, 300, |g, clock, limits| {
        g.try_generate(clock, limits, kinds.next().unwrap_or(Kind::User), 0)
    });
    for kind in [Kind::User, Kind::Message, Kind::Content] {
        let of_kind: Vec<_> = ids.iter().filter(|i| i.kind() == Some(kind)).collect();
        assert_eq!(of_kind.len(), 10_000);
        let units = assert_one_counter(&of_kind, |id| {
            assert_eq!(id.shard(), 0);
            (id.ticks() as i128, id.serial() as u32)
        });
        assert!(units > 3);
    }
}

#[test]
fn a_regression_goes_on_in_logical_time_for_every_caller() {
    let mut clock = ScriptedClock::new(T0, MS / 4);
    let mut shared = shared_above::<SnowflakeGenerator>(unit::<SnowflakeGenerator>(T0));
    let step = |g: &mut SnowflakeGenerator, clock: &mut Ahead, limits: &Limits| {
        g.try_generate(clock, limits, 0, EPOCH)
    };
    clock.now = T0 + 10 * MS;
    let before = take_turns(&mut clock, &mut shared, 10, 0, step);
    // The clock goes back 5 ms: the rest of millisecond 10, then 11 and 12
    // of logical time, the counter going on and nobody waiting.
    clock.now = T0 + 5 * MS;
    let after = take_turns(&mut clock, &mut shared, 4086 + 2 * 4096, 0, step);
    assert_eq!(clock.pauses, 0);
    let all: Vec<i64> = before.iter().chain(&after).copied().collect();
    let units = assert_one_counter(&all, |&id| {
        let p = snowflake::parts(id, EPOCH).unwrap();
        (p.time as i128, p.sequence)
    });
    assert_eq!(units, 3);
    let last = snowflake::parts(*all.last().unwrap(), EPOCH).unwrap();
    assert_eq!((last.time, last.sequence), ((T0 + 12 * MS) / 1000, 4095));
    let state = shared.generator().state();
    assert_eq!(
        state.lead,
        7 * MS,
        "millisecond 12 starts 7 ms after the clock"
    );
    // The clock back inside the last unit used, used up: a wait of at most
    // one unit, then IDs at the clock again.
    clock.now = T0 + 12 * MS + MS / 2;
    assert_eq!(attempt(&mut clock, &mut shared, step).unwrap(), Step::Wait);
    let (next, _) = one(&mut clock, &mut shared, step).unwrap();
    assert_eq!(clock.pauses, 2);
    let p = snowflake::parts(next, EPOCH).unwrap();
    assert_eq!((p.time, p.sequence), ((T0 + 13 * MS) / 1000, 0));
    assert!(next > *all.last().unwrap());
}

#[test]
fn sno_regressions_follow_tick_tock_on_the_shared_state() {
    let unit = sno::UNIT_NANOS as i64;
    let mut clock = ScriptedClock::new(T0, unit);
    let mut shared = shared_above::<SnoGenerator>(generators::unit::<SnoGenerator>(T0 - unit));
    let step = |g: &mut SnoGenerator, clock: &mut Ahead, limits: &Limits| {
        g.try_generate(clock, limits, 0, 0)
    };
    let mut next = |clock: &mut ScriptedClock| one(clock, &mut shared, step).unwrap().0;
    clock.now = T0 + 10 * unit;
    let before = next(&mut clock);
    assert!(!before.tick_tock());
    // First regression: continue at once at the earlier unit, bit flipped.
    clock.now = T0 + 5 * unit;
    let after = next(&mut clock);
    assert!(after.tick_tock());
    assert_eq!((after.units(), after.sequence()), (before.units() - 5, 0));
    clock.now = T0 + 7 * unit;
    let later = next(&mut clock);
    // A second regression into the window already used goes on in the
    // flipped phase's unit instead, without waiting for the clock.
    clock.now = T0 + 6 * unit;
    let logical = next(&mut clock);
    assert_eq!(logical.units(), later.units());
    assert_eq!(logical.sequence(), later.sequence() + 1);
    assert!(logical.tick_tock());
    assert_eq!(clock.pauses, 0);
    let all = [before, after, later, logical];
    for (i, a) in all.iter().enumerate() {
        assert!(all[i + 1..].iter().all(|b| a != b), "unique");
    }
}

/// `THREADS` threads each generate `PER_THREAD` IDs from one shared state
/// behind a mutex, exactly as backends do in shared mode: read the clock,
/// lock, one attempt, unlock, pause (or record a higher mark) outside.
/// Returns each thread's IDs.
fn threads_sharing<G, T>(
    step: fn(&mut G, &mut ReadAhead<SystemClock>, &Limits) -> Result<Step<T>>,
) -> Vec<Vec<T>>
where
    G: SlotGenerator + Send + 'static,
    T: Send + 'static,
{
    const THREADS: usize = 8;
    const PER_THREAD: usize = 20_000;
    let floor = G::unit_at(flake_core::clock::system_now_nanos()).unwrap();
    let shared = Arc::new(Mutex::new(shared_above::<G>(floor)));
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                let mut clock = SystemClock;
                let mut ids = Vec::with_capacity(PER_THREAD);
                while ids.len() < PER_THREAD {
                    let mut ahead = ReadAhead::new(&mut clock);
                    let mut state = shared.lock().unwrap();
                    let result = state
                        .try_generate(&mut ahead, DEFAULT_MAX_LEAD, step)
                        .unwrap();
                    let extension = match result {
                        Step::Issued(_) => state.extension_due(),
                        Step::Wait => None,
                        Step::Extend(unit) => Some(unit),
                    }
                    .map(|unit| state.lease_for(unit));
                    drop(state);
                    match result {
                        Step::Issued(id) => ids.push(id),
                        Step::Wait => clock.pause(),
                        Step::Extend(_) => {}
                    }
                    if let Some(mark) = extension {
                        // (the mark is recorded durably here, outside the lock)
                        shared.lock().unwrap().extend_to(mark);
                    }
                }
                ids
            })
        })
        .collect();
    workers.into_iter().map(|w| w.join().unwrap()).collect()
}

/// Every thread's IDs increase; all of them together, sorted, are the one
/// counter's output (contiguous per unit).
fn assert_threads_shared_one_counter<T: Ord + Copy + Debug>(
    per_thread: Vec<Vec<T>>,
    coordinates: impl Fn(&T) -> Coordinates,
) {
    let total: usize = per_thread.iter().map(Vec::len).sum();
    let mut all = Vec::new();
    for ids in per_thread {
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "each thread increases");
        all.extend(ids);
    }
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), total, "all distinct");
    assert_one_counter(&all, coordinates);
}

#[test]
fn threads_sharing_one_kuid64_state_never_collide() {
    let ids =
        threads_sharing::<Kuid64Generator, _>(|g, clock, limits| g.try_generate(clock, limits));
    assert_threads_shared_one_counter(ids, |&id| {
        let p = kuid::kuid64_parts(id).unwrap();
        (p.time as i128, p.seq)
    });
}

#[test]
fn threads_sharing_one_sno_state_never_flip_tick_tock() {
    // Readings taken before the lock are often stale by the time it is
    // held; they are read again rather than taken for clock regressions.
    let ids =
        threads_sharing::<SnoGenerator, _>(|g, clock, limits| g.try_generate(clock, limits, 0, 0));
    assert_threads_shared_one_counter(ids, |id| {
        assert!(!id.tick_tock(), "no regression, so no flip");
        (id.units() as i128, id.sequence() as u32)
    });
}

// --- readings taken before the lock -------------------------------------------

/// One ID for a session whose first clock reading, `early`, was taken
/// before it held the lock (and may be stale by then); every later reading
/// is `world`'s, whose pauses move it on. Returns the ID and the pauses.
fn with_reading<G: TestGenerator>(
    shared: &mut MarkedGenerator<G>,
    world: &mut ScriptedClock,
    mut early: i64,
) -> (G::Id, u64) {
    let pauses = world.pauses;
    loop {
        let mut session = ScriptedClock::new(world.now, world.pause_step);
        session.script([early, world.now]);
        let mut ahead = ReadAhead::new(&mut session);
        let step = shared.try_generate(&mut ahead, DEFAULT_MAX_LEAD, |g, clock, limits| {
            g.attempt(clock, limits)
        });
        match step.unwrap() {
            Step::Issued(id) => return (id, world.pauses - pauses),
            Step::Wait => world.pause(),
            Step::Extend(unit) => shared.extend_to(shared.lease_for(unit)),
        }
        early = world.now;
    }
}

/// One ID for a session that reads the clock once it holds the lock.
fn fresh<G: TestGenerator>(
    shared: &mut MarkedGenerator<G>,
    world: &mut ScriptedClock,
) -> (G::Id, u64) {
    let now = world.now;
    with_reading(shared, world, now)
}

#[test]
fn a_reading_made_stale_by_another_caller_is_taken_again() {
    let unit = sno::UNIT_NANOS as i64;
    let mut world = ScriptedClock::new(T0 + 10 * unit, unit);
    let mut shared = shared_above::<SnoGenerator>(generators::unit::<SnoGenerator>(T0));
    let (first, _) = fresh(&mut shared, &mut world);
    // A reads the clock in unit 10 and, before it holds the lock, B makes
    // an ID in unit 11. A's reading is behind; its second, fresh reading
    // (unit 11 too) is the one that counts.
    let early_a = world.now;
    world.now = T0 + 11 * unit;
    let (b, _) = fresh(&mut shared, &mut world);
    let (a, _) = with_reading(&mut shared, &mut world, early_a);
    assert!(!a.tick_tock() && !b.tick_tock(), "not a regression");
    assert_eq!((a.units(), a.sequence()), (b.units(), 1));
    assert!(a > b && b > first);
    // A real regression is still one: both readings are behind.
    world.now = T0 + 5 * unit;
    let (back, _) = fresh(&mut shared, &mut world);
    assert!(back.tick_tock());
    assert_eq!(back.units(), b.units() - 6);
    assert_eq!(world.pauses, 0);
}

#[test]
fn a_reading_taken_before_another_callers_regression_does_not_undo_it() {
    // Issue 18's stall: sno, several sessions, the clock stepped back 10 s.
    let unit = sno::UNIT_NANOS as i64;
    let mut world = ScriptedClock::new(T0, unit / 4);
    let mut shared = shared_above::<SnoGenerator>(generators::unit::<SnoGenerator>(T0 - HOUR));
    let (before, _) = fresh(&mut shared, &mut world);
    // Session A reads the clock; before it holds the lock, the clock is
    // stepped back 10 s and session B applies the regression: tick-tock.
    let early_a = world.now;
    world.now -= 10 * SECOND;
    let (b, _) = fresh(&mut shared, &mut world);
    assert!(b.tick_tock());
    assert_eq!(b.units(), before.units() - 2500);
    // A's reading, from before the step, is not the unit in use: read
    // again, it is B's unit, and A's ID comes right after B's. (Taken as it
    // was, it would have moved the unit back to before the step, where the
    // next caller, reading the stepped clock, found a window it may not
    // use and waited 10 s.)
    let (a, waited) = with_reading(&mut shared, &mut world, early_a);
    assert_eq!(waited, 0);
    assert_eq!(
        (a.units(), a.sequence(), a.tick_tock()),
        (b.units(), 1, true)
    );
    // Nobody waits: the sessions go on at the clock, one unit after another.
    for k in 0..100 {
        world.now += unit / 2;
        let early = world.now;
        let (other, _) = fresh(&mut shared, &mut world);
        let (late, _) = with_reading(&mut shared, &mut world, early);
        assert!(other.tick_tock() && late > other, "{k}");
        assert_eq!(shared.generator().state().lead, 0, "{k}: at the clock");
    }
    assert_eq!(world.pauses, 0);
}

/// Two sessions per turn over 3000 turns: A reads the clock, then (at turns
/// 1000 and 2000, after the clock was stepped back 10 s) B makes an ID with
/// a fresh reading, then A with its early one. No ID waits more than one
/// unit, all are distinct and ordered (sno: one flip, at the first step, and
/// IDs at the clock until the second).
fn stale_readings_across_steps_back<G: TestGenerator>() {
    let floor = unit::<G>(T0 - HOUR);
    let mut shared = shared_above::<G>(floor);
    let mut world = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut ids = vec![];
    for turn in 0..3000 {
        let early = world.now;
        if turn == 1000 || turn == 2000 {
            world.now -= 10 * SECOND;
        }
        let (id, waited) = fresh(&mut shared, &mut world);
        ids.push(id);
        // (The lead is measured against the reading an ID was made with:
        // after B's, against the clock.)
        let lead = lead(shared.generator());
        let (id, waited_a) = with_reading(&mut shared, &mut world, early);
        ids.push(id);
        for waited in [waited, waited_a] {
            assert!(waited <= one_unit_of_pauses::<G>(&world), "{}", G::NAME);
        }
        if !G::ORDERED && (1000..2000).contains(&turn) {
            assert_eq!(
                lead,
                0,
                "{}: turn {turn}: the flipped phase is at the clock",
                G::NAME
            );
        } else if (1000..3000).contains(&turn) {
            assert!(lead > 9 * SECOND, "{}: turn {turn}: logical time", G::NAME);
        }
        world.now += 1000;
    }
    let flips = check_order::<G>(&ids);
    assert_eq!(flips, if G::ORDERED { 0 } else { 1 }, "{}", G::NAME);
    assert!(ids.iter().all(|id| G::coordinates(id).unit > floor));
    let last = G::coordinates(ids.last().unwrap()).unit;
    assert!(start::<G>(last) - world.now < 21 * SECOND);
}

#[test]
fn readings_taken_before_a_step_back_cost_no_wait_for_any_generator() {
    for_every_generator!(stale_readings_across_steps_back());
}

#[test]
fn in_steady_state_nobody_waits_for_the_mark() {
    // Three seconds of IDs, the clock moving 50 µs per ID: the mark moves a
    // lease ahead half a lease before it is reached, so after the first
    // extension (the mark starts at the floor) no attempt answers Extend.
    let mut clock = ScriptedClock::new(T0, MS / 4);
    let mut shared = shared_above::<SnowflakeGenerator>(unit::<SnowflakeGenerator>(T0 - MS));
    let step = |g: &mut SnowflakeGenerator, clock: &mut Ahead, limits: &Limits| {
        g.try_generate(clock, limits, 0, EPOCH)
    };
    let mut marks = vec![shared.mark()];
    let mut extends = 0;
    for _ in 0..60_000 {
        clock.now += 50_000;
        let (id, asked) = one(&mut clock, &mut shared, step).unwrap();
        extends += asked;
        let unit = (snowflake::parts(id, EPOCH).unwrap().time / 1000) as u64;
        assert!(unit <= shared.mark());
        if marks.last() != Some(&shared.mark()) {
            marks.push(shared.mark());
        }
    }
    assert_eq!(extends, 1);
    // One mark to record per half a second of IDs, not one per ID.
    assert!((6..=8).contains(&marks.len()), "{marks:?}");
}
