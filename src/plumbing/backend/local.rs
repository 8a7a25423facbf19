//! State of one backend, in a plain `static`.
//!
//! A PostgreSQL backend is a process with one thread, and pg_flake starts
//! no other: a `thread_local!` buys nothing there, and in a library loaded
//! with `dlopen` each access to one is a call of `__tls_get_addr`, which
//! perf showed in every generated ID (docs/BENCHMARKS.md "Generation
//! profile"). [`BackendLocal`] is a `RefCell` that may be a `static`.

use std::cell::RefCell;

/// A `RefCell` shared by nothing but the backend's own thread.
pub struct BackendLocal<T>(RefCell<T>);

// SAFETY: pg_flake's code runs only on the backend's (or postmaster's) one
// thread; no thread of its own ever reaches a `BackendLocal`.
unsafe impl<T> Sync for BackendLocal<T> {}

impl<T> BackendLocal<T> {
    pub const fn new(value: T) -> Self {
        BackendLocal(RefCell::new(value))
    }

    /// `f` of the value; a re-entrant call panics (an ERROR), as a
    /// `RefCell` does.
    #[inline]
    pub fn with_borrow_mut<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.0.borrow_mut())
    }
}
