//! What every format's settings share (docs/sql-reference.md "Settings"): the
//! `pg_flake.` prefix, how a setting's check hook rejects a value, and
//! whether pg_flake was preloaded. Each format defines its own settings in
//! its module; `_PG_init` calls them through the registry.
//!
//! Settings that identify a server (node numbers and names) are
//! superuser-only: an ordinary role that could change them could forge
//! another node's IDs or collide with it.

use pgrx::pg_sys;
use std::ffi::{c_char, CStr, CString};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Whether the library was loaded by `shared_preload_libraries`.
static PRELOADED: AtomicBool = AtomicBool::new(false);

/// Whether pg_flake is in `shared_preload_libraries`. Only then are its
/// settings defined in every backend before any SQL runs: otherwise a
/// backend that has not loaded pg_flake yet holds `pg_flake.public_id_key`
/// as an ordinary placeholder, which every role can `SHOW`.
pub fn preloaded() -> bool {
    PRELOADED.load(Ordering::Relaxed)
}

/// Records whether this load is the preloading one (from `_PG_init`, before
/// any setting is defined).
pub fn note_preloading() {
    // SAFETY: a plain global, true while the postmaster loads the preloaded
    // libraries (backends inherit the result).
    PRELOADED.store(
        unsafe { pg_sys::process_shared_preload_libraries_in_progress },
        Ordering::Relaxed,
    );
}

/// Reserves the `pg_flake.` prefix, so that a misspelt setting is an error
/// (from `_PG_init`, after every setting is defined).
pub fn reserve_prefix() {
    // SAFETY: called once from _PG_init with a static string.
    unsafe { pg_sys::MarkGUCPrefixReserved(c"pg_flake".as_ptr()) };
}

/// The text of a string setting's value (NULL is '').
pub fn setting_text<'a>(value: *const c_char) -> &'a [u8] {
    if value.is_null() {
        b""
    } else {
        // SAFETY: PostgreSQL passes a NUL-terminated string.
        unsafe { CStr::from_ptr(value) }.to_bytes()
    }
}

/// A copy of `text` in PostgreSQL's memory, for a failed check's message.
fn check_string(text: &str) -> *mut c_char {
    let text = CString::new(text).unwrap_or_default();
    // SAFETY: pstrdup copies the NUL-terminated string into the current
    // memory context, where PostgreSQL reads it after a failed check.
    unsafe { pg_sys::pstrdup(text.as_ptr()) }
}

/// Rejects a proposed value with `detail` as the error's detail line
/// (a check hook's `false`).
pub fn check_failed(detail: &str) -> bool {
    // SAFETY: a plain global that PostgreSQL reads after a failed check.
    unsafe { pg_sys::GUC_check_errdetail_string = check_string(detail) };
    false
}

/// Rejects a proposed value with a message of our own: PostgreSQL's default
/// message quotes the value, which must not happen for a secret.
pub fn check_failed_hiding_value(message: &str, detail: &str) -> bool {
    // SAFETY: as in check_failed.
    unsafe { pg_sys::GUC_check_errmsg_string = check_string(message) };
    check_failed(detail)
}

// --- values derived from settings ------------------------------------------------------

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
