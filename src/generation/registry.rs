//! The registry of live generators: what it needs of every format's
//! generator ([`ServerGenerator`]), and the generators as `_PG_init`
//! registered them, which the WAL's replay, the exit callback,
//! `pg_flake_generator_state()` and `pg_flake_set_mark` find by format.

use crate::marks::wal;
use crate::plumbing::shmem::{self, SharedState};
use flake_core::generator::SequencerRow;
use std::sync::OnceLock;

/// One row of `pg_flake_generator_state()`: one sequencer of a generator,
/// with the generator's durable mark.
pub struct StateRow {
    pub format: &'static str,
    pub slot: u32,
    pub nslots: u32,
    pub mark: u64,
    /// The start of the mark's unit, in nanoseconds since the Unix epoch.
    pub mark_nanos: i128,
    pub sequencer: SequencerRow,
}

/// One row of `pg_flake_stats()`: what a generator counted since its
/// counters began (docs/sql-reference.md "Statistics").
pub struct StatsRow {
    pub format: &'static str,
    pub issued: u64,
    pub waits: u64,
    pub marks_recorded: u64,
    pub mark_file_nanos: u64,
    pub mark_wal_nanos: u64,
    pub clock_steps_back: u64,
    /// How far the last ID ran ahead of the clock (ns), now.
    pub lead_nanos: i64,
    /// Refusals by SQLSTATE, those counted at least once.
    pub refusals: Vec<(&'static str, u64)>,
    /// When the counters began (Unix µs).
    pub reset_unix_micros: i64,
}

/// What the registry needs of every format's generator, whatever its type;
/// its server-wide state is a [`SharedState`].
pub trait ServerGenerator: SharedState {
    /// The format's name, as `pg_flake_generator_state()` shows it and as
    /// its marks are recorded.
    fn format(&self) -> &'static str;
    /// A mark replayed from the WAL (a standby, or crash recovery), with
    /// the node its primary generates with where the record carries one.
    fn learn(&self, mark: u64, node: Option<u32>);
    /// A `pg_flake_set_mark` replayed from the WAL: the mark becomes exactly
    /// `mark` (`set_mark.rs`).
    fn set_from_wal(&self, mark: u64, node: Option<u32>);
    /// At the backend's exit: if it was recording a mark (a
    /// terminate or FATAL ended it mid-way), no longer.
    fn abandon_recording(&self);
    /// Its rows of `pg_flake_generator_state()`: none until it has been used.
    fn state_rows(&self) -> Vec<StateRow>;
    /// Its row of `pg_flake_stats()`.
    fn stats(&self) -> StatsRow;
    /// `pg_flake_stats_reset`: its counters start again from zero, at
    /// `unix_micros` (now: one instant for every format reset together).
    fn reset_stats(&self, unix_micros: i64);
    /// `pg_flake_set_mark`: the format's mark becomes the unit that holds
    /// `unix_nanos`, deliberately, up or down (docs/guarantees.md "Restarts, crashes and
    /// the clock"): a new marks file, the server's generator (this
    /// backend's, per backend) starting above it, the clock taken as it is
    /// from the next mark on, and a set record in the WAL (`set_mark.rs`).
    /// Returns the previous mark, where it could be read, and the new one
    /// with the start of its unit (Unix ns).
    fn set_mark(&self, unix_nanos: i64) -> (Option<u64>, u64, i128);
}

/// Every generator, as `_PG_init` registered them.
static GENERATORS: OnceLock<Vec<&'static dyn ServerGenerator>> = OnceLock::new();

pub(super) fn generators() -> &'static [&'static dyn ServerGenerator] {
    GENERATORS.get().map_or(&[][..], Vec::as_slice)
}

/// A mark of `format` replayed from the WAL (a standby, or crash recovery;
/// `wal::register` is given this): its generator learns it (a set record:
/// is set to it), and the node its primary generates with where the record
/// carries one. A format this library does not know (a later version wrote
/// it) has no generator here to protect.
pub fn learn(format: &[u8], mark: u64, node: Option<u32>, kind: wal::Replayed) {
    if let Some(generator) = generators()
        .iter()
        .find(|g| g.format().as_bytes() == format)
    {
        match kind {
            wal::Replayed::Mark => generator.learn(mark, node),
            wal::Replayed::Set => generator.set_from_wal(mark, node),
        }
    }
}

/// Registers the server's generators (from `_PG_init`) and gives them
/// server-wide state where the server has it (docs/operations.md "Shared mode").
pub fn register(generators: impl Iterator<Item = &'static dyn ServerGenerator>) {
    let generators = GENERATORS.get_or_init(|| generators.collect());
    shmem::register(generators.iter().map(|g| *g as &'static dyn SharedState));
}

/// `pg_flake_set_mark` of `format` (a coordination-based format), at the
/// unit that holds `unix_nanos`: the previous mark (if readable), the new
/// one and its unit's start (Unix ns); None for a format without a
/// generator.
pub fn set_mark(format: &str, unix_nanos: i64) -> Option<(Option<u64>, u64, i128)> {
    generators()
        .iter()
        .find(|g| g.format() == format)
        .map(|g| g.set_mark(unix_nanos))
}
