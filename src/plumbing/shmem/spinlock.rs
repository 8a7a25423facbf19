//! A value in shared memory behind one of PostgreSQL's spinlocks: the
//! server-wide generators' state (docs/operations.md "Shared mode"), held for one step of
//! a generator, tens of instructions.

use crate::plumbing::backend::ffi::{spin_lock_acquire, spin_lock_init, spin_lock_release};
use pgrx::pg_sys;
use std::cell::UnsafeCell;

/// A value in shared memory behind one of PostgreSQL's spinlocks, like
/// pgrx's `PgSpinLock`, but taken and released through the unguarded C shims
/// of [`crate::plumbing::backend::ffi`].
#[repr(C)]
pub struct SpinLocked<T> {
    lock: UnsafeCell<pg_sys::slock_t>,
    data: UnsafeCell<T>,
}

// SAFETY: the data is reached only under the lock; every `T` kept here is
// plain data (`Copy`, no pointers), valid at any address in any process.
unsafe impl<T: Copy> Sync for SpinLocked<T> {}

impl<T: Copy> SpinLocked<T> {
    /// Initialises the lock and the value at `at`.
    ///
    /// # Safety
    /// `at` must be valid, aligned memory for a `SpinLocked<T>` that no other
    /// process uses yet.
    pub unsafe fn init(at: *mut Self, value: T) {
        unsafe {
            at.write(SpinLocked {
                lock: UnsafeCell::new(Default::default()),
                data: UnsafeCell::new(value),
            });
            spin_lock_init((*at).lock.get());
        }
    }

    #[inline]
    pub fn lock(&self) -> SpinLockGuard<'_, T> {
        // SAFETY: the lock was initialised in `init`; it cannot raise.
        unsafe { spin_lock_acquire(self.lock.get()) };
        SpinLockGuard { locked: self }
    }
}

pub struct SpinLockGuard<'a, T> {
    locked: &'a SpinLocked<T>,
}

impl<T> std::ops::Deref for SpinLockGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.locked.data.get() }
    }
}

impl<T> std::ops::DerefMut for SpinLockGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock, and `&mut self` makes it unique.
        unsafe { &mut *self.locked.data.get() }
    }
}

impl<T> Drop for SpinLockGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the guard holds the lock; releasing cannot raise.
        unsafe { spin_lock_release(self.locked.lock.get()) };
    }
}
