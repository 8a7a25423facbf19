//! What a server's generator counts for an operator (docs/sql-reference.md
//! "Statistics", `pg_flake_stats`): kept beside the generator in its
//! server-wide state, so that every backend adds to one set of counters,
//! preloaded or not, from the state's set-up (the server's start when
//! preloaded, the first ID otherwise) until the server stops or an
//! operator resets them.
//!
//! IDs issued and steps back of the clock are the sequencers' own counts
//! (no instruction on the path of an ID); the rest is counted off that path:
//! where a caller waits, records a mark or is refused.

use super::generator::{Generator, ServerState};
use super::registry::StatsRow;
use crate::plumbing::errors::raise;
use flake_core::generator::SlotGenerator;
use flake_core::{Error, ErrorKind};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The counters of one generator, in its server-wide state.
#[repr(C)]
pub(super) struct Counters {
    /// Calls that waited for the clock to reach the next unit (their unit
    /// was used up), once per call.
    waits: AtomicU64,
    /// Marks recorded, and the time spent recording them: the marks file
    /// (written and synced), then the WAL (flushed, and under synchronous
    /// replication confirmed by the standbys).
    marks_recorded: AtomicU64,
    mark_file_nanos: AtomicU64,
    mark_wal_nanos: AtomicU64,
    /// Refusals, by kind (`ErrorKind as usize`): each an ERROR a caller got
    /// instead of an ID.
    refusals: [AtomicU64; ErrorKind::ALL.len()],
    /// The sequencers' counts at the last reset, subtracted from theirs.
    issued_before: AtomicU64,
    steps_back_before: AtomicU64,
    /// When the counters began: Unix microseconds.
    reset_at: AtomicI64,
}

impl Counters {
    pub(super) fn new() -> Self {
        Counters {
            waits: AtomicU64::new(0),
            marks_recorded: AtomicU64::new(0),
            mark_file_nanos: AtomicU64::new(0),
            mark_wal_nanos: AtomicU64::new(0),
            refusals: std::array::from_fn(|_| AtomicU64::new(0)),
            issued_before: AtomicU64::new(0),
            steps_back_before: AtomicU64::new(0),
            reset_at: AtomicI64::new(unix_micros_now()),
        }
    }

    pub(super) fn count_wait(&self) {
        self.waits.fetch_add(1, Relaxed);
    }

    pub(super) fn count_mark(&self, file: Duration, wal: Duration) {
        self.marks_recorded.fetch_add(1, Relaxed);
        self.mark_file_nanos.fetch_add(nanos(file), Relaxed);
        self.mark_wal_nanos.fetch_add(nanos(wal), Relaxed);
    }

    fn count_refusal(&self, kind: ErrorKind) {
        self.refusals[kind as usize].fetch_add(1, Relaxed);
    }
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// Now, in Unix microseconds (the counters' start).
pub fn unix_micros_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

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
