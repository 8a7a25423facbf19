//! The registry of live generators: every format's generator as `_PG_init`
//! registered them, which the WAL's replay, the exit callbacks and
//! `pg_flake_set_mark` find by format.

use super::ServerGenerator;
use crate::marks::wal;
use crate::plumbing::shared_memory::{self, SharedState};
use std::sync::OnceLock;


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
    shared_memory::register(generators.iter().map(|g| *g as &'static dyn SharedState));
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
