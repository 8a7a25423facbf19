//! The coordination-based generators as a server runs them (README
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
//! A format declares its generator with [`generator!`](crate::generator::generator!);
//! the registry (`src/registry.rs`) lists them, and `_PG_init` hands that list
//! to [`register`]. Nothing here knows the formats.

use crate::clock::BackendClock;
use crate::errors::OrRaise;
use crate::marks::Marks;
use crate::shared_memory::{self, SharedState};
use crate::spinlock::SpinLocked;
use crate::wal;
use flake_core::clock::{Clock, ClockReference, ReadAhead};
use flake_core::generator::{MarkedGenerator, SequencerRow, SlotGenerator, SHARED_SLOT};
use flake_core::sequencer::{Limits, Step};
use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys;
use std::cell::RefCell;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;
use std::thread::LocalKey;

/// This backend's slot and the number of slots: unique among running
/// backends (README "Guarantees").
pub fn slot() -> (u32, u32) {
    // SAFETY: plain globals that PostgreSQL sets before any SQL runs.
    unsafe {
        #[cfg(any(feature = "pg13", feature = "pg14", feature = "pg15", feature = "pg16"))]
        let slot = pg_sys::MyBackendId - 1;
        #[cfg(not(any(feature = "pg13", feature = "pg14", feature = "pg15", feature = "pg16")))]
        let slot = pg_sys::MyProcNumber;
        (slot.max(0) as u32, pg_sys::MaxBackends.max(1) as u32)
    }
}

// --- settings ------------------------------------------------------------------------

/// `pg_flake.max_clock_lag`: how far (ms) IDs may run ahead of the clock.
static MAX_CLOCK_LAG: GucSetting<i32> = GucSetting::<i32>::new(60_000);

/// `pg_flake.max_clock_jump`: how far (ms) the real-time clock may be set
/// ahead at once before generation refuses to move a mark with it (README
/// "Restarts, crashes and the clock"); 0 turns the check off. The default
/// equals `max_clock_lag`'s: a step that is accepted can be undone without
/// generation stopping (logical time absorbs it), and NTP's steps of a
/// synchronised clock are far below it.
static MAX_CLOCK_JUMP: GucSetting<i32> = GucSetting::<i32>::new(60_000);

/// Defines the settings of every generator (from `_PG_init`).
pub fn define_settings() {
    GucRegistry::define_int_guc(
        c"pg_flake.max_clock_jump",
        c"How far the clock may be set ahead at once before generation stops rather than move the marks with it.",
        c"A real-time clock that moved this much further than the monotonic clock since the last mark was set forward; generation raises an error instead of recording a mark that far ahead. 0 turns the check off (README \"Restarts, crashes and the clock\").",
        &MAX_CLOCK_JUMP,
        0,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"pg_flake.max_clock_lag",
        c"How far the clock may be behind the IDs already issued before generation stops.",
        c"While the clock is behind, IDs go on in logical time above the last ones, at most this far ahead of the clock; beyond, generation raises an error (README \"Guarantees\").",
        &MAX_CLOCK_LAG,
        0,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_MS,
    );
}

fn max_lead_nanos() -> i64 {
    MAX_CLOCK_LAG.get() as i64 * 1_000_000
}

fn max_jump_nanos() -> i64 {
    MAX_CLOCK_JUMP.get() as i64 * 1_000_000
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
    /// A mark replayed from the WAL (a standby, or crash recovery).
    fn learn(&self, mark: u64);
    /// Per backend, at the backend's exit: leaves the slot cleanly with the
    /// exact last unit.
    fn release_slot(&self);
    /// Its rows of `pg_flake_generator_state()`: none until it has been used.
    fn state_rows(&self) -> Vec<StateRow>;
    /// Takes the clock as it is from the next mark on, for the whole
    /// server (per backend: in the marks file): for `pg_flake_set_mark`,
    /// after an administrator moved the mark to the clock's new time
    /// deliberately (README "Restarts, crashes and the clock").
    // Called by pg_flake_set_mark (issue 22, built separately): drop the
    // allow once it is merged.
    #[allow(dead_code)]
    fn forget_clock(&self);
}

/// A backend's own generator: its slot and the generator with its mark.
#[derive(Clone, Copy)]
pub struct Local<G> {
    slot: (u32, u32),
    generator: MarkedGenerator<G>,
}

/// A generator's server-wide state: the generator with its mark behind a
/// spinlock, and an LWLock held by the one backend that records a higher
/// mark (file and WAL I/O, never under the spinlock).
#[repr(C)]
struct ServerState<G> {
    generator: SpinLocked<MarkedGenerator<G>>,
    extending: pg_sys::LWLock,
}

