//! The vectors' `generator_sequence` scenarios of the two generators that
//! follow a reference loop (DistributedId and DistributedId128): the same
//! scripted clock readings and CSPRNG draws, the same expectations, one
//! runner.

use super::{int, name, of_kind, time_nanos};
use flake_core::clock::ScriptedClock;
use flake_core::random::ScriptedRandom;
use serde_json::Value;
use std::fmt::Debug;

/// What the runner needs of a generator and its IDs.
pub trait ReferenceGenerator {
    type Id: Copy + Debug + PartialEq;
    /// Where the vectors' clock readings (in ms) count from, in Unix ms.
    const EPOCH_UNIX_MILLIS: i64;
    fn fresh() -> Self;
    /// The CSPRNG bytes the generator turns into the draw `draw`.
    fn draw_bytes(draw: i128) -> Vec<u8>;
    fn generate(&mut self, clock: &mut ScriptedClock, random: &mut ScriptedRandom) -> Self::Id;
    fn last(&self) -> Option<Self::Id>;
    fn timestamp_ms(id: &Self::Id) -> i128;
    fn random(id: &Self::Id) -> i128;
    fn unix_micros(id: &Self::Id) -> i64;
}

/// A vector's clock reading (ms since the format's epoch) as Unix ns.
pub fn clock_nanos<G: ReferenceGenerator>(ms_since_epoch: i128) -> i64 {
    ((ms_since_epoch + G::EPOCH_UNIX_MILLIS as i128) * 1_000_000) as i64
}

/// One generator call: feeds the readings and the draw, checks that exactly
/// the readings were consumed, and returns the ID with its sleep count.
pub fn step<G: ReferenceGenerator>(
    g: &mut G,
    clock: &mut ScriptedClock,
    readings_ms: &[i128],
    draw: i128,
) -> (G::Id, u64) {
    let pauses = clock.pauses;
    clock.script(readings_ms.iter().map(|&ms| clock_nanos::<G>(ms)));
    let mut random = ScriptedRandom::new([G::draw_bytes(draw)]);
    let id = g.generate(clock, &mut random);
    assert!(clock.readings.is_empty(), "readings left over");
    assert!(random.draws.is_empty());
    (id, clock.pauses - pauses)
}

/// The `generator_sequence` vectors of one case (`scenario`,
/// `random_increment`, `random_from_bytes`).
pub fn generator_cases<'a>(all: &'a [Value], case: &str) -> Vec<&'a Value> {
    of_kind(all, &["generator_sequence"])
        .into_iter()
        .filter(|v| v["case"] == case)
        .collect()
}

/// Runs every scenario of `all` (there must be `count`) step by step from a
/// fresh generator: each ID's sleeps, time, random part and instant as
/// expected, and `check_text` for the format's text forms of the ID.
pub fn check_scenarios<G: ReferenceGenerator>(
    all: &[Value],
    count: usize,
    check_text: impl Fn(&G::Id, &Value, &str),
) {
    let scenarios = generator_cases(all, "scenario");
    assert_eq!(scenarios.len(), count);
    for v in scenarios {
        let n = name(v);
        assert_eq!(int(&v["initial_previous_timestamp_ms"]), 0);
        let mut g = G::fresh();
        assert_eq!(g.last(), None);
        let mut clock = ScriptedClock::new(0, 1_000_000);
        for (i, s) in v["steps"].as_array().unwrap().iter().enumerate() {
            let readings: Vec<i128> = s["clock_readings_ms"]
                .as_array()
                .unwrap()
                .iter()
                .map(int)
                .collect();
            let (id, sleeps) = step(&mut g, &mut clock, &readings, int(&s["random_draw"]));
            let e = &s["expected"];
            let at = format!("{n} step {i}");
            assert_eq!(sleeps as i128, int(&s["expected_sleeps"]), "{at}");
            assert_eq!(G::timestamp_ms(&id), int(&e["timestamp_ms"]), "{at}");
            assert_eq!(G::random(&id), int(&e["random"]), "{at}");
            check_text(&id, e, &at);
            let micros = (time_nanos(&e["time"]) / 1000) as i64;
            assert_eq!(G::unix_micros(&id), micros, "{at}");
            assert_eq!(g.last(), Some(id), "{at}");
        }
    }
}
