//! One face for every coordination-based generator of the registry
//! `flake_core::for_each_slot_generator!`, so that a rule of docs/guarantees.md
//! "Guarantees" is written once and checked for all of them: fixed settings
//! per format, the unit and sequence value every ID carries (read back from
//! the ID itself, with its fixed fields checked), and the loop the extension
//! runs around a [`MarkedGenerator`] (extend the mark when due or asked,
//! pause while a unit is used up).

use flake_core::clock::{Clock, ScriptedClock};
use flake_core::generator::{MarkedGenerator, SlotGenerator};
use flake_core::kuid::{self, Kuid64Generator, Kuid96, Kuid96Generator};
use flake_core::sequencer::{Limits, SequencerState, Step};
use flake_core::siq::{Kind, Siq, SiqGenerator};
use flake_core::sno::{Sno, SnoGenerator};
use flake_core::snowflake::{self, SnowflakeGenerator};
use flake_core::Result;
use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;

/// 2023-11-14T22:13:20Z: a second boundary, so the start of a unit in every
/// format (SIQ's tick 111 411 200 000 000 too).
pub const T0: i64 = 1_700_000_000_000_000_000;
pub const MS: i64 = 1_000_000;
pub const SECOND: i64 = 1_000_000_000;
pub const HOUR: i64 = 3600 * SECOND;

/// Where an ID says its generator was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coordinates {
    pub unit: u64,
    pub sequence: u32,
    pub tick_tock: bool,
}

/// A coordination-based generator with the settings the tests use.
pub trait TestGenerator: SlotGenerator + Debug {
    type Id: Copy + Ord + Hash + Debug;
    /// The type's name, as errors give it.
    const NAME: &'static str;
    /// Whether IDs strictly increase whatever the clock does: all but sno,
    /// whose tick-tock rule orders IDs within each phase only.
    const ORDERED: bool;
    /// The longest time unit, in nanoseconds (kuid: 1024 µs).
    const UNIT_NANOS: i64;
    /// Slot 0 of so many slots that its sequence range holds two values, so
    /// that units run out after two IDs (SIQ: of kind `user`).
    const NARROW_SLOT: (u32, u32);

    /// One attempt (the generator's `try_generate`).
    fn attempt<C: Clock>(&mut self, clock: &mut C, limits: &Limits) -> Result<Step<Self::Id>>;
    /// The blocking `generate`: no mark, logical time bounded by the default.
    fn blocking<C: Clock>(&mut self, clock: &mut C) -> Result<Self::Id>;
    /// Read back from the ID; panics if a fixed field is not the setting's,
    /// or if the ID's time is not a valid time of its unit.
    fn coordinates(id: &Self::Id) -> Coordinates;
    /// The state of the sequencer the tests drive (SIQ: kind `user`'s), once
    /// it exists.
    fn state(&self) -> Option<SequencerState>;
}

const SNO_NODE: u8 = 0x12;
const SNO_META: u8 = 0x34;

impl TestGenerator for SnoGenerator {
    type Id = Sno;
    const NAME: &'static str = "sno";
    const ORDERED: bool = false;
    const UNIT_NANOS: i64 = flake_core::sno::UNIT_NANOS as i64;
    const NARROW_SLOT: (u32, u32) = (0, 256 * 32_768);

    fn attempt<C: Clock>(&mut self, clock: &mut C, limits: &Limits) -> Result<Step<Sno>> {
        self.try_generate(clock, limits, SNO_NODE, SNO_META)
    }
    fn blocking<C: Clock>(&mut self, clock: &mut C) -> Result<Sno> {
        self.generate(clock, SNO_NODE, SNO_META)
    }
    fn coordinates(id: &Sno) -> Coordinates {
        assert_eq!(
            (id.partition() >> 8, id.meta()),
            (SNO_NODE as u16, SNO_META)
        );
        assert_eq!(Self::unit_at(id.unix_nanos() as i64).unwrap(), id.units());
        Coordinates {
            unit: id.units(),
            sequence: id.sequence() as u32,
            tick_tock: id.tick_tock(),
        }
    }
    fn state(&self) -> Option<SequencerState> {
        Some(SnoGenerator::state(self))
    }
}