/// A coordination-based generator of one format: one per backend in
/// `local`, or, once attached to shared memory (shared mode), one for the
/// whole server. Declare it with [`generator!`](crate::generator::generator!).
///
/// The spinlock is held for one step of the sequencer, tens of instructions;
/// an LWLock was measured as well and was no faster (`docs/BENCHMARKS.md`).
pub struct Generator<G: 'static> {
    format: &'static str,
    local: &'static LocalKey<RefCell<Option<Local<G>>>>,
    shared: AtomicPtr<ServerState<G>>,
}

/// Declares a format's [`Generator`]: `generator!(pub NAME: Type, "format")`.
macro_rules! generator {
    ($vis:vis $name:ident: $generator:ty, $format:literal) => {
        $vis static $name: $crate::generator::Generator<$generator> = {
            ::std::thread_local! {
                static LOCAL: ::std::cell::RefCell<Option<$crate::generator::Local<$generator>>> =
                    const { ::std::cell::RefCell::new(None) };
            }
            $crate::generator::Generator::new($format, &LOCAL)
        };
    };
}
pub(crate) use generator;

/// What a generator does with a mark: record it durably (the marks file, then
/// the WAL where there is one) and say what was recorded. Per backend also
/// in the backend's `slot`, which bounds what it used if it does not leave
/// cleanly.
fn record_mark(format: &'static str, slot: Option<u32>, mark: u64) -> u64 {
    let recorded = Marks::lock(format)
        .and_then(|marks| {
            let recorded = marks.extend(mark)?;
            if let Some(slot) = slot {
                marks.hold(slot, recorded)?;
            }
            Ok(recorded)
        })
        .unwrap_or_else(|e| marks_failed(format, e));
    wal::log_mark(format, recorded);
    recorded
}

fn marks_failed(format: &str, error: std::io::Error) -> ! {
    pgrx::error!("pg_flake: could not record the {format} mark in pg_flake/{format}.marks: {error}")
}

