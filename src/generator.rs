//! The coordination-based generators as a server runs them (docs/guarantees.md
//! "Guarantees", "Shared mode"):
//! - per backend, each backend owns one generator per format for its slot;
//! - in shared mode, one generator per format for the whole server, in
//!   shared memory behind a spinlock: when pg_flake is preloaded, and from
//!   PostgreSQL 17 on also without preloading (a named DSM segment).
//!
//! Every generator keeps a durable mark ([`crate::marks`], and in the WAL
//! when preloaded, [`crate::wal`]): it never uses a unit above the mark
//! before a higher mark is recorded, and it starts above the mark a previous
//! run left, whatever the clock says.
//!
//! A format declares its generator as a `static` [`Generator`];
//! the registry (`src/registry.rs`) lists them, and `_PG_init` hands that list
//! to [`register`]. Nothing here knows the formats.

use crate::backend_local::BackendLocal;
use crate::clock::BackendClock;
use crate::errors::{raise, OrRaise};
use crate::marks::{Marks, MarksError};
use crate::native_type::datum_of_key;
use crate::settings::{self, Definition, Plain};
use crate::shared_memory::{self, SharedState};
use crate::spinlock::SpinLocked;
use crate::wal;
use flake_core::clock::{Clock, ReadAhead};
use flake_core::generator::{MarkedGenerator, SequencerRow, SlotGenerator, SHARED_SLOT};
use flake_core::sequencer::{Limits, Step};
use flake_core::{Error, ErrorKind, FlakeId};
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use pgrx::pg_sys;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use std::sync::OnceLock;

// `pg_flake_set_mark` and its WAL record: a child module, so that it reaches
// the server-wide state's fields.
#[path = "set_mark.rs"]
mod set_mark;

/// This backend's slot and the number of slots: unique among running
/// backends (docs/guarantees.md "Guarantees").
pub fn slot() -> (u32, u32) {
    // SAFETY: plain globals that PostgreSQL sets before any SQL runs.
    unsafe {
        #[cfg(not(proc_number))]
        let slot = pg_sys::MyBackendId - 1;
        #[cfg(proc_number)]
        let slot = pg_sys::MyProcNumber;
        (slot.max(0) as u32, pg_sys::MaxBackends.max(1) as u32)
    }
}

// --- settings ------------------------------------------------------------------------

/// `pg_flake.max_clock_lag`: how far (ms) IDs may run ahead of the clock.
static MAX_CLOCK_LAG: GucSetting<i32> = GucSetting::<i32>::new(60_000);

/// `pg_flake.max_clock_jump`: how far (ms) the real-time clock may be set
/// ahead at once before generation refuses to move a mark with it (docs/guarantees.md
/// "Restarts, crashes and the clock"); 0 turns the check off. The default
/// equals `max_clock_lag`'s: a step that is accepted can be undone without
/// generation stopping (logical time absorbs it), and NTP's steps of a
/// synchronised clock are far below it.
static MAX_CLOCK_JUMP: GucSetting<i32> = GucSetting::<i32>::new(60_000);

/// Defines the settings of every generator (from `_PG_init`).
pub fn define_settings() {
    settings::define_int::<Plain>(
        Definition {
            name: c"pg_flake.max_clock_jump",
            short: c"How far the clock may be set ahead at once before generation stops rather than move the marks with it.",
            long: c"A real-time clock that moved this much further than the monotonic clock since the last mark was set forward; generation raises an error instead of recording a mark that far ahead. 0 turns the check off (docs/guarantees.md \"Restarts, crashes and the clock\").",
            context: GucContext::Suset,
            flags: GucFlags::UNIT_MS,
        },
        &MAX_CLOCK_JUMP,
        0,
        i32::MAX,
    );
    settings::define_int::<Plain>(
        Definition {
            name: c"pg_flake.max_clock_lag",
            short: c"How far the clock may be behind the IDs already issued before generation stops.",
            long: c"While the clock is behind, IDs go on in logical time above the last ones, at most this far ahead of the clock; beyond, generation raises an error (docs/guarantees.md \"Guarantees\").",
            context: GucContext::Suset,
            flags: GucFlags::UNIT_MS,
        },
        &MAX_CLOCK_LAG,
        0,
        i32::MAX,
    );
}

fn max_lead_nanos() -> i64 {
    settings::int_value(&MAX_CLOCK_LAG) as i64 * 1_000_000
}

fn max_jump_nanos() -> i64 {
    settings::int_value(&MAX_CLOCK_JUMP) as i64 * 1_000_000
}

// --- modes ---------------------------------------------------------------------------

