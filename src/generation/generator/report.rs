//! What an operator reads of a server's generator: its rows of
//! `pg_flake_generator_state()` (docs/sql-reference.md "Generator state") and
//! of `pg_flake_stats` (docs/sql-reference.md "Statistics"), and the reset of
//! the latter.
//!
//! The statistics are kept beside the generator in its server-wide state,
//! so that every backend adds to one set of counters, preloaded or not,
//! from the state's set-up (the server's start when preloaded, the first ID
//! otherwise) until the server stops or an operator resets them. IDs issued
//! and steps back of the clock are the sequencers' own counts (no
//! instruction on the path of an ID); the rest is counted off that path
//! (`counters.rs`): where a caller waits, records a mark or is refused.

use super::{Generator, ServerState};
use crate::generation::registry::{StateRow, StatsRow};
use flake_core::generator::{SlotGenerator, SHARED_SLOT};
use flake_core::ErrorKind;
use std::sync::atomic::Ordering::Relaxed;

/// The sequencers' own counts: IDs issued and steps back of the clock seen
/// (summed over SIQ's kinds), and how far the last ID ran ahead of the
/// clock (the furthest of them).
pub(super) fn sequencer_counts<G: SlotGenerator>(generator: &G) -> (u64, u64, i64) {
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
    /// This generator's rows of `pg_flake_generator_state()`, one per
    /// sequencer, with its mark.
    pub(super) fn state_rows_now(&self) -> Vec<StateRow> {
        let generator = self.snapshot();
        generator
            .generator()
            .sequencers()
            .into_iter()
            // A shared generator exists from server start: it shows from
            // then on (issued 0), with its mark, also while the clock is too
            // far behind for it to issue anything.
            .map(|sequencer| StateRow {
                format: self.format,
                slot: SHARED_SLOT.0,
                nslots: SHARED_SLOT.1,
                mark: generator.mark(),
                mark_nanos: G::start_of(generator.mark()),
                sequencer,
            })
            .collect()
    }

    /// This generator's row of `pg_flake_stats()`.
    pub(super) fn stats_row(&self) -> StatsRow {
        let shared = self.server();
        let (issued, steps_back, lead) = sequencer_counts(shared.generator.lock().generator());
        let stats = &shared.stats;
        StatsRow {
            format: self.format,
            issued: issued.wrapping_sub(stats.issued_before.load(Relaxed)),
            waits: stats.waits.load(Relaxed),
            marks_recorded: stats.marks_recorded.load(Relaxed),
            mark_file_nanos: stats.mark_file_nanos.load(Relaxed),
            mark_wal_nanos: stats.mark_wal_nanos.load(Relaxed),
            clock_steps_back: steps_back.wrapping_sub(stats.steps_back_before.load(Relaxed)),
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