impl<G: SlotGenerator> Generator<G> {
    pub const fn new(
        format: &'static str,
        local: &'static LocalKey<RefCell<Option<Local<G>>>>,
    ) -> Self {
        Generator {
            format,
            local,
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
    /// reaches its mark (README "Guarantees").
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
        if let Some(shared) = self.shared() {
            loop {
                let (attempt, due) = {
                    let mut clock = ReadAhead::new(&mut clock);
                    let mut generator = shared.generator.lock();
                    let attempt = generator.try_generate(&mut clock, max_lead, &mut step);
                    let due = match attempt {
                        Ok(Step::Issued(_)) => generator.extension_due(),
                        _ => None,
                    };
                    (attempt, due)
                };
                match attempt.or_raise() {
                    Step::Issued(id) => {
                        if let Some(unit) = due {
                            self.extend_shared(shared, unit, false);
                        }
                        return id;
                    }
                    Step::Wait => clock.pause(),
                    Step::Extend(unit) => self.extend_shared(shared, unit, true),
                }
            }
        }
        self.local.with_borrow_mut(|local| {
            let local = local.get_or_insert_with(|| self.claim_slot());
            loop {
                let attempt = local.generator.try_generate(
                    &mut ReadAhead::new(&mut clock),
                    max_lead,
                    &mut step,
                );
                match attempt.or_raise() {
                    Step::Issued(id) => {
                        if let Some(unit) = local.generator.extension_due() {
                            self.extend_local(local, unit, false);
                        }
                        return id;
                    }
                    Step::Wait => clock.pause(),
                    Step::Extend(unit) => self.extend_local(local, unit, true),
                }
            }
        })
    }

    /// Per-backend mode: this backend's generator for its slot, above what
    /// the slot's previous holders and the server's previous runs used.
    fn claim_slot(&self) -> Local<G> {
        let (slot, nslots) = slot();
        let claim = Marks::lock(self.format)
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
    /// it, unless the clock was set forward (README "Restarts, crashes and
    /// the clock"): then, with `must` (nothing can be issued without it), an
    /// error; without, nothing (the next ID's `must` raises it if the clock
    /// is still ahead).
    fn extend_local(&self, local: &mut Local<G>, unit: u64, must: bool) {
        // The reference is the server's, in the marks file (this run's), so
        // that a backend that starts after a step sees it too.
        let checked = Marks::lock(self.format).and_then(|marks| {
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
    fn extend_shared(&self, shared: &ServerState<G>, unit: u64, must: bool) {
        let lock = (&raw const shared.extending).cast_mut();
        // SAFETY: an LWLock initialised with the state; PostgreSQL releases
        // it if the recording raises an ERROR.
        unsafe {
            if must {
                pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
            } else if !pg_sys::LWLockConditionalAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE) {
                return;
            }
        }
        let needed = {
            let mut generator = shared.generator.lock();
            let covered = if must {
                generator.mark() >= unit
            } else {
                generator.extension_due().is_none()
            };
            if covered {
                Ok(None)
            } else {
                // Two clock readings under the spinlock, once per mark: the
                // reference is server-wide (README "Restarts, crashes and
                // the clock").
                generator
                    .check_clock(&mut BackendClock::new(), max_jump_nanos())
                    .map(|()| Some(generator.lease_for(unit)))
            }
        };
        let needed = match needed {
            Ok(needed) => needed,
            Err(e) => {
                // SAFETY: acquired above; released before raising so that
                // the error path holds nothing.
                unsafe { pg_sys::LWLockRelease(lock) };
                if must {
                    crate::errors::raise(e);
                }
                return;
            }
        };
        if let Some(mark) = needed {
            let recorded = record_mark(self.format, None, mark);
            shared.generator.lock().extend_to(recorded);
        }
        // SAFETY: acquired above.
        unsafe { pg_sys::LWLockRelease(lock) };
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
            // Above everything the server's previous runs used (README
            // "Guarantees"); a mark that cannot be read stops the server
            // rather than risk a duplicate.
            let floor = Marks::lock(self.format)
                .and_then(|marks| marks.global())
                .unwrap_or_else(|e| marks_failed(self.format, e));
            // The reference for clock steps is taken at the first mark
            // (README "Restarts, crashes and the clock"): a clock set right
            // after the server started, before any ID, is not refused.
            let generator = MarkedGenerator::above(SHARED_SLOT.0, SHARED_SLOT.1, floor).or_raise();
            // SAFETY: the caller reserved this memory for this generator.
            unsafe {
                SpinLocked::init(&raw mut (*state).generator, generator);
                pg_sys::LWLockInitialize(&raw mut (*state).extending, tranche_id());
            }
        }
        self.shared.store(state, Ordering::Release);
    }

    fn at_shutdown(&self) {
        // Every backend is gone and shared memory holds every unit used: a
        // mark left higher than needed is always safe, so errors are not
        // raised here.
        if let Some(shared) = self.shared() {
            let last = shared.generator.lock().generator().last_unit();
            if let Ok(marks) = Marks::lock(self.format) {
                let _ = marks.shrink_to(last);
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

    fn learn(&self, mark: u64) {
        if let Some(shared) = self.shared() {
            shared.generator.lock().learn(mark);
        }
        let learned = Marks::lock(self.format).and_then(|marks| marks.extend(mark));
        if let Err(e) = learned {
            marks_failed(self.format, e);
        }
    }

    fn forget_clock(&self) {
        match self.shared() {
            Some(shared) => shared.generator.lock().forget_clock(),
            // Per backend the server's reference is in the marks file.
            None => {
                let forgotten = Marks::lock(self.format)
                    .and_then(|marks| marks.set_clock_reference(ClockReference::NONE));
                if let Err(e) = forgotten {
                    marks_failed(self.format, e);
                }
            }
        }
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

/// The LWLock tranche of the generators' `extending` locks.
fn tranche_id() -> i32 {
    // SAFETY: allocates a tranche id in shared memory; called where the
    // state is initialised, once per server start.
    unsafe { pg_sys::LWLockNewTrancheId() }
}

// --- the registered generators -----------------------------------------------------

/// Every generator, as `_PG_init` registered them.
static GENERATORS: OnceLock<Vec<&'static dyn ServerGenerator>> = OnceLock::new();

fn generators() -> &'static [&'static dyn ServerGenerator] {
    GENERATORS.get().map_or(&[][..], Vec::as_slice)
}

/// A mark of `format` replayed from the WAL (a standby, or crash recovery;
/// `wal::register` is given this): its generator learns it. A format this
/// library does not know (a later version wrote it) has no generator here
/// to protect.
pub fn learn(format: &[u8], mark: u64) {
    if let Some(generator) = generators()
        .iter()
        .find(|g| g.format().as_bytes() == format)
    {
        generator.learn(mark);
    }
}

/// Registers the server's generators (from `_PG_init`) and gives them
/// server-wide state where the server has it (README "Shared mode").
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

/// A clock step confirmed (`pg_flake_set_mark` moved `format`'s mark to the
/// clock's time deliberately): its generator takes the clock as it is from
/// the next mark on (README "Restarts, crashes and the clock"). Whether
/// `format` has a generator.
// Called by pg_flake_set_mark (issue 22, built separately): drop the allow
// once it is merged.
#[allow(dead_code)]
pub fn forget_clock(format: &str) -> bool {
    generators()
        .iter()
        .find(|g| g.format() == format)
        .map(|g| g.forget_clock())
        .is_some()
}
