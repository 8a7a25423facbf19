//! Shared mode (README "Shared mode"): the state type that lives in shared memory,
//! driven the way the extension drives it (one attempt per lock, pauses
//! outside), under a scripted clock and with real threads.

use flake_core::clock::{retry, ReadAhead, ScriptedClock, SystemClock};
use flake_core::generator::{SharedGenerator, SlotGenerator, SHARED_SLOT};
use flake_core::kuid::{self, Kuid64Generator, Kuid96Generator};
use flake_core::siq::{Kind, SiqGenerator};
use flake_core::sno::{self, SnoGenerator};
use flake_core::snowflake::{self, SnowflakeGenerator};
use flake_core::{ErrorKind, Result};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};

const T0: i64 = 1_700_000_000_000_000_000; // 2023-11-14, on a 4 ms boundary
const MS: i64 = 1_000_000;
const EPOCH: i64 = snowflake::DEFAULT_EPOCH_MILLIS;

/// (time unit, sequence) of an ID, as read back from the ID itself.
type Coordinates = (i128, u32);

/// `callers` callers take turns on one shared state, each generating one ID
/// per turn, while the clock moves `advance` ns per ID. Returns the IDs in
/// generation order.
fn take_turns<G: SlotGenerator, T>(
    clock: &mut ScriptedClock,
    shared: &mut SharedGenerator<G>,
    ids: usize,
    advance: i64,
    mut step: impl FnMut(&mut G, &mut Ahead) -> Result<Option<T>>,
) -> Vec<T> {
    (0..ids)
        .map(|_| {
            clock.now += advance;
            retry(clock, |clock| attempt(clock, shared, &mut step)).unwrap()
        })
        .collect()
}

type Ahead<'a> = ReadAhead<'a, ScriptedClock>;

/// What the extension does in one attempt: read the clock, take the lock,
/// step, let go (pauses happen outside, in `retry`).
fn attempt<G: SlotGenerator, T>(
    clock: &mut ScriptedClock,
    shared: &mut SharedGenerator<G>,
    step: impl FnOnce(&mut G, &mut Ahead) -> Result<Option<T>>,
) -> Result<Option<T>> {
    let mut clock = ReadAhead::new(clock);
    // (lock)
    shared.try_generate(&mut clock, step)
    // (unlock)
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

fn assert_plain_data<T: Copy>() {
    assert!(!std::mem::needs_drop::<T>());
}

#[test]
fn the_shared_state_is_plain_data() {
    assert_plain_data::<SharedGenerator<SnoGenerator>>();
    assert_plain_data::<SharedGenerator<SiqGenerator>>();
    assert_plain_data::<SharedGenerator<SnowflakeGenerator>>();
    assert_plain_data::<SharedGenerator<Kuid64Generator>>();
    assert_plain_data::<SharedGenerator<Kuid96Generator>>();
}

#[test]
fn slot_0_of_1_has_process_0_and_the_whole_sequence_space() {
    assert_eq!(SHARED_SLOT, (0, 1));
    let mut clock = ScriptedClock::new(T0, 1);
    let sno = SharedGenerator::<SnoGenerator>::starting_now(&mut clock);
    let a = sno.generator().unwrap().assignment();
    assert_eq!((a.process, a.range.first, a.range.last), (0, 0, 65535));
    let snowflake = SharedGenerator::<SnowflakeGenerator>::starting_now(&mut clock);
    let a = snowflake.generator().unwrap().assignment();
    assert_eq!((a.process, a.range.first, a.range.last), (0, 0, 4095));
    let kuid = SharedGenerator::<Kuid96Generator>::starting_now(&mut clock);
    assert_eq!(kuid.generator().unwrap().assignment().range.len(), 16384);
    let mut siq = SharedGenerator::<SiqGenerator>::starting_now(&mut clock);
    clock.now += MS;
    retry(&mut clock, |clock| {
        attempt(clock, &mut siq, |g, clock| {
            g.try_generate(clock, Kind::Thread, 0)
        })
    })
    .unwrap();
    let rows = siq.generator().unwrap().sequencers();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].kind, Some("thread"));
    assert_eq!(rows[0].assignment.process, 0);
    assert_eq!(rows[0].assignment.range.len(), 4096);
}

#[test]
fn the_unit_of_server_start_is_never_used() {
    let mut clock = ScriptedClock::new(T0 + 100, MS / 4);
    let mut shared = SharedGenerator::<SnowflakeGenerator>::starting_now(&mut clock);
    let first_attempt = attempt(&mut clock, &mut shared, |g, clock| {
        g.try_generate(clock, 0, EPOCH)
    })
    .unwrap();
    assert_eq!(first_attempt, None, "same millisecond as the start: wait");
    let first = retry(&mut clock, |clock| {
        attempt(clock, &mut shared, |g, clock| {
            g.try_generate(clock, 0, EPOCH)
        })
    })
    .unwrap();
    let p = snowflake::parts(first, EPOCH).unwrap();
    assert_eq!(p.time, (T0 + MS) / 1000);
    assert_eq!((p.process, p.sequence), (0, 0));
    assert_eq!(clock.pauses, 4);
}

