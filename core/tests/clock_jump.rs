//! A clock set far ahead, and the end of a format's time range (docs/guarantees.md
//! "Restarts, crashes and the clock"), for every coordination-based
//! generator, under a scripted clock whose monotonic clock only time moves:
//!
//! - a real-time clock stepped forward by more than `max_jump` since the
//!   reference is refused (55000) before a mark is recorded: the mark stays,
//!   and once the clock is back, generation goes on as if nothing happened;
//! - time passing (hours of idleness), a step back absorbed by logical time
//!   and its correction, and steps within the bound are not steps forward;
//! - a mark is never set beyond the format's last unit, and generation at
//!   the end of the range refuses with 22008 instead of wrapping to unit 0,
//!   also from a mark of `u64::MAX`.

mod common;

use common::generators::*;
use flake_core::clock::{Clock, ClockReference, ScriptedClock};
use flake_core::generator::{MarkedGenerator, LEASE_NANOS, SHARED_SLOT};
use flake_core::sequencer::{Step, DEFAULT_MAX_LEAD};
use flake_core::{Error, ErrorKind};

const YEAR: i64 = 365 * 24 * HOUR;
/// The bound the tests use (the setting's default).
const MAX_JUMP: i64 = 60 * SECOND;

/// One ID the way the extension makes it: before recording a mark, the
/// clock is checked ([`MarkedGenerator::check_clock`]) and an error leaves
/// the mark where it was; a due extension that fails the check is left for
/// later, as in `src/generator.rs`.
fn next_checked<G: TestGenerator>(
    marked: &mut MarkedGenerator<G>,
    clock: &mut ScriptedClock,
    max_jump: i64,
) -> flake_core::Result<G::Id> {
    for _ in 0..100_000 {
        let step = marked.try_generate(clock, DEFAULT_MAX_LEAD, |g, clock, limits| {
            g.attempt(clock, limits)
        });
        match step? {
            Step::Issued(id) => {
                assert!(G::coordinates(&id).unit <= marked.mark(), "{}", G::NAME);
                if let Some(unit) = marked.extension_due() {
                    if marked.check_clock(clock, max_jump).is_ok() {
                        marked.extend_to(marked.lease_for(unit));
                    }
                }
                return Ok(id);
            }
            Step::Wait => clock.pause(),
            Step::Extend(unit) => {
                let mark = marked.mark();
                if let Err(e) = marked.check_clock(clock, max_jump) {
                    assert_eq!(marked.mark(), mark, "{}: the mark moved", G::NAME);
                    return Err(e);
                }
                marked.extend_to(marked.lease_for(unit));
            }
        }
    }
    panic!("{}: no ID after 100 000 attempts", G::NAME);
}

/// A generator of a run that began at `clock`'s reading (the reference
/// taken then, as the extension does at server start).
fn started<G: TestGenerator>(clock: &mut ScriptedClock) -> MarkedGenerator<G> {
    let mut marked = marked_above::<G>(SHARED_SLOT, unit::<G>(clock.now) - 1);
    marked.check_clock(clock, MAX_JUMP).unwrap();
    marked
}

/// `n` IDs with the clock moving 10 µs per ID.
fn run<G: TestGenerator>(
    marked: &mut MarkedGenerator<G>,
    clock: &mut ScriptedClock,
    n: usize,
) -> Vec<G::Id> {
    (0..n)
        .map(|_| {
            clock.now += 10_000;
            next_checked(marked, clock, MAX_JUMP).unwrap()
        })
        .collect()
}

// --- a clock set ahead ------------------------------------------------------------

fn a_step_years_ahead<G: TestGenerator>() {
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut marked = started::<G>(&mut clock);
    let mut ids = run(&mut marked, &mut clock, 3000);
    let mark = marked.mark();
    assert!(G::start_of(mark) < (T0 + 2 * SECOND) as i128, "{}", G::NAME);

    clock.step(3 * YEAR);
    for _ in 0..3 {
        clock.now += 10_000;
        match next_checked(&mut marked, &mut clock, MAX_JUMP) {
            Err(
                e @ Error::ClockJumped {
                    type_name,
                    jump_nanos,
                    max_jump_nanos,
                },
            ) => {
                assert_eq!((type_name, max_jump_nanos), (G::NAME, MAX_JUMP));
                assert!((3 * YEAR..3 * YEAR + SECOND).contains(&jump_nanos));
                assert_eq!(e.kind(), ErrorKind::NotReady);
                assert_eq!(e.kind().sqlstate(), "55000");
                let text = e.to_string();
                assert!(
                    text.starts_with(&format!(
                        "{} generation stopped: the clock jumped 946080",
                        G::NAME
                    )),
                    "{text}"
                );
                assert!(e.detail().unwrap().contains("at most 60 s ahead"));
            }
            other => panic!("{}: expected ClockJumped, got {other:?}", G::NAME),
        }
        assert_eq!(marked.mark(), mark, "{}: the mark stays", G::NAME);
    }

    // The clock put right: generation goes on above the IDs made before.
    clock.step(-3 * YEAR);
    let after = run(&mut marked, &mut clock, 3000);
    assert!(after[0] > *ids.last().unwrap(), "{}", G::NAME);
    ids.extend(after);
    check_order::<G>(&ids);
    assert!(G::start_of(marked.mark()) < (clock.now + 2 * SECOND) as i128);
}

