//! A generator's server-wide state as a user of shared memory
//! ([`SharedState`], docs/operations.md "Shared mode"): its size, its set-up
//! above the mark the marks file holds, and its last mark at shutdown.

use super::counters::Counters;
use super::{Generator, ServerState};
use crate::marks::Marks;
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::shmem::spinlock::SpinLocked;
use crate::plumbing::shmem::SharedState;
use flake_core::generator::{MarkedGenerator, SlotGenerator, SHARED_SLOT};
use pgrx::pg_sys;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

impl<G: SlotGenerator> SharedState for Generator<G> {
    fn size(&self) -> usize {
        std::mem::size_of::<ServerState<G>>()
    }

    unsafe fn attach(&self, at: *mut u8, fresh: bool) {
        let state = at.cast::<ServerState<G>>();
        if fresh {
            // Above everything the server's previous runs used (docs/guarantees.md
            // "Guarantees"). A mark that cannot be read does not stop the
            // server (an operator must be able to connect and set it): the
            // generator starts with none, and its first ID needs one, which
            // recording reads from the file again and refuses until the
            // file is sound (docs/guarantees.md "Restarts, crashes and the clock").
            let (floor, floor_known) =
                match Marks::lock(self.format).and_then(|marks| marks.global()) {
                    Ok(floor) => (floor, true),
                    Err(e) => {
                        pgrx::warning!(
                            "pg_flake: {e}; no {} ID is issued until it is mended",
                            self.format
                        );
                        (0, false)
                    }
                };
            // The reference for clock steps is taken at the first mark
            // (docs/guarantees.md "Restarts, crashes and the clock"): a clock set right
            // after the server started, before any ID, is not refused.
            let generator = MarkedGenerator::above(SHARED_SLOT.0, SHARED_SLOT.1, floor).or_raise();
            // SAFETY: the caller reserved this memory for this generator.
            unsafe {
                SpinLocked::init(&raw mut (*state).generator, generator);
                (&raw mut (*state).recorder).write(AtomicI32::new(0));
                (&raw mut (*state).floor_known).write(AtomicBool::new(floor_known));
                (&raw mut (*state).stats).write(Counters::new());
                pg_sys::ConditionVariableInit(&raw mut (*state).recorded);
            }
        }
        self.shared.store(state, Ordering::Release);
    }

    fn at_shutdown(&self) {
        // Every backend is gone and shared memory holds every unit used: a
        // mark left higher than needed is always safe, so errors are not
        // raised here.
        if let Some(shared) = self.shared() {
            // A generator that never read its mark (the file could not be
            // read when the server started, and nothing was generated
            // since) knows no unit the mark covers: it writes nothing.
            if !shared.floor_known.load(Ordering::Acquire) {
                return;
            }
            let (last, known) = {
                let generator = shared.generator.lock();
                (generator.generator().last_unit(), generator.mark())
            };
            if let Ok(marks) = Marks::lock(self.format) {
                let _ = marks.settle(last, known);
            }
        }
    }
}
