//! How a higher mark is recorded (docs/guarantees.md "Restarts, crashes and
//! the clock"): durably in the format's marks file, then in the WAL with the
//! node this backend announced; one backend at a time records (`shared.rs`).

use super::generator::Generator;
use crate::marks::{self, wal, Marks};
use crate::plumbing::errors::raise;
use flake_core::generator::SlotGenerator;
use flake_core::{Error, ErrorKind};

/// What a generator does with a mark: record it durably (the marks file, then
/// the WAL where there is one) and say what was recorded.
impl<G: SlotGenerator> Generator<G> {
    pub(super) fn record_mark(&self, mark: u64) -> u64 {
        let recorded = Marks::lock_interruptible(self.format)
            .and_then(|marks| marks.extend_shared(mark))
            .unwrap_or_else(|e| marks::failed(self.format, e))
            .unwrap_or_else(|| refuse_beside_per_backend(self.format));
        // With the node this backend announced (docs/operations.md "Standbys and failover").
        wal::log_mark(self.format, recorded, self.node.announced());
        recorded
    }
}

/// A per-backend generator of an earlier library (0.3.0 and before, on
/// PostgreSQL 15 and 16 without preloading) has generated in this server
/// run: the server-wide generator stops at its mark, below every unit that
/// one may use (docs/operations.md "Versions").
#[cold]
fn refuse_beside_per_backend(format: &str) -> ! {
    raise(Error::Refused {
        kind: ErrorKind::NotReady,
        message: "pg_flake's library was replaced while the server runs: restart the server".into(),
        detail: Some(format!(
            "A backend that loaded an earlier pg_flake library generated {format} IDs with a generator of its own in this server run."
        )),
        hint: Some(
            "Restart the server (pg_ctl restart) after installing pg_flake: every backend then \
             loads the installed library. Until then, backends that loaded the other library \
             generate with it, and no ID is issued twice (docs/operations.md \"Versions\")."
                .into(),
        ),
    })
}