#[test]
fn a_clock_set_years_ahead_stops_generation_and_the_mark_stays() {
    for_every_generator!(a_step_years_ahead());
}

fn idle_hours<G: TestGenerator>() {
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut marked = started::<G>(&mut clock);
    let mut ids = run(&mut marked, &mut clock, 100);
    for idle in [10 * SECOND, 2 * HOUR, 30 * 24 * HOUR] {
        clock.now += idle;
        ids.extend(run(&mut marked, &mut clock, 100));
    }
    check_order::<G>(&ids);
    // The first run reads the clock at its start; hours later, nothing has
    // been recorded in between.
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut marked = started::<G>(&mut clock);
    clock.now += 5 * HOUR;
    run(&mut marked, &mut clock, 100);
}

#[test]
fn idle_time_is_not_a_step() {
    for_every_generator!(idle_hours());
}

fn steps_within_the_bound<G: TestGenerator>() {
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut marked = started::<G>(&mut clock);
    let mut ids = run(&mut marked, &mut clock, 100);
    // NTP-sized steps, and one just below the bound.
    for step in [SECOND / 2, 5 * SECOND, MAX_JUMP - SECOND] {
        clock.step(step);
        ids.extend(run(&mut marked, &mut clock, 100));
    }
    // Back 30 s (logical time goes on above), then put right: not a step
    // forward, because the reference keeps the highest offset.
    clock.step(-30 * SECOND);
    ids.extend(run(&mut marked, &mut clock, 100));
    clock.step(30 * SECOND);
    ids.extend(run(&mut marked, &mut clock, 100));
    check_order::<G>(&ids);
    // The bound counts from the last accepted offset, not from the start.
    clock.step(MAX_JUMP + SECOND);
    clock.now += 10_000;
    assert!(matches!(
        next_checked(&mut marked, &mut clock, MAX_JUMP),
        Err(Error::ClockJumped { .. })
    ));
}

#[test]
fn steps_within_the_bound_and_undone_steps_back_are_accepted() {
    for_every_generator!(steps_within_the_bound());
}

/// The steps back each generator counts (pg_flake_stats' clock_steps_back):
/// none while time only moves on, one per step back of at least a unit
/// (not one per ID issued while the clock is behind), none for putting it
/// right.
fn steps_back_counted<G: TestGenerator>() {
    let steps_back = |marked: &MarkedGenerator<G>| -> u64 {
        marked
            .generator()
            .sequencers()
            .iter()
            .map(|row| row.state.steps_back)
            .sum()
    };
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut marked = started::<G>(&mut clock);
    run(&mut marked, &mut clock, 1000);
    clock.step(5 * SECOND);
    run(&mut marked, &mut clock, 100);
    assert_eq!(steps_back(&marked), 0, "{}: time moving on", G::NAME);
    clock.step(-5 * SECOND);
    run(&mut marked, &mut clock, 1000);
    assert_eq!(steps_back(&marked), 1, "{}: one step back", G::NAME);
    clock.step(5 * SECOND);
    run(&mut marked, &mut clock, 100);
    clock.step(-2 * SECOND);
    run(&mut marked, &mut clock, 100);
    assert_eq!(steps_back(&marked), 2, "{}: a second one", G::NAME);
}

#[test]
fn each_step_back_of_the_clock_is_counted_once() {
    for_every_generator!(steps_back_counted());
}