const SIQ_KIND: Kind = Kind::User;
const SIQ_DOMAIN_HASH: u32 = 0xdead_beef;

impl TestGenerator for SiqGenerator {
    type Id = Siq;
    const NAME: &'static str = "siq";
    const ORDERED: bool = true;
    const UNIT_NANOS: i64 = 15_259;
    const NARROW_SLOT: (u32, u32) = (0, 256 * 1024);

    fn attempt<C: Clock>(&mut self, clock: &mut C, limits: &Limits) -> Result<Step<Siq>> {
        self.try_generate(clock, limits, SIQ_KIND, SIQ_DOMAIN_HASH)
    }
    fn blocking<C: Clock>(&mut self, clock: &mut C) -> Result<Siq> {
        self.generate(clock, SIQ_KIND, SIQ_DOMAIN_HASH)
    }
    fn coordinates(id: &Siq) -> Coordinates {
        assert_eq!(
            (id.kind(), id.domain_hash()),
            (Some(SIQ_KIND), SIQ_DOMAIN_HASH)
        );
        Coordinates {
            unit: id.ticks(),
            sequence: id.serial() as u32,
            tick_tock: false,
        }
    }
    fn state(&self) -> Option<SequencerState> {
        SiqGenerator::state(self, SIQ_KIND)
    }
}

const SNOWFLAKE_WORKER: i64 = 3;
const SNOWFLAKE_EPOCH: i64 = snowflake::DEFAULT_EPOCH_MILLIS;

impl TestGenerator for SnowflakeGenerator {
    type Id = i64;
    const NAME: &'static str = "snowflake";
    const ORDERED: bool = true;
    const UNIT_NANOS: i64 = MS;
    const NARROW_SLOT: (u32, u32) = (0, 32 * 2048);

    fn attempt<C: Clock>(&mut self, clock: &mut C, limits: &Limits) -> Result<Step<i64>> {
        self.try_generate(clock, limits, SNOWFLAKE_WORKER, SNOWFLAKE_EPOCH)
    }
    fn blocking<C: Clock>(&mut self, clock: &mut C) -> Result<i64> {
        self.generate(clock, SNOWFLAKE_WORKER, SNOWFLAKE_EPOCH)
    }
    fn coordinates(id: &i64) -> Coordinates {
        let p = snowflake::parts(*id, SNOWFLAKE_EPOCH).unwrap();
        assert_eq!(p.worker as i64, SNOWFLAKE_WORKER);
        let unit = Self::unit_at(p.time * 1000).unwrap();
        assert_eq!(Self::start_of(unit), p.time as i128 * 1000);
        Coordinates {
            unit,
            sequence: p.sequence,
            tick_tock: false,
        }
    }
    fn state(&self) -> Option<SequencerState> {
        Some(SnowflakeGenerator::state(self))
    }
}

/// A kuid's unit from its Erlang triple, checked to be a real time: C below
/// 10^6 µs, so that the decoded time lies in the unit the triple names.
fn kuid_unit<G: SlotGenerator>(unix_micros: i64, seconds: u32, microseconds: u32) -> u64 {
    assert!(
        seconds < 1_000_000 && microseconds < 1_000_000,
        "a kuid's time must be a real Erlang time, got B = {seconds}, C = {microseconds}"
    );
    let unit = G::unit_at(unix_micros * 1000).unwrap();
    assert_eq!(unit % 1024, (microseconds >> 10) as u64);
    unit
}

impl TestGenerator for Kuid64Generator {
    type Id = i64;
    const NAME: &'static str = "kuid64";
    const ORDERED: bool = true;
    const UNIT_NANOS: i64 = 1_024_000;
    const NARROW_SLOT: (u32, u32) = (0, 8192);