/// Where a format's generator state lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Backend,
    Shared,
}

impl Mode {
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Backend => "backend",
            Mode::Shared => "shared",
        }
    }
}

/// One row of `pg_flake_generator_state()`: one sequencer of a generator,
/// with the generator's durable mark.
pub struct StateRow {
    pub format: &'static str,
    pub mode: Mode,
    pub slot: u32,
    pub nslots: u32,
    pub mark: u64,
    /// The start of the mark's unit, in nanoseconds since the Unix epoch.
    pub mark_nanos: i128,
    pub sequencer: SequencerRow,
}

/// What the registry needs of every format's generator, whatever its type;
/// its server-wide state is a [`SharedState`].
pub trait ServerGenerator: SharedState {
    /// The format's name, as `pg_flake_generator_state()` shows it and as
    /// its marks are recorded.
    fn format(&self) -> &'static str;
    /// A mark replayed from the WAL (a standby, or crash recovery), with
    /// the node its primary generates with where the record carries one.
    fn learn(&self, mark: u64, node: Option<u32>);
    /// A `pg_flake_set_mark` replayed from the WAL: the mark becomes exactly
    /// `mark` (`set_mark.rs`).
    fn set_from_wal(&self, mark: u64, node: Option<u32>);
    /// Per backend, at the backend's exit: leaves the slot cleanly with the
    /// exact last unit.
    fn release_slot(&self);
    /// Shared mode, at the backend's exit: if it was recording a mark (a
    /// terminate or FATAL ended it mid-way), no longer.
    fn abandon_recording(&self);
    /// Its rows of `pg_flake_generator_state()`: none until it has been used.
    fn state_rows(&self) -> Vec<StateRow>;
    /// `pg_flake_set_mark`: the format's mark becomes the unit that holds
    /// `unix_nanos`, deliberately, up or down (docs/guarantees.md "Restarts, crashes and
    /// the clock"): a new marks file, the server's generator (this
    /// backend's, per backend) starting above it, the clock taken as it is
    /// from the next mark on, and a set record in the WAL (`set_mark.rs`).
    /// Returns the previous mark, where it could be read, and the new one
    /// with the start of its unit (Unix ns).
    fn set_mark(&self, unix_nanos: i64) -> (Option<u64>, u64, i128);
}

/// A backend's own generator: its slot and the generator with its mark.
#[derive(Clone, Copy)]
pub struct Local<G> {
    slot: (u32, u32),
    generator: MarkedGenerator<G>,
}

/// A generator's server-wide state: the generator with its mark behind a
/// spinlock, and who records a higher mark (file and WAL I/O, and under
/// synchronous replication the standbys' confirmation: never under the
/// spinlock, and never under a lock others wait for uncancellably).
#[repr(C)]
struct ServerState<G> {
    generator: SpinLocked<MarkedGenerator<G>>,
    /// The pid of the one backend recording a higher mark, 0 if none;
    /// changed only under `generator`'s spinlock, so that claiming it and
    /// seeing the mark it must raise are one step.
    recorder: AtomicI32,
    /// Broadcast when a recorder is done, whether it recorded, failed or
    /// exited: backends that need a higher mark sleep on it, cancellably
    /// (`ConditionVariableSleep` checks for interrupts).
    recorded: pg_sys::ConditionVariable,
    /// Whether the generator's floor is the marks file's mark: false where
    /// the file could not be read when the state was set up (docs/guarantees.md
    /// "Restarts, crashes and the clock"); the first recording reads it
    /// again before anything is issued.
    floor_known: AtomicBool,
}

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

/// Ends a backend's recording however the recording ends: as it returns or
/// as an ERROR unwinds it (a FATAL or terminate ends the process without
/// unwinding: `abandon_recordings` then runs at its exit).
struct Recording<'a, G: Copy> {
    shared: &'a ServerState<G>,
}

impl<G: Copy> Drop for Recording<'_, G> {
    fn drop(&mut self) {
        finish_recording(self.shared);
    }
}

