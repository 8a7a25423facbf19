//! How a higher mark is recorded (docs/guarantees.md "Restarts, crashes and
//! the clock"): durably in the format's marks file, then in the WAL with the
//! node this backend announced; one backend at a time records (`shared.rs`).

use super::generator::Generator;
use crate::marks::{self, wal, Marks};
use flake_core::generator::SlotGenerator;

/// What a generator does with a mark: record it durably (the marks file, then
/// the WAL where there is one) and say what was recorded.
impl<G: SlotGenerator> Generator<G> {
    pub(super) fn record_mark(&self, mark: u64) -> u64 {
        let recorded = Marks::lock_interruptible(self.format)
            .and_then(|marks| marks.extend_shared(mark))
            .unwrap_or_else(|e| marks::failed(self.format, e))
            .unwrap_or_else(|| marks::refuse_beside_earlier_library(self.format));
        // With the node this backend announced (docs/operations.md "Standbys and failover").
        wal::log_mark(self.format, recorded, self.node.announced());
        recorded
    }
}
