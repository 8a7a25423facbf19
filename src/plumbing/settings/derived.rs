//! Values worked out from settings and catalog readings (a format's node),
//! kept until any of them changes: the checks behind them run once per
//! change, not once per ID (docs/BENCHMARKS.md "Generation profile").

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Counts changes of the settings and catalog readings that decide what a
/// generator puts into its IDs (node numbers, the nodes reserved for
/// leases, SIQ's domain, Citus's group): the assign hooks and invalidation
/// callbacks call [`identity_changed`]. Starts at 1: 0 marks an empty
/// [`Derived`].
static IDENTITY_EPOCH: AtomicU32 = AtomicU32::new(1);

/// Forgets every [`Derived`] value of this backend: a setting or reading
/// they come from changed (from assign hooks and invalidation callbacks,
/// which must not raise: this cannot).
pub fn identity_changed() {
    let next = IDENTITY_EPOCH
        .load(Ordering::Relaxed)
        .wrapping_add(1)
        .max(1);
    IDENTITY_EPOCH.store(next, Ordering::Relaxed);
}

/// A 32-bit value worked out from settings (what goes into a format's node
/// field), kept until [`identity_changed`]: the checks behind it (node
/// ranges, leases, Citus) run once per change, not once per ID (issue
/// "generation back to 0.1.0's speed"; docs/BENCHMARKS.md).
pub struct Derived(AtomicU64);

impl Derived {
    pub const fn new() -> Self {
        Derived(AtomicU64::new(0))
    }

    /// The value kept, if no setting changed since it was kept.
    #[inline(always)]
    pub fn get(&self) -> Option<u32> {
        let kept = self.0.load(Ordering::Relaxed);
        (kept >> 32 == IDENTITY_EPOCH.load(Ordering::Relaxed) as u64).then_some(kept as u32)
    }

    /// Keeps `value` until the next change.
    pub fn keep(&self, value: u32) {
        let epoch = IDENTITY_EPOCH.load(Ordering::Relaxed) as u64;
        self.0.store(epoch << 32 | value as u64, Ordering::Relaxed);
    }
}
