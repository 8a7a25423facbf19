//! Shared mode (docs/operations.md "Shared mode"): one generator per format
//! for the whole server, in shared memory behind a spinlock, whose higher
//! marks one backend at a time records while the others wait cancellably.

use super::counters::Counters;
use super::generator::{Generator, ServerState};
use super::registry::generators;
use super::settings::max_jump_nanos;
use crate::marks::{self, Marks};
use crate::plumbing::clock::BackendClock;
use crate::plumbing::errors::OrRaise;
use crate::plumbing::shared_memory::SharedState;
use crate::plumbing::spinlock::SpinLocked;
use flake_core::generator::{MarkedGenerator, SlotGenerator, SHARED_SLOT};
use pgrx::pg_sys;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// What a backend found when it needed a higher mark.
enum Extension {
    /// The mark already covers what it needs.
    Covered,
    /// It is the recorder now, of this mark.
    Record(u64),
    /// Another backend is recording one.
    Busy,
    /// The clock was stepped ahead (docs/guarantees.md "Restarts, crashes and the
    /// clock"): nothing is recorded.
    Refused(flake_core::Error),
}

impl<G: SlotGenerator> Generator<G> {
    /// Shared mode: records a mark that covers `unit` and a lease beyond it.
    /// With `must`, waits for a backend that is recording one already (it
    /// may cover `unit`); without, leaves it to that backend.
    ///
    /// The wait is on a condition variable, never on a lock held across
    /// I/O: a cancel, `statement_timeout` or terminate ends it at once, for
    /// the recorder (in its standby wait, `wal::log_mark`) as for the
    /// backends behind it (docs/operations.md "Standbys and failover"). The generator
    /// uses the recorded mark only once `record_mark` returned: an
    /// interrupted recording raises and extends nothing.
    pub(super) fn extend_shared(&self, shared: &ServerState<G>, unit: u64, must: bool) {
        if !shared.floor_known.load(Ordering::Acquire) {
            // Set up without the file's mark: learn it first (or raise why
            // it still cannot be read), so that no unit at or below it is
            // used; the caller's next step sees the new floor.
            // Learned under the marks lock: a `pg_flake_set_mark` that
            // replaces the file meanwhile is not undone by the old mark.
            Marks::lock_interruptible(self.format)
                .and_then(|marks| {
                    let global = marks.global()?;
                    shared.generator.lock().learn(global);
                    shared.floor_known.store(true, Ordering::Release);
                    Ok(())
                })
                .unwrap_or_else(|e| self.refuse(marks::failure(self.format, e)));
            return;
        }
        // Before this backend can become a recorder: registering raises
        // if PostgreSQL's list of exit callbacks is full.
        abandon_recordings_at_exit();
        let cv = (&raw const shared.recorded).cast_mut();
        let mut slept = false;
        let mark = loop {
            let found = {
                let mut generator = shared.generator.lock();
                let covered = if must {
                    generator.mark() >= unit
                } else {
                    generator.extension_due().is_none()
                };
                if covered {
                    Extension::Covered
                } else if shared.recorder.load(Ordering::Relaxed) == 0 {
                    // Two clock readings under the spinlock, once per mark:
                    // the reference for clock steps is server-wide (docs/guarantees.md
                    // "Restarts, crashes and the clock").
                    match generator.check_clock(&mut BackendClock::new(), max_jump_nanos()) {
                        Ok(()) => {
                            shared.recorder.store(backend_pid(), Ordering::Relaxed);
                            Extension::Record(generator.lease_for(unit))
                        }
                        Err(e) => Extension::Refused(e),
                    }
                } else {
                    Extension::Busy
                }
            };
            match found {
                Extension::Record(mark) => break Some(mark),
                Extension::Covered => break None,
                Extension::Refused(e) => {
                    if slept {
                        // SAFETY: leaves the condition variable's wait list.
                        unsafe { pg_sys::ConditionVariableCancelSleep() };
                    }
                    if must {
                        self.refuse(e);
                    }
                    return;
                }
                Extension::Busy if !must => break None,
                Extension::Busy => {
                    // SAFETY: an initialised condition variable; the first
                    // call only prepares to sleep (the state is looked at
                    // again before sleeping); an interrupt raises here.
                    unsafe { pg_sys::ConditionVariableSleep(cv, pg_sys::PG_WAIT_EXTENSION) };
                    slept = true;
                }
            }
        };
        if slept {
            // SAFETY: leaves the condition variable's wait list.
            unsafe { pg_sys::ConditionVariableCancelSleep() };
        }
        let Some(mark) = mark else {
            return;
        };
        let recording = Recording { shared };
        let recorded = self.record_mark(shared, mark);
        shared.generator.lock().extend_to(recorded);
        drop(recording);
    }
}

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

// --- the one recorder -------------------------------------------------------------

/// Ends a backend's recording however the recording ends: as it returns or
/// as an ERROR unwinds it (a FATAL or terminate ends the process without
/// unwinding: `abandon_recordings` then runs at its exit).
pub(super) struct Recording<'a, G: Copy> {
    pub(super) shared: &'a ServerState<G>,
}

impl<G: Copy> Drop for Recording<'_, G> {
    fn drop(&mut self) {
        finish_recording(self.shared);
    }
}

/// Clears `shared`'s recorder if it is this backend, and wakes the backends
/// waiting for it (one of them records next if it still needs to).
pub(super) fn finish_recording<G: Copy>(shared: &ServerState<G>) {
    let me = backend_pid();
    {
        let _locked = shared.generator.lock();
        if shared.recorder.load(Ordering::Relaxed) == me {
            shared.recorder.store(0, Ordering::Relaxed);
        }
    }
    // SAFETY: a condition variable initialised with the state; broadcasting
    // does not raise.
    unsafe { pg_sys::ConditionVariableBroadcast((&raw const shared.recorded).cast_mut()) };
}

pub(super) fn backend_pid() -> i32 {
    // SAFETY: a plain global of the backend.
    unsafe { pg_sys::MyProcPid }
}

/// Shared mode: at the backend's exit (a terminate or FATAL while it records
/// a mark does not unwind), it stops being any generator's recorder, so the
/// backends waiting for it go on (registered when it first records).
pub(super) fn abandon_recordings_at_exit() {
    static REGISTERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !REGISTERED.swap(true, Ordering::Relaxed) {
        // SAFETY: registers a callback PostgreSQL runs at backend exit.
        unsafe { pg_sys::before_shmem_exit(Some(abandon_recordings), pg_sys::Datum::from(0usize)) };
    }
}

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn abandon_recordings(_code: i32, _arg: pg_sys::Datum) {
    generators().iter().for_each(|g| g.abandon_recording());
}
