//! A generator's counters for `pg_flake_stats` (docs/sql-reference.md
//! "Statistics"): the type its server-wide state holds (`mod.rs`), and how
//! each is counted. What is read and reset from them is `report.rs`.

use flake_core::clock::system_now_nanos;
use flake_core::ErrorKind;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// The counters of one generator, in its server-wide state.
#[repr(C)]
pub(super) struct Counters {
    /// Calls that waited for the clock to reach the next unit (their unit
    /// was used up), once per call.
    pub(super) waits: AtomicU64,
    /// Marks recorded, and the time spent recording them: the marks file
    /// (written and synced), then the WAL (flushed, and under synchronous
    /// replication confirmed by the standbys).
    pub(super) marks_recorded: AtomicU64,
    pub(super) mark_file_nanos: AtomicU64,
    pub(super) mark_wal_nanos: AtomicU64,
    /// Refusals, by kind (`ErrorKind as usize`): each an ERROR a caller got
    /// instead of an ID.
    pub(super) refusals: [AtomicU64; ErrorKind::ALL.len()],
    /// The sequencers' counts at the last reset, subtracted from theirs
    /// (wrapping: see `carry_over`).
    pub(super) issued_before: AtomicU64,
    pub(super) steps_back_before: AtomicU64,
    /// When the counters began: Unix microseconds.
    pub(super) reset_at: AtomicI64,
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

    pub(super) fn count_refusal(&self, kind: ErrorKind) {
        self.refusals[kind as usize].fetch_add(1, Relaxed);
    }

    /// The sequencers are replaced (a `pg_flake_set_mark`, or its replay)
    /// after they counted `issued` IDs and `steps_back` steps: the new ones
    /// count from zero, so the baselines move down by as much, and what
    /// `pg_flake_stats` shows goes on from where it was (issue 49, item 6).
    /// Wrapping: a baseline below zero is what a count above it subtracts.
    pub(super) fn carry_over(&self, issued: u64, steps_back: u64) {
        let before = self.issued_before.load(Relaxed);
        self.issued_before
            .store(before.wrapping_sub(issued), Relaxed);
        let before = self.steps_back_before.load(Relaxed);
        self.steps_back_before
            .store(before.wrapping_sub(steps_back), Relaxed);
    }
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// Now, in Unix microseconds (the counters' start): the real-time clock
/// the generators read too.
pub fn unix_micros_now() -> i64 {
    system_now_nanos().div_euclid(1000)
}
