//! Which process a lease belongs to (issue 36). A generator copied into a
//! child by `fork()` holds its parent's unit: IDs made in the child would
//! repeat the parent's (the same unit, the same time units, sequences
//! counted separately). So a generator remembers the process that made it,
//! and answers [`LeaseError::Forked`] anywhere else; the child takes a lease
//! of its own, over a connection of its own.
//!
//! The check is on every ID, so it is one atomic load: a `pthread_atfork`
//! handler counts the forks this process descends from, registered when the
//! first generator is made. Should registering fail, the check compares
//! process ids instead (a system call per ID, but never a missed fork).

use super::LeaseError;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Forks since the handler was registered: each child adds one, in the
/// forking thread before `fork()` returns there, so every thread the child
/// starts later sees it.
static FORKS: AtomicU64 = AtomicU64::new(0);
/// Whether the handler is in place (else the pid is compared).
static COUNTING: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn in_child() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

fn count_forks() {
    #[cfg(unix)]
    {
        static REGISTER: std::sync::Once = std::sync::Once::new();
        REGISTER.call_once(|| {
            // SAFETY: registers a handler that only increments an atomic
            // (async-signal-safe); it stays valid for the life of the process
            // (or, in a library unloaded with dlclose, is unregistered then).
            let registered = unsafe { libc::pthread_atfork(None, None, Some(in_child)) } == 0;
            COUNTING.store(registered, Ordering::Relaxed);
        });
    }
}

/// The process a generator was made in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Owner {
    forks: u64,
    pid: u32,
}

impl Owner {
    /// This process.
    pub(crate) fn current() -> Owner {
        count_forks();
        Owner {
            forks: FORKS.load(Ordering::Relaxed),
            pid: std::process::id(),
        }
    }

    /// Whether this is still the process the generator was made in.
    #[inline]
    pub(crate) fn is_current(&self) -> bool {
        if COUNTING.load(Ordering::Relaxed) {
            FORKS.load(Ordering::Relaxed) == self.forks
        } else {
            std::process::id() == self.pid
        }
    }

    /// `Ok` in the generator's own process, [`LeaseError::Forked`] in a
    /// child made by `fork()`.
    #[inline]
    pub(crate) fn check(&self, lease_id: i64) -> Result<(), LeaseError> {
        if self.is_current() {
            Ok(())
        } else {
            Err(LeaseError::Forked {
                lease_id,
                owner_pid: self.pid,
                pid: std::process::id(),
            })
        }
    }
}

#[cfg(all(test, unix))]
pub(super) mod tests {
    use super::*;

    /// Runs `child` in a child made by fork() and answers what it returned
    /// (a byte through a pipe). The child only computes, writes and _exits.
    pub(in crate::leased) fn in_a_child(child: impl FnOnce() -> u8) -> u8 {
        let mut fds = [0i32; 2];
        // SAFETY: a pipe into a two-element array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child writes one byte and leaves with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let byte = child();
            // SAFETY: one byte from a live variable to the pipe; then the
            // child ends without running the test harness's destructors.
            unsafe {
                libc::write(fds[1], (&byte as *const u8).cast(), 1);
                libc::_exit(0)
            }
        }
        let mut byte = 0u8;
        // SAFETY: closes the parent's write end, reads one byte into a live
        // variable, waits for the child.
        unsafe {
            libc::close(fds[1]);
            assert_eq!(libc::read(fds[0], (&mut byte as *mut u8).cast(), 1), 1);
            libc::close(fds[0]);
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
        }
        byte
    }

    #[test]
    fn an_owner_is_current_in_its_process_only() {
        let owner = Owner::current();
        assert!(owner.is_current() && owner.check(5).is_ok());
        let seen = in_a_child(|| match owner.check(5) {
            Err(LeaseError::Forked {
                lease_id: 5,
                owner_pid,
                pid,
            }) if owner_pid != pid => 1,
            _ => 0,
        });
        assert_eq!(seen, 1, "the child did not see the fork");
        // Had registering the handler failed, the process id would tell.
        let by_pid = in_a_child(|| {
            COUNTING.store(false, Ordering::Relaxed);
            (!owner.is_current() && Owner::current().is_current()) as u8
        });
        assert_eq!(by_pid, 1, "the pid comparison did not see the fork");
        // The parent is unaffected; an owner made in a child is current there.
        assert!(owner.is_current());
        assert_eq!(in_a_child(|| Owner::current().is_current() as u8), 1);
    }
}