    fn attempt<C: Clock>(&mut self, clock: &mut C, limits: &Limits) -> Result<Step<i64>> {
        self.try_generate(clock, limits)
    }
    fn blocking<C: Clock>(&mut self, clock: &mut C) -> Result<i64> {
        self.generate(clock)
    }
    fn coordinates(id: &i64) -> Coordinates {
        let p = kuid::kuid64_parts(*id).unwrap();
        Coordinates {
            unit: kuid_unit::<Self>(p.time, p.seconds, p.microseconds),
            sequence: p.seq,
            tick_tock: false,
        }
    }
    fn state(&self) -> Option<SequencerState> {
        Some(Kuid64Generator::state(self))
    }
}

const KUID_NODE: u32 = 0xC0FFEE;
const KUID_INTERVAL: u32 = 8;

impl TestGenerator for Kuid96Generator {
    type Id = Kuid96;
    const NAME: &'static str = "kuid96";
    const ORDERED: bool = true;
    const UNIT_NANOS: i64 = 1_024_000;
    const NARROW_SLOT: (u32, u32) = (0, 8192);

    fn attempt<C: Clock>(&mut self, clock: &mut C, limits: &Limits) -> Result<Step<Kuid96>> {
        self.try_generate(clock, limits, KUID_NODE, KUID_INTERVAL)
    }
    fn blocking<C: Clock>(&mut self, clock: &mut C) -> Result<Kuid96> {
        self.generate(clock, KUID_NODE, KUID_INTERVAL)
    }
    fn coordinates(id: &Kuid96) -> Coordinates {
        let p = id.parts(KUID_INTERVAL).unwrap();
        assert_eq!(p.node, KUID_NODE);
        let local = kuid::kuid64_parts(id.localize(KUID_INTERVAL).unwrap()).unwrap();
        Coordinates {
            unit: kuid_unit::<Self>(p.time, local.seconds, local.microseconds),
            sequence: p.seq,
            tick_tock: false,
        }
    }
    fn state(&self) -> Option<SequencerState> {
        Some(Kuid96Generator::state(self))
    }
}

/// `check::<G>(args…)` for every generator of the registry
/// `flake_core::for_each_slot_generator!`: a generator added there without
/// a [`TestGenerator`] impl here does not compile.
#[macro_export]
macro_rules! for_every_generator {
    ($check:ident ( $($arg:expr),* )) => {{
        macro_rules! run_for {
            ($generator:ty) => {
                $check::<$generator>($($arg),*)
            };
        }
        flake_core::for_each_slot_generator!(run_for);
    }};
}

/// A run's IDs in generation order: distinct, strictly increasing (sno:
/// within each tick-tock phase). Returns how often sno's phase changed.
pub fn check_order<G: TestGenerator>(ids: &[G::Id]) -> usize {
    let mut last_of_phase: [Option<G::Id>; 2] = [None, None];
    let mut phase = None;
    let mut flips = 0;
    for id in ids {
        let tick_tock = G::coordinates(id).tick_tock;
        assert!(!G::ORDERED || !tick_tock, "{}: no tick-tock", G::NAME);
        if phase.is_some_and(|p| p != tick_tock) {
            flips += 1;
        }
        phase = Some(tick_tock);
        let last = &mut last_of_phase[tick_tock as usize];
        if let Some(previous) = last {
            assert!(id > previous, "{}: {id:?} after {previous:?}", G::NAME);
        }
        *last = Some(*id);
    }
    let distinct: HashSet<_> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "{}: a duplicate", G::NAME);
    flips
}

/// The sequencer states that record something: a failed attempt may leave
/// an unused SIQ kind's sequencer made (at the floor, nothing issued), which
/// changes nothing a later attempt does.
pub fn snapshot<G: SlotGenerator>(g: &G) -> Vec<SequencerState> {
    g.sequencers()
        .into_iter()
        .map(|row| row.state)
        .filter(|state| state.issued > 0)
        .collect()
}