fn no_check_or_forgotten<G: TestGenerator>() {
    // max_jump 0: no check.
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut marked = started::<G>(&mut clock);
    run(&mut marked, &mut clock, 100);
    clock.step(YEAR);
    clock.now += 10_000;
    next_checked(&mut marked, &mut clock, 0).unwrap();
    assert!(G::start_of(marked.mark()) > (T0 + YEAR) as i128);

    // A step confirmed by an administrator (pg_flake_set_mark): forgotten,
    // the new time is the reference.
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut marked = started::<G>(&mut clock);
    run(&mut marked, &mut clock, 100);
    clock.step(YEAR);
    clock.now += 10_000;
    assert!(next_checked(&mut marked, &mut clock, MAX_JUMP).is_err());
    marked.forget_clock();
    let ids = run(&mut marked, &mut clock, 100);
    assert!(G::coordinates(&ids[0]).unit >= unit::<G>(T0 + YEAR));
    // The new reference holds: a second step is refused again.
    clock.step(YEAR);
    clock.now += 10_000;
    assert!(next_checked(&mut marked, &mut clock, MAX_JUMP).is_err());

    // A run that begins with the clock already ahead has no reference to
    // tell (documented): the mark follows the clock.
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    clock.step(3 * YEAR);
    let mut marked = started::<G>(&mut clock);
    run(&mut marked, &mut clock, 10);
    assert!(G::start_of(marked.mark()) > (T0 + 3 * YEAR) as i128);
}

#[test]
fn without_a_bound_or_after_forgetting_the_reference_the_mark_follows_the_clock() {
    for_every_generator!(no_check_or_forgotten());
}

#[test]
fn a_clock_without_a_monotonic_reading_is_never_checked() {
    struct RealTimeOnly(ScriptedClock);
    impl Clock for RealTimeOnly {
        fn now_nanos(&mut self) -> i64 {
            self.0.now_nanos()
        }
        fn pause(&mut self) {
            self.0.pause()
        }
    }
    let mut clock = RealTimeOnly(ScriptedClock::new(T0, MS));
    let mut marked = marked_above::<flake_core::sno::SnoGenerator>(SHARED_SLOT, 0);
    marked.check_clock(&mut clock, MAX_JUMP).unwrap();
    clock.0.step(3 * YEAR);
    marked.check_clock(&mut clock, MAX_JUMP).unwrap();
}

// --- the end of the range ---------------------------------------------------------

/// The last clock reading `G` turns into a unit (found by bisection).
fn range_end<G: TestGenerator>() -> i64 {
    let (mut inside, mut beyond) = (T0, i64::MAX);
    if G::unit_at(beyond).is_ok() {
        return beyond;
    }
    while beyond - inside > 1 {
        let middle = inside + (beyond - inside) / 2;
        if G::unit_at(middle).is_ok() {
            inside = middle;
        } else {
            beyond = middle;
        }
    }
    inside
}

fn at_the_end<G: TestGenerator>() {
    let end = range_end::<G>();
    let last = unit::<G>(end);
    // A lease never reaches beyond the last unit.
    for from in [last - 3, last - 1, last] {
        assert_eq!(G::unit_after(from, LEASE_NANOS), last, "{}", G::NAME);
        assert_eq!(G::unit_after(from, i64::MAX), last, "{}", G::NAME);
    }
    assert_eq!(G::unit_after(u64::MAX, LEASE_NANOS), u64::MAX);

    // Logical time (the clock behind) reaching the last unit: refused with
    // 22008, in the format's range or at the end of the clock's.
    for slot in [SHARED_SLOT, G::NARROW_SLOT] {
        let mut marked = MarkedGenerator::<G>::above(slot.0, slot.1, last).unwrap();
        let mut clock = ScriptedClock::new(end - HOUR, G::UNIT_NANOS / 4);
        let step = marked.try_generate(&mut clock, i64::MAX, |g, clock, limits| {
            g.attempt(clock, limits)
        });
        let error = step.expect_err(G::NAME);
        assert_eq!(
            error.kind(),
            ErrorKind::DatetimeOverflow,
            "{}: {error}",
            G::NAME
        );
        assert!(error.to_string().contains(G::NAME), "{error}");
    }

    // A range that ends before the clock's: generation runs up to the last
    // unit as the clock reaches it, then refuses with 22008.
    if end == i64::MAX {
        return;
    }
    for slot in [SHARED_SLOT, G::NARROW_SLOT] {
        let mut clock = ScriptedClock::new(end - 3 * G::UNIT_NANOS, G::UNIT_NANOS / 4);
        let mut marked =
            MarkedGenerator::<G>::above(slot.0, slot.1, unit::<G>(clock.now) - 1).unwrap();
        let mut ids = vec![];
        let error = loop {
            clock.now = clock.now.saturating_add(1000).min(end);
            match next_checked(&mut marked, &mut clock, MAX_JUMP) {
                Ok(id) => ids.push(id),
                Err(e) => break e,
            }
            assert!(ids.len() < 1_000_000, "{}: no end", G::NAME);
        };
        assert_eq!(
            error.kind(),
            ErrorKind::DatetimeOverflow,
            "{}: {error}",
            G::NAME
        );
        assert!(error.to_string().contains(G::NAME), "{error}");
        assert!(!ids.is_empty());
        check_order::<G>(&ids);
        assert!(ids.iter().all(|id| G::coordinates(id).unit <= last));
        assert!(marked.mark() <= last, "{}: mark beyond the end", G::NAME);
        // It stays refused, and never wraps to unit 0.
        for _ in 0..10 {
            clock.pause();
            let again = next_checked(&mut marked, &mut clock, MAX_JUMP);
            assert_eq!(
                again.map_err(|e| e.kind()),
                Err(ErrorKind::DatetimeOverflow)
            );
        }
    }
}

