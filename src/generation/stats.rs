//! What a server's generator counts for an operator (docs/sql-reference.md
//! "Statistics", `pg_flake_stats`): kept beside the generator in its
//! server-wide state, so that every backend adds to one set of counters,
//! preloaded or not, from the state's set-up (the server's start when
//! preloaded, the first ID otherwise) until the server stops or an
//! operator resets them.
//!
//! IDs issued and steps back of the clock are the sequencers' own counts
//! (no instruction on the path of an ID); the rest is counted off that path
//! (`counters.rs`): where a caller waits, records a mark or is refused.

use super::generator::{Generator, ServerState};
use super::registry::StatsRow;
use crate::plumbing::errors::raise;
use flake_core::generator::SlotGenerator;
use flake_core::{Error, ErrorKind};
use std::sync::atomic::Ordering::Relaxed;

/// The sequencers' own counts: IDs issued and steps back of the clock seen
/// (summed over SIQ's kinds), and how far the last ID ran ahead of the
/// clock (the furthest of them).
fn sequencer_counts<G: SlotGenerator>(generator: &G) -> (u64, u64, i64) {
    generator
        .sequencers()
        .iter()
        .fold((0, 0, 0), |(issued, steps_back, lead), row| {
            (
                issued + row.state.issued,
                steps_back + row.state.steps_back,
                lead.max(row.state.lead),
            )
        })
}

impl<G: SlotGenerator> Generator<G> {
    /// Raises `error` as the refusal of this format's generation, counted
    /// in its statistics (by SQLSTATE). The server-wide state is attached
    /// for it if it is not yet (a backend's first ID, refused for its node).
    #[cold]
    pub fn refuse(&self, error: Error) -> ! {
        if let Some(shared) = self.shared() {
            shared.stats.count_refusal(error.kind());
        }
        raise(error)
    }

    /// The node this format's IDs carry (`NodeField::generating_node`),
    /// its refusal counted.
    #[inline(always)]
    pub fn generating_node(&self) -> u32 {
        match self.node.generating_node() {
            Ok(node) => node,
            Err(e) => self.refuse(e),
        }
    }

    /// This generator's row of `pg_flake_stats()`.
    pub(super) fn stats_row(&self) -> StatsRow {
        let shared = self.server();
        let (issued, steps_back, lead) = sequencer_counts(shared.generator.lock().generator());
        let stats = &shared.stats;
        StatsRow {
            format: self.format,
            issued: issued.saturating_sub(stats.issued_before.load(Relaxed)),
            waits: stats.waits.load(Relaxed),
            marks_recorded: stats.marks_recorded.load(Relaxed),
            mark_file_nanos: stats.mark_file_nanos.load(Relaxed),
            mark_wal_nanos: stats.mark_wal_nanos.load(Relaxed),
            clock_steps_back: steps_back.saturating_sub(stats.steps_back_before.load(Relaxed)),
            lead_nanos: lead,
            refusals: ErrorKind::ALL
                .iter()
                .map(|kind| {
                    (
                        kind.sqlstate(),
                        stats.refusals[*kind as usize].load(Relaxed),
                    )
                })
                .filter(|(_, count)| *count > 0)
                .collect(),
            reset_unix_micros: stats.reset_at.load(Relaxed),
        }
    }

    /// Sets this generator's counters to zero, from `unix_micros` (now).
    pub(super) fn reset_stats_at(&self, unix_micros: i64) {
        let shared: &ServerState<G> = self.server();
        let (issued, steps_back, _) = sequencer_counts(shared.generator.lock().generator());
        let stats = &shared.stats;
        stats.issued_before.store(issued, Relaxed);
        stats.steps_back_before.store(steps_back, Relaxed);
        for counter in [
            &stats.waits,
            &stats.marks_recorded,
            &stats.mark_file_nanos,
            &stats.mark_wal_nanos,
        ]
        .into_iter()
        .chain(&stats.refusals)
        {
            counter.store(0, Relaxed);
        }
        stats.reset_at.store(unix_micros, Relaxed);
    }
}