/// Clears `shared`'s recorder if it is this backend, and wakes the backends
/// waiting for it (one of them records next if it still needs to).
fn finish_recording<G: Copy>(shared: &ServerState<G>) {
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

fn backend_pid() -> i32 {
    // SAFETY: a plain global of the backend.
    unsafe { pg_sys::MyProcPid }
}

/// One attempt's outcome without its error, which [`Attempt::of`] leaves
/// in the caller's `failure`: the path of every ID then moves no
/// `flake_core::Error`-sized `Result` out of the locked block
/// (docs/BENCHMARKS.md "Generation profile").
enum Attempt<T> {
    /// The ID, and the unit a higher mark is due for, if one is.
    Issued(T, Option<u64>),
    Wait,
    Extend(u64),
    Failed,
}

impl<T> Attempt<T> {
    #[inline(always)]
    fn of(
        result: flake_core::Result<Step<T>>,
        failure: &mut Option<Error>,
        extension_due: impl FnOnce() -> Option<u64>,
    ) -> Self {
        match result {
            Ok(Step::Issued(id)) => Attempt::Issued(id, extension_due()),
            Ok(Step::Wait) => Attempt::Wait,
            Ok(Step::Extend(unit)) => Attempt::Extend(unit),
            Err(e) => {
                *failure = Some(e);
                Attempt::Failed
            }
        }
    }
}

/// Raises what [`Attempt::of`] left.
#[cold]
fn failed(failure: Option<Error>) -> ! {
    raise(failure.unwrap_or_else(|| Error::Internal {
        message: "pg_flake: a generator's attempt failed without an error".into(),
    }))
}

/// A coordination-based generator of one format: one per backend in
/// `local`, or, once attached to shared memory (shared mode), one for the
/// whole server. A format declares it as a `static`:
/// `pub static GENERATOR: Generator<SnoGenerator> = Generator::new("sno");`.
///
/// The spinlock is held for one step of the sequencer, tens of instructions;
/// an LWLock was measured as well and was no faster (`docs/BENCHMARKS.md`).
pub struct Generator<G: 'static> {
    format: &'static str,
    local: BackendLocal<Option<Local<G>>>,
    shared: AtomicPtr<ServerState<G>>,
}

/// What a generator does with a mark: record it durably (the marks file, then
/// the WAL where there is one) and say what was recorded. Per backend also
/// in the backend's `slot`, which bounds what it used if it does not leave
/// cleanly.
fn record_mark(format: &'static str, slot: Option<u32>, mark: u64) -> u64 {
    let recorded = Marks::lock_interruptible(format)
        .and_then(|marks| {
            let recorded = marks.extend(mark)?;
            if let Some(slot) = slot {
                marks.hold(slot, recorded)?;
            }
            Ok(recorded)
        })
        .unwrap_or_else(|e| marks_failed(format, e));
    // With the node this backend announced (docs/operations.md "Standbys and failover").
    wal::log_mark(format, recorded, crate::node::announced(format));
    recorded
}

/// Raises a failure to read or write a marks file, with the SQLSTATE
/// PostgreSQL gives the same failure of its own files
/// (`errcode_for_file_access`): generation stops rather than risk a
/// duplicate (docs/guarantees.md "Restarts, crashes and the clock").
pub fn marks_failed(format: &str, error: std::io::Error) -> ! {
    if let Some(damage) = MarksError::of(&error) {
        // Damaged or missing (docs/guarantees.md "Restarts, crashes and the clock"):
        // no mark to trust, so none of the format's IDs until an operator
        // says where its IDs end.
        raise(Error::refused(
            ErrorKind::DataCorrupted,
            format!("cannot generate {format} IDs: {damage}"),
            format!(
                "Restore the file from a backup of this data directory taken with the server stopped, or set the mark deliberately: \
                 find the time of the highest {format} ID stored (e.g. SELECT max({format}_timestamp(id)) FROM your tables) and, as a superuser, \
                 SELECT pg_flake_set_mark('{format}', that time) (docs/guarantees.md \"Restarts, crashes and the clock\")."
            ),
        ));
    }
    let kind = match error.kind() {
        std::io::ErrorKind::PermissionDenied => ErrorKind::InsufficientPrivilege,
        std::io::ErrorKind::NotFound => ErrorKind::UndefinedFile,
        std::io::ErrorKind::StorageFull => ErrorKind::DiskFull,
        _ => ErrorKind::IoError,
    };
    raise(Error::refused(
        kind,
        format!("pg_flake: could not record the {format} mark in pg_flake/{format}.marks: {error}"),
        format!(
            "The server's operating-system user must be able to read and write pg_flake/{format}.marks under the data directory; no {format} ID is issued until it can."
        ),
    ))
}

