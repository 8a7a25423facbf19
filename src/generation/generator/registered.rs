//! The [`ServerGenerator`] a generator is: what the registry of live
//! generators (`src/generation/registry.rs`) calls of every format's, each
//! a method of the concern it belongs to in this folder.

use super::Generator;
use crate::generation::registry::{ServerGenerator, StateRow, StatsRow};
use flake_core::generator::SlotGenerator;

impl<G: SlotGenerator> ServerGenerator for Generator<G> {
    fn format(&self) -> &'static str {
        self.format
    }

    fn abandon_recording(&self) {
        self.abandon_recording_at_exit()
    }

    fn learn(&self, mark: u64, node: Option<u32>) {
        self.learn_replayed(mark, node)
    }

    fn set_mark(&self, unix_nanos: i64) -> (Option<u64>, u64, i128) {
        self.set_mark_now(unix_nanos)
    }

    fn set_from_wal(&self, mark: u64, node: Option<u32>) {
        self.set_mark_from_wal(mark, node)
    }

    fn stats(&self) -> StatsRow {
        self.stats_row()
    }

    fn reset_stats(&self, unix_micros: i64) {
        self.reset_stats_at(unix_micros)
    }

    fn state_rows(&self) -> Vec<StateRow> {
        self.state_rows_now()
    }
}
