//! Per-backend mode (docs/guarantees.md "Guarantees"): each backend owns one
//! generator per format for its slot, claimed from the format's marks file
//! above what the slot's previous holders and the server's previous runs
//! used, and left cleanly at the backend's exit.

use super::generator::{Generator, Local};
use super::registry::generators;
use super::settings::max_jump_nanos;
use crate::marks::{self, Marks};
use crate::plumbing::clock::BackendClock;
use crate::plumbing::errors::OrRaise;
use flake_core::generator::{MarkedGenerator, SlotGenerator};
use pgrx::pg_sys;
use std::sync::atomic::Ordering;

/// This backend's slot and the number of slots: unique among running
/// backends (docs/guarantees.md "Guarantees").
fn slot() -> (u32, u32) {
    // SAFETY: plain globals that PostgreSQL sets before any SQL runs.
    unsafe {
        #[cfg(not(proc_number))]
        let slot = pg_sys::MyBackendId - 1;
        #[cfg(proc_number)]
        let slot = pg_sys::MyProcNumber;
        (slot.max(0) as u32, pg_sys::MaxBackends.max(1) as u32)
    }
}

impl<G: SlotGenerator> Generator<G> {
    /// Per-backend mode: this backend's generator for its slot, above what
    /// the slot's previous holders and the server's previous runs used.
    pub(super) fn claim_slot(&self) -> Local<G> {
        let (slot, nslots) = slot();
        let claim = Marks::lock_interruptible(self.format)
            .and_then(|marks| marks.claim(slot))
            .unwrap_or_else(|e| marks::failed(self.format, e));
        let mut generator = MarkedGenerator::above(slot, nslots, claim.floor).or_raise();
        generator.extend_to(claim.mark);
        release_slots_at_exit();
        Local {
            slot: (slot, nslots),
            generator,
        }
    }

    /// Per-backend mode: records a mark that covers `unit` and a lease beyond
    /// it, unless the clock was set forward (docs/guarantees.md "Restarts, crashes and
    /// the clock"): then, with `must` (nothing can be issued without it), an
    /// error; without, nothing (the next ID's `must` raises it if the clock
    /// is still ahead).
    pub(super) fn extend_local(&self, local: &mut Local<G>, unit: u64, must: bool) {
        // The reference is the server's, in the marks file (this run's), so
        // that a backend that starts after a step sees it too.
        let checked = Marks::lock_interruptible(self.format).and_then(|marks| {
            let reference = marks.clock_reference()?;
            local.generator.set_clock_reference(reference);
            let checked = local
                .generator
                .check_clock(&mut BackendClock::new(), max_jump_nanos());
            if checked.is_ok() && local.generator.clock_reference() != reference {
                marks.set_clock_reference(local.generator.clock_reference())?;
            }
            Ok(checked)
        });
        match checked.unwrap_or_else(|e| marks::failed(self.format, e)) {
            Ok(()) => {}
            Err(e) if must => crate::plumbing::errors::raise(e),
            Err(_) => return,
        }
        let mark = local.generator.lease_for(unit);
        let recorded = self.record_mark(Some(local.slot.0), mark);
        local.generator.extend_to(recorded);
    }
}

/// Per-backend mode: at the backend's exit, each generator it used leaves
/// its slot with its exact last unit (registered on first use).
fn release_slots_at_exit() {
    static REGISTERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !REGISTERED.swap(true, Ordering::Relaxed) {
        // SAFETY: registers a callback PostgreSQL runs at backend exit.
        unsafe { pg_sys::before_shmem_exit(Some(release_slots), pg_sys::Datum::from(0usize)) };
    }
}

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn release_slots(_code: i32, _arg: pg_sys::Datum) {
    generators().iter().for_each(|g| g.release_slot());
}