#[test]
fn a_clock_outside_the_range_at_start_makes_the_generator_on_first_use() {
    let mut clock = ScriptedClock::new(0, sno::UNIT_NANOS as i64);
    let mut shared = SharedGenerator::<SnoGenerator>::starting_now(&mut clock);
    assert!(shared.generator().is_none());
    let err = attempt(&mut clock, &mut shared, |g, clock| {
        g.try_generate(clock, 0, 0)
    })
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DatetimeOverflow);
    assert!(shared.generator().is_none(), "an error changes nothing");
    clock.now = T0;
    let first = retry(&mut clock, |clock| {
        attempt(clock, &mut shared, |g, clock| g.try_generate(clock, 0, 0))
    })
    .unwrap();
    assert_eq!(clock.pauses, 1, "made at T0, so T0's unit is not used");
    assert_eq!(first.units(), sno::units_at(T0 as i128).unwrap() + 1);
}

#[test]
fn kuid64_callers_share_one_counter() {
    let mut clock = ScriptedClock::new(T0, 300);
    let mut shared = SharedGenerator::<Kuid64Generator>::starting_now(&mut clock);
    let ids = take_turns(&mut clock, &mut shared, 20_000, 300, |g, clock| {
        g.try_generate(clock)
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
    let mut shared = SharedGenerator::<Kuid96Generator>::starting_now(&mut clock);
    let ids = take_turns(&mut clock, &mut shared, 20_000, 300, |g, clock| {
        g.try_generate(clock, 0xC0FFEE, 8)
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
    let mut shared = SharedGenerator::<SnowflakeGenerator>::starting_now(&mut clock);
    // 4096 per millisecond: at 100 ns per ID, most milliseconds run out.
    let ids = take_turns(&mut clock, &mut shared, 30_000, 100, |g, clock| {
        g.try_generate(clock, 3, EPOCH)
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
    let mut shared = SharedGenerator::<SnoGenerator>::starting_now(&mut clock);
    let ids = take_turns(&mut clock, &mut shared, 20_000, 1_000, |g, clock| {
        g.try_generate(clock, 9, 0)
    });
    let units = assert_one_counter(&ids, |id| {
        assert_eq!(id.partition(), 9 << 8);
        (id.units() as i128, id.sequence() as u32)
    });
    assert!(units > 3);
}

#[test]
fn siq_callers_share_one_counter_per_kind() {
    let mut clock = ScriptedClock::new(T0, 3_000);
    let mut shared = SharedGenerator::<SiqGenerator>::starting_now(&mut clock);
    let mut kinds = [Kind::User, Kind::Message, Kind::Content]
        .into_iter()
        .cycle();
    let ids = take_turns(&mut clock, &mut shared, 30_000, 300, |g, clock| {
        g.try_generate(clock, kinds.next().unwrap_or(Kind::User), 0)
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
fn a_regression_holds_the_last_unit_for_every_caller() {
    let mut clock = ScriptedClock::new(T0, MS / 4);
    let mut shared = SharedGenerator::<SnowflakeGenerator>::starting_now(&mut clock);
    let step = |g: &mut SnowflakeGenerator, clock: &mut Ahead| g.try_generate(clock, 0, EPOCH);
    clock.now = T0 + 10 * MS;
    let before = take_turns(&mut clock, &mut shared, 10, 0, step);
    // The clock goes back 5 ms: the last unit is kept and counting goes on.
    clock.now = T0 + 5 * MS;
    let after = take_turns(&mut clock, &mut shared, 4086, 0, step);
    assert_eq!(clock.pauses, 0);
    let all: Vec<i64> = before.iter().chain(&after).copied().collect();
    let units = assert_one_counter(&all, |&id| {
        let p = snowflake::parts(id, EPOCH).unwrap();
        (p.time as i128, p.sequence)
    });
    assert_eq!(units, 1, "held at the last unit");
    let p = snowflake::parts(all[0], EPOCH).unwrap();
    assert_eq!(p.time, (T0 + 10 * MS) / 1000);
    // The held unit is used up: no attempt succeeds until the clock passes it.
    assert_eq!(attempt(&mut clock, &mut shared, step).unwrap(), None);
    clock.now = T0 + 10 * MS + MS / 2;
    assert_eq!(attempt(&mut clock, &mut shared, step).unwrap(), None);
    let next = retry(&mut clock, |clock| attempt(clock, &mut shared, step)).unwrap();
    let p = snowflake::parts(next, EPOCH).unwrap();
    assert_eq!((p.time, p.sequence), ((T0 + 11 * MS) / 1000, 0));
    assert!(next > *all.last().unwrap());
}

#[test]
fn sno_regressions_follow_tick_tock_on_the_shared_state() {
    let unit = sno::UNIT_NANOS as i64;
    let mut clock = ScriptedClock::new(T0 - unit, unit);
    let mut shared = SharedGenerator::<SnoGenerator>::starting_now(&mut clock);
    let step = |g: &mut SnoGenerator, clock: &mut Ahead| g.try_generate(clock, 0, 0);
    let mut one = |clock: &mut ScriptedClock| {
        retry(clock, |clock| attempt(clock, &mut shared, step)).unwrap()
    };
    clock.now = T0 + 10 * unit;
    let before = one(&mut clock);
    assert!(!before.tick_tock());
    // First regression: continue at once at the earlier unit, bit flipped.
    clock.now = T0 + 5 * unit;
    let after = one(&mut clock);
    assert!(after.tick_tock());
    assert_eq!((after.units(), after.sequence()), (before.units() - 5, 0));
    assert_eq!(clock.pauses, 0);
    clock.now = T0 + 7 * unit;
    let later = one(&mut clock);
    // A second regression into the window already used waits instead.
    clock.now = T0 + 6 * unit;
    let waited = one(&mut clock);
    assert_eq!(clock.pauses, 1);
    assert_eq!(waited.units(), later.units());
    assert_eq!(waited.sequence(), later.sequence() + 1);
    assert!(waited.tick_tock());
    let all = [before, after, later, waited];
    for (i, a) in all.iter().enumerate() {
        assert!(all[i + 1..].iter().all(|b| a != b), "unique");
    }
}

/// `THREADS` threads each generate `PER_THREAD` IDs from one shared state
/// behind a mutex, exactly as backends do in shared mode: read the clock,
/// lock, one attempt, unlock, pause outside. Returns each thread's IDs.
fn threads_sharing<G, T>(
    step: fn(&mut G, &mut ReadAhead<SystemClock>) -> Result<Option<T>>,
) -> Vec<Vec<T>>
where
    G: SlotGenerator + Send + 'static,
    T: Send + 'static,
{
    const THREADS: usize = 8;
    const PER_THREAD: usize = 20_000;
    let shared = Arc::new(Mutex::new(SharedGenerator::<G>::starting_now(
        &mut SystemClock,
    )));
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                let mut clock = SystemClock;
                (0..PER_THREAD)
                    .map(|_| {
                        retry(&mut clock, |clock: &mut SystemClock| {
                            let mut clock = ReadAhead::new(clock);
                            let mut state = shared.lock().unwrap();
                            state.try_generate(&mut clock, step)
                        })
                        .unwrap()
                    })
                    .collect::<Vec<T>>()
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
    let ids = threads_sharing::<Kuid64Generator, _>(|g, clock| g.try_generate(clock));
    assert_threads_shared_one_counter(ids, |&id| {
        let p = kuid::kuid64_parts(id).unwrap();
        (p.time as i128, p.seq)
    });
}

#[test]
fn threads_sharing_one_sno_state_never_flip_tick_tock() {
    // Readings taken before the lock are often stale by the time it is
    // held; they are read again rather than taken for clock regressions.
    let ids = threads_sharing::<SnoGenerator, _>(|g, clock| g.try_generate(clock, 0, 0));
    assert_threads_shared_one_counter(ids, |id| {
        assert!(!id.tick_tock(), "no regression, so no flip");
        (id.units() as i128, id.sequence() as u32)
    });
}

#[test]
fn a_reading_made_stale_by_another_caller_is_taken_again() {
    let unit = sno::UNIT_NANOS as i64;
    let mut clock_a = ScriptedClock::new(T0, unit);
    let mut clock_b = ScriptedClock::new(T0, unit);
    let mut shared = SharedGenerator::<SnoGenerator>::starting_now(&mut clock_a);
    let step = |g: &mut SnoGenerator, clock: &mut Ahead| g.try_generate(clock, 0, 0);
    // A reads the clock in unit 10 and, before it holds the lock, B makes
    // an ID in unit 11. A's reading is behind; its second, fresh reading
    // (unit 11 too) is the one that counts.
    clock_a.script([T0 + 10 * unit, T0 + 11 * unit]);
    let mut ahead_a = ReadAhead::new(&mut clock_a);
    clock_b.now = T0 + 11 * unit;
    let b = attempt(&mut clock_b, &mut shared, step).unwrap().unwrap();
    let a = shared.try_generate(&mut ahead_a, step).unwrap().unwrap();
    assert!(!a.tick_tock() && !b.tick_tock(), "not a regression");
    assert_eq!((a.units(), a.sequence()), (b.units(), 1));
    assert!(a > b);
    // A real regression is still one: both readings are behind.
    clock_a.script([T0 + 5 * unit, T0 + 5 * unit]);
    let back = attempt(&mut clock_a, &mut shared, step).unwrap().unwrap();
    assert!(back.tick_tock());
    assert_eq!(back.units(), b.units() - 6);
}
