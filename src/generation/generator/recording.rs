//! Higher marks (docs/guarantees.md "Guarantees", "Restarts, crashes and the
//! clock"): a generator that reaches its mark has a higher one recorded,
//! durably in the format's marks file, then in the WAL with the node this
//! backend announced, by one backend at a time while the others wait
//! cancellably; and a mark replayed from the WAL is learned.

use super::{Generator, ServerState};
use crate::generation::clock_settings::max_jump_nanos;
use crate::generation::registry::generators;
use crate::marks::{self, wal, Marks};
use crate::plumbing::backend::clock::BackendClock;
use flake_core::generator::SlotGenerator;
use pgrx::pg_sys;
use std::sync::atomic::Ordering;
use std::time::Instant;

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

    /// What a generator does with a mark: record it durably (the marks file, then
    /// the WAL where there is one), counting the time each took
    /// (`pg_flake_stats`), and say what was recorded.
    pub(super) fn record_mark(&self, shared: &ServerState<G>, mark: u64) -> u64 {
        let started = Instant::now();
        let recorded = match Marks::lock_interruptible(self.format)
            .and_then(|marks| marks.extend_shared(mark))
        {
            Ok(Some(recorded)) => recorded,
            Ok(None) => self.refuse(marks::beside_earlier_library(self.format)),
            Err(e) => self.refuse(marks::failure(self.format, e)),
        };
        let filed = Instant::now();
        // With the node this backend announced (docs/operations.md "Standbys and failover").
        wal::log_mark(self.format, recorded, self.node.announced());
        shared.stats.count_mark(filed - started, filed.elapsed());
        recorded
    }

    /// A mark replayed from the WAL (a standby, or crash recovery), with the
    /// node its primary generates with where the record carries one
    /// ([`ServerGenerator::learn`](crate::generation::ServerGenerator::learn)):
    /// the server's generator and the marks file learn it.
    pub(super) fn learn_replayed(&self, mark: u64, node: Option<u32>) {
        if let Some(shared) = self.shared() {
            shared.generator.lock().learn(mark);
        }
        let learned = Marks::recover(self.format, mark).and_then(|marks| {
            marks.extend(mark)?;
            match node {
                Some(node) => crate::node::lineage::replayed(&marks, self.format, node),
                None => Ok(()),
            }
        });
        if let Err(e) = learned {
            marks::failed(self.format, e);
        }
    }

    /// At the backend's exit: if it was this generator's recorder (a
    /// terminate or FATAL ended its recording mid-way), no longer
    /// ([`ServerGenerator::abandon_recording`](crate::generation::ServerGenerator::abandon_recording)).
    pub(super) fn abandon_recording_at_exit(&self) {
        // The state this backend attached, if any: nothing is attached at
        // exit.
        // SAFETY: as in `shared`.
        if let Some(shared) = unsafe { self.shared.load(Ordering::Acquire).as_ref() } {
            if shared.recorder.load(Ordering::Relaxed) == backend_pid() {
                finish_recording(shared);
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
