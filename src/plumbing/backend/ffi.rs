//! The C symbols pg_flake calls directly rather than through pgrx's guarded
//! `pg_sys` bindings, in one place.
//!
//! pgrx wraps every `pg_sys` call in `pg_guard_ffi_boundary`: a `sigsetjmp`
//! and a thread check, so that a PostgreSQL ERROR raised inside becomes a Rust
//! panic. The functions below are called on the hot paths (once per ID, per
//! value compared or per sort key) and cannot raise an ERROR, so the guard
//! would protect against nothing while costing as much as the call itself
//! (docs/guarantees.md "Decisions where the spec is silent"; docs/BENCHMARKS.md). Each
//! declaration says why it cannot raise.

use pgrx::pg_sys;
use std::ffi::{c_int, c_void};

extern "C" {
    // pgrx's C shims (pgrx-cshim.c) over PostgreSQL's SpinLock macros, the
    // same symbols its guarded `pg_sys::SpinLock*` call. A spinlock cannot
    // raise: a stuck one is a PANIC, which ends the process.
    #[link_name = "SpinLockInit__pgrx_cshim"]
    pub fn spin_lock_init(lock: *mut pg_sys::slock_t);
    #[link_name = "SpinLockAcquire__pgrx_cshim"]
    pub fn spin_lock_acquire(lock: *mut pg_sys::slock_t);
    #[link_name = "SpinLockRelease__pgrx_cshim"]
    pub fn spin_lock_release(lock: *mut pg_sys::slock_t);

    // PostgreSQL's allocator: with MCXT_ALLOC_NO_OOM and a small size it
    // returns NULL instead of raising (the caller then falls back to the
    // guarded palloc, which raises PostgreSQL's out-of-memory ERROR).
    #[link_name = "MemoryContextAllocExtended"]
    pub fn palloc_or_null(context: pg_sys::MemoryContext, size: usize, flags: c_int)
        -> *mut c_void;
}

/// The flag that makes [`palloc_or_null`] return NULL on exhaustion.
pub const MCXT_ALLOC_NO_OOM: c_int = pg_sys::MCXT_ALLOC_NO_OOM as c_int;

extern "C-unwind" {
    // PostgreSQL's own byte hash, the one `uuid_hash` uses: its results are
    // stable across versions, which hash partitions and shards rely on. Pure
    // arithmetic over the given bytes.
    pub fn hash_bytes(k: *const u8, keylen: c_int) -> u32;
    pub fn hash_bytes_extended(k: *const u8, keylen: c_int, seed: u64) -> u64;
}

extern "C-unwind" {
    // Core's comparator of abbreviated keys as unsigned integers (PostgreSQL
    // 15+): the sort calls it for every comparison, and pgrx's
    // `pg_sys::ssup_datum_unsigned_cmp` is a guarded wrapper around it.
    #[link_name = "ssup_datum_unsigned_cmp"]
    pub fn ssup_datum_unsigned_cmp(
        x: pg_sys::Datum,
        y: pg_sys::Datum,
        ssup: pg_sys::SortSupport,
    ) -> c_int;
}

#[cfg(soft_errors)]
extern "C" {
    // PostgreSQL's ereport pieces (elog.h), which pgrx's bindings leave out
    // (it reports errors its own way), for soft errors (errors::save): with
    // a soft-error context nothing here raises; the report is filled in and
    // errsave_finish returns.
    pub fn errcode(sqlerrcode: c_int) -> c_int;
    pub fn errmsg_internal(fmt: *const std::ffi::c_char, ...) -> c_int;
    pub fn errdetail_internal(fmt: *const std::ffi::c_char, ...) -> c_int;
    pub fn errhint(fmt: *const std::ffi::c_char, ...) -> c_int;
}
