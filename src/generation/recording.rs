//! How a higher mark is recorded (docs/guarantees.md "Restarts, crashes and
//! the clock"): durably in the format's marks file, then in the WAL with the
//! node this backend announced; in shared mode by one backend at a time,
//! which stops being the recorder however its recording ends.

use super::registry::generators;
use super::shared::ServerState;
use super::Generator;
use flake_core::generator::SlotGenerator;
use crate::marks::{self, wal, Marks};
use pgrx::pg_sys;
use std::sync::atomic::Ordering;

/// What a generator does with a mark: record it durably (the marks file, then
/// the WAL where there is one) and say what was recorded. Per backend also
/// in the backend's `slot`, which bounds what it used if it does not leave
/// cleanly.
impl<G: SlotGenerator> Generator<G> {
    pub(super) fn record_mark(&self, slot: Option<u32>, mark: u64) -> u64 {
        let recorded = Marks::lock_interruptible(self.format)
            .and_then(|marks| {
                let recorded = marks.extend(mark)?;
                if let Some(slot) = slot {
                    marks.hold(slot, recorded)?;
                }
                Ok(recorded)
            })
            .unwrap_or_else(|e| marks::failed(self.format, e));
        // With the node this backend announced (docs/operations.md "Standbys and failover").
        wal::log_mark(self.format, recorded, self.node.announced());
        recorded
    }
}

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
