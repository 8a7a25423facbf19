//! How a higher mark is recorded (docs/guarantees.md "Restarts, crashes and
//! the clock"): durably in the format's marks file, then in the WAL with the
//! node this backend announced; one backend at a time records (`shared.rs`).

use super::generator::{Generator, ServerState};
use crate::marks::{self, wal, Marks};
use flake_core::generator::SlotGenerator;
use std::time::Instant;

/// What a generator does with a mark: record it durably (the marks file, then
/// the WAL where there is one), counting the time each took
/// (`pg_flake_stats`), and say what was recorded.
impl<G: SlotGenerator> Generator<G> {
    pub(super) fn record_mark(&self, shared: &ServerState<G>, mark: u64) -> u64 {
        let started = Instant::now();
        let recorded = match Marks::lock_interruptible(self.format)
            .and_then(|marks| marks.extend_shared(mark))
        {
            Ok(Some(recorded)) => recorded,
            Ok(None) => self.refuse(marks::beside_earlier_library(self.format)),
            Err(e) => self.refuse(marks::failure(self.format, e)),
        };
        let filed = Instant::now();
        // With the node this backend announced (docs/operations.md "Standbys and failover").
        wal::log_mark(self.format, recorded, self.node.announced());
        shared.stats.count_mark(filed - started, filed.elapsed());
        recorded
    }
}