impl<G: SlotGenerator> Generator<G> {
    pub const fn new(format: &'static str) -> Self {
        Generator {
            format,
            local: BackendLocal::new(None),
            shared: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The server-wide state, once attached (shared mode).
    fn shared(&self) -> Option<&ServerState<G>> {
        shared_memory::attach_dynamic();
        // SAFETY: set by `attach` to shared memory that lives as long as the
        // process; the generator behind it is reached only under its lock.
        unsafe { self.shared.load(Ordering::Acquire).as_ref() }
    }

    /// Runs `step` (one attempt of the generator's non-blocking
    /// `try_generate`) until it issues an ID, pausing while a unit is used up
    /// (at most one unit) and recording a higher mark when the generator
    /// reaches its mark (docs/guarantees.md "Guarantees").
    ///
    /// In shared mode each attempt reads the clock, then holds the spinlock
    /// for one step of the server's generator: arithmetic only (a second
    /// clock reading if the first one turns out stale), nothing that can
    /// wait, raise, panic or allocate on the success path. Pauses, errors
    /// and the recording of marks come after the lock is released.
    pub fn generate<T>(
        &'static self,
        mut step: impl FnMut(
            &mut G,
            &mut ReadAhead<BackendClock>,
            &Limits,
        ) -> flake_core::Result<Step<T>>,
    ) -> T {
        let mut clock = BackendClock::new();
        let max_lead = max_lead_nanos();
        // Written only where an attempt fails (see `Attempt`).
        let mut failure = None;
        if let Some(shared) = self.shared() {
            loop {
                let attempt = {
                    let mut clock = ReadAhead::new(&mut clock);
                    let mut generator = shared.generator.lock();
                    let result = generator.try_generate(&mut clock, max_lead, &mut step);
                    Attempt::of(result, &mut failure, || generator.extension_due())
                };
                match attempt {
                    Attempt::Issued(id, due) => {
                        if let Some(unit) = due {
                            self.extend_shared(shared, unit, false);
                        }
                        return id;
                    }
                    Attempt::Wait => clock.pause(),
                    Attempt::Extend(unit) => self.extend_shared(shared, unit, true),
                    Attempt::Failed => failed(failure),
                }
            }
        }
        self.local.with_borrow_mut(|local| {
            let local = local.get_or_insert_with(|| self.claim_slot());
            loop {
                let result = local.generator.try_generate(
                    &mut ReadAhead::new(&mut clock),
                    max_lead,
                    &mut step,
                );
                match Attempt::of(result, &mut failure, || local.generator.extension_due()) {
                    Attempt::Issued(id, due) => {
                        if let Some(unit) = due {
                            self.extend_local(local, unit, false);
                        }
                        return id;
                    }
                    Attempt::Wait => clock.pause(),
                    Attempt::Extend(unit) => self.extend_local(local, unit, true),
                    Attempt::Failed => failed(failure),
                }
            }
        })
    }

    /// [`generate`](Self::generate) for a format of 9 to 16 bytes, into its
    /// datum: the ID is carried as its [`FlakeId::key`] from the step to the
    /// datum, in registers. As a byte array it went through memory twice on
    /// the way, written in pieces and read back in 8-byte loads across them,
    /// each load waiting for the stores (docs/BENCHMARKS.md "Generation
    /// profile").
    #[inline(always)]
    pub fn generate_datum<I: FlakeId>(
        &'static self,
        step: impl FnMut(
            &mut G,
            &mut ReadAhead<BackendClock>,
            &Limits,
        ) -> flake_core::Result<Step<u128>>,
    ) -> pg_sys::Datum {
        datum_of_key::<I>(self.generate(step))
    }

    /// Per-backend mode: this backend's generator for its slot, above what
    /// the slot's previous holders and the server's previous runs used.
    fn claim_slot(&self) -> Local<G> {
        let (slot, nslots) = slot();
        let claim = Marks::lock_interruptible(self.format)
            .and_then(|marks| marks.claim(slot))
            .unwrap_or_else(|e| marks_failed(self.format, e));
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
    fn extend_local(&self, local: &mut Local<G>, unit: u64, must: bool) {
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
        match checked.unwrap_or_else(|e| marks_failed(self.format, e)) {
            Ok(()) => {}
            Err(e) if must => crate::errors::raise(e),
            Err(_) => return,
        }
        let mark = local.generator.lease_for(unit);
        let recorded = record_mark(self.format, Some(local.slot.0), mark);
        local.generator.extend_to(recorded);
    }

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
    fn extend_shared(&self, shared: &ServerState<G>, unit: u64, must: bool) {
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
                .unwrap_or_else(|e| marks_failed(self.format, e));
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
                        crate::errors::raise(e);
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
        let recorded = record_mark(self.format, None, mark);
        shared.generator.lock().extend_to(recorded);
        drop(recording);
    }

    /// The generator with its mode, slot and number of slots: in shared mode
    /// a copy of the server's (taken under the lock), else this backend's,
    /// if it has been made.
    fn snapshot(&self) -> Option<(Mode, (u32, u32), MarkedGenerator<G>)> {
        match self.shared() {
            Some(shared) => Some((Mode::Shared, SHARED_SLOT, *shared.generator.lock())),
            None => self
                .local
                .with_borrow(|local| local.map(|l| (Mode::Backend, l.slot, l.generator))),
        }
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

impl<G: SlotGenerator> ServerGenerator for Generator<G> {
    fn format(&self) -> &'static str {
        self.format
    }

    fn release_slot(&self) {
        // As at shutdown: errors are not raised at exit.
        if let Some(local) = self.local.with_borrow(|local| *local) {
            let last = local.generator.generator().last_unit();
            if let Ok(marks) = Marks::lock(self.format) {
                let _ = marks.release(local.slot.0, last);
            }
        }
    }

    fn abandon_recording(&self) {
        // The state this backend attached, if any: nothing is attached at
        // exit.
        // SAFETY: as in `shared`.
        if let Some(shared) = unsafe { self.shared.load(Ordering::Acquire).as_ref() } {
            if shared.recorder.load(Ordering::Relaxed) == backend_pid() {
                finish_recording(shared);
            }
        }
    }

    fn learn(&self, mark: u64, node: Option<u32>) {
        if let Some(shared) = self.shared() {
            shared.generator.lock().learn(mark);
        }
        let learned = Marks::recover(self.format, mark).and_then(|marks| {
            marks.extend(mark)?;
            match node {
                Some(node) => crate::lineage::replayed(&marks, self.format, node),
                None => Ok(()),
            }
        });
        if let Err(e) = learned {
            marks_failed(self.format, e);
        }
    }

    fn set_mark(&self, unix_nanos: i64) -> (Option<u64>, u64, i128) {
        self.set_mark_now(unix_nanos)
    }

    fn set_from_wal(&self, mark: u64, node: Option<u32>) {
        self.set_mark_from_wal(mark, node)
    }

    fn state_rows(&self) -> Vec<StateRow> {
        let Some((mode, (slot, nslots), generator)) = self.snapshot() else {
            return Vec::new();
        };
        generator
            .generator()
            .sequencers()
            .into_iter()
            // A shared generator exists from server start: it shows from
            // then on (issued 0), with its mark, also while the clock is too
            // far behind for it to issue anything.
            .map(|sequencer| StateRow {
                format: self.format,
                mode,
                slot,
                nslots,
                mark: generator.mark(),
                mark_nanos: G::start_of(generator.mark()),
                sequencer,
            })
            .collect()
    }
}

// --- the registered generators -----------------------------------------------------

/// Every generator, as `_PG_init` registered them.
static GENERATORS: OnceLock<Vec<&'static dyn ServerGenerator>> = OnceLock::new();

fn generators() -> &'static [&'static dyn ServerGenerator] {
    GENERATORS.get().map_or(&[][..], Vec::as_slice)
}

/// A mark of `format` replayed from the WAL (a standby, or crash recovery;
/// `wal::register` is given this): its generator learns it (a set record:
/// is set to it), and the node its primary generates with where the record
/// carries one. A format this library does not know (a later version wrote
/// it) has no generator here to protect.
pub fn learn(format: &[u8], mark: u64, node: Option<u32>, kind: wal::Replayed) {
    if let Some(generator) = generators()
        .iter()
        .find(|g| g.format().as_bytes() == format)
    {
        match kind {
            wal::Replayed::Mark => generator.learn(mark, node),
            wal::Replayed::Set => generator.set_from_wal(mark, node),
        }
    }
}

/// Registers the server's generators (from `_PG_init`) and gives them
/// server-wide state where the server has it (docs/operations.md "Shared mode").
pub fn register(generators: impl Iterator<Item = &'static dyn ServerGenerator>) {
    let generators = GENERATORS.get_or_init(|| generators.collect());
    shared_memory::register(generators.iter().map(|g| *g as &'static dyn SharedState));
}

// --- per-backend slots -----------------------------------------------------------------

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

// --- recorders ---------------------------------------------------------------------

/// Shared mode: at the backend's exit (a terminate or FATAL while it records
/// a mark does not unwind), it stops being any generator's recorder, so the
/// backends waiting for it go on (registered when it first records).
fn abandon_recordings_at_exit() {
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

/// `pg_flake_set_mark` of `format` (a coordination-based format), at the
/// unit that holds `unix_nanos`: the previous mark (if readable), the new
/// one and its unit's start (Unix ns); None for a format without a
/// generator.
pub fn set_mark(format: &str, unix_nanos: i64) -> Option<(Option<u64>, u64, i128)> {
    generators()
        .iter()
        .find(|g| g.format() == format)
        .map(|g| g.set_mark(unix_nanos))
}