/// `states` without their counts of clock steps back: what decides the
/// next ID.
pub fn without_steps_back(states: Vec<SequencerState>) -> Vec<SequencerState> {
    states
        .into_iter()
        .map(|state| SequencerState {
            steps_back: 0,
            ..state
        })
        .collect()
}

/// The most pauses a wait of one unit takes with `clock`'s pause step.
pub fn one_unit_of_pauses<G: TestGenerator>(clock: &ScriptedClock) -> u64 {
    (G::UNIT_NANOS as u64).div_ceil(clock.pause_step.max(1) as u64) + 1
}

/// One ID the way the extension makes it with a durable mark: record a
/// higher mark when one is due or asked for (here at once), pause while a
/// unit is used up. Returns the ID and the pauses it took; checks that the
/// ID lies within the mark and that no wait lasted longer than one unit.
/// Errors leave the state unchanged (checked).
pub fn next_marked<G: TestGenerator>(
    marked: &mut MarkedGenerator<G>,
    clock: &mut ScriptedClock,
    max_lead: i64,
) -> Result<(G::Id, u64)> {
    let pauses = clock.pauses;
    for _ in 0..100_000 {
        if let Some(unit) = marked.extension_due() {
            marked.extend_to(marked.lease_for(unit));
        }
        let before = snapshot(marked.generator());
        let step =
            marked.try_generate(clock, max_lead, |g, clock, limits| g.attempt(clock, limits));
        match step {
            Ok(Step::Issued(id)) => {
                let unit = G::coordinates(&id).unit;
                assert!(
                    unit <= marked.mark(),
                    "{}: unit {unit} above the mark",
                    G::NAME
                );
                let waited = clock.pauses - pauses;
                assert!(
                    waited <= one_unit_of_pauses::<G>(clock),
                    "{}: waited {waited} pauses for one ID",
                    G::NAME
                );
                return Ok((id, waited));
            }
            Ok(Step::Wait) => {
                assert_eq!(snapshot(marked.generator()), before, "{}", G::NAME);
                clock.pause();
            }
            Ok(Step::Extend(unit)) => {
                assert!(unit > marked.mark());
                assert_eq!(snapshot(marked.generator()), before, "{}", G::NAME);
                marked.extend_to(marked.lease_for(unit));
            }
            Err(e) => {
                // A refusal for the clock counts its step back (and only that).
                assert_eq!(
                    without_steps_back(snapshot(marked.generator())),
                    without_steps_back(before),
                    "{}: {e}",
                    G::NAME
                );
                return Err(e);
            }
        }
    }
    panic!("{}: no ID after 100 000 attempts", G::NAME);
}

/// `G`'s generator of `slot`, never using `floor` or below.
pub fn generator<G: TestGenerator>((slot, nslots): (u32, u32), floor: u64) -> G {
    G::for_slot(slot, nslots, floor).unwrap()
}

/// `G`'s generator of `slot` with its mark, above `floor` (the mark starts
/// there too).
pub fn marked_above<G: SlotGenerator>(
    (slot, nslots): (u32, u32),
    floor: u64,
) -> MarkedGenerator<G> {
    MarkedGenerator::above(slot, nslots, floor).unwrap()
}

/// The `lead` of `G`'s state, which must exist.
pub fn lead<G: TestGenerator>(g: &G) -> i64 {
    g.state().unwrap().lead
}

/// The unit `G` reads at `unix_nanos`.
pub fn unit<G: TestGenerator>(unix_nanos: i64) -> u64 {
    G::unit_at(unix_nanos).unwrap()
}

/// The first nanosecond of `unit`, as a clock reading.
pub fn start<G: TestGenerator>(unit: u64) -> i64 {
    G::start_of(unit) as i64
}

/// Issued, or a panic naming the generator.
pub fn issued<G: TestGenerator>(step: Result<Step<G::Id>>) -> G::Id {
    match step {
        Ok(Step::Issued(id)) => id,
        other => panic!("{}: expected an ID, got {other:?}", G::NAME),
    }
}