#[test]
fn at_the_end_of_the_range_generation_refuses_with_22008_and_the_mark_saturates() {
    for_every_generator!(at_the_end());
}

fn from_the_last_u64<G: TestGenerator>() {
    // A mark of u64::MAX learned (replayed, or left in a marks file), and a
    // floor of u64::MAX: refused, never unit 0.
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut learned = marked_above::<G>(SHARED_SLOT, unit::<G>(T0));
    run(&mut learned, &mut clock, 10);
    learned.learn(u64::MAX);
    let mut floored = marked_above::<G>(SHARED_SLOT, u64::MAX);
    // And the format's last unit as a mark: nothing above it.
    let mut at_last = marked_above::<G>(SHARED_SLOT, unit::<G>(range_end::<G>()));
    for marked in [&mut learned, &mut floored, &mut at_last] {
        for _ in 0..3 {
            let step = marked.try_generate(&mut clock, i64::MAX, |g, clock, limits| {
                g.attempt(clock, limits)
            });
            let error = step.expect_err(G::NAME);
            assert_eq!(
                error.kind(),
                ErrorKind::DatetimeOverflow,
                "{}: {error}",
                G::NAME
            );
        }
    }
}

#[test]
fn a_mark_of_the_last_u64_refuses_with_22008_instead_of_wrapping() {
    for_every_generator!(from_the_last_u64());
}

#[test]
fn snowflake_refuses_at_the_end_of_its_epoch() {
    use flake_core::snowflake::{self, SnowflakeGenerator};
    let epoch = snowflake::DEFAULT_EPOCH_MILLIS;
    let end = (epoch + snowflake::MAX_MILLIS) * MS + MS - 1;
    let mut clock = ScriptedClock::new(end - 3 * MS, MS / 4);
    let mut marked =
        marked_above::<SnowflakeGenerator>(SHARED_SLOT, unit::<SnowflakeGenerator>(clock.now) - 1);
    let mut ids = vec![];
    let error = loop {
        clock.now = clock.now.saturating_add(1000).min(end);
        match next_checked(&mut marked, &mut clock, MAX_JUMP) {
            Ok(id) => ids.push(id),
            Err(e) => break e,
        }
    };
    assert_eq!(error.kind(), ErrorKind::DatetimeOverflow, "{error}");
    assert!(error.to_string().contains("snowflake"), "{error}");
    assert!(ids.iter().all(|id| *id >= 0));
    check_order::<SnowflakeGenerator>(&ids);
    let last = snowflake::parts(*ids.last().unwrap(), epoch).unwrap();
    assert_eq!(last.time, (epoch + snowflake::MAX_MILLIS) * 1000);
}

fn a_shared_reference<G: TestGenerator>() {
    // Per backend the run's reference is kept outside the generators (the
    // marks file): a backend that starts after a step compares with it.
    let mut clock = ScriptedClock::new(T0, G::UNIT_NANOS / 4);
    let mut first = started::<G>(&mut clock);
    run(&mut first, &mut clock, 100);
    let stored = ClockReference::from_offset(first.clock_reference().offset());
    assert_eq!(stored, first.clock_reference());
    assert!(stored.is_set());
    clock.step(3 * YEAR);
    let mut second = marked_above::<G>((1, 2), first.mark());
    second.set_clock_reference(stored);
    clock.now += 10_000;
    assert!(matches!(
        next_checked(&mut second, &mut clock, MAX_JUMP),
        Err(Error::ClockJumped { .. })
    ));
    assert_eq!(second.mark(), first.mark());
    assert_eq!(
        second.clock_reference(),
        stored,
        "{}: a refusal keeps it",
        G::NAME
    );
}

#[test]
fn a_reference_handed_to_another_generator_catches_a_step_before_its_first_id() {
    for_every_generator!(a_shared_reference());
}
