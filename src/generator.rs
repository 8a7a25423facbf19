//! The coordination-based generators as a server runs them (README
//! "Guarantees", "Shared mode"): per backend, each backend owns one generator
//! per format for its slot; in shared mode (pg_flake preloaded) one generator
//! per format lives in shared memory for the whole server, behind a
//! spinlock.
//!
//! A format declares its generator with [`generator!`](crate::generator!);
//! the registry (`src/registry.rs`) lists them, and `_PG_init` hands that list
//! to [`request_shared_memory`]. Nothing here knows the formats.

use crate::clock::BackendClock;
use crate::errors::OrRaise;
use crate::ffi::{spin_lock_acquire, spin_lock_init, spin_lock_release};
use flake_core::clock::{retry, ReadAhead, SystemClock};
use flake_core::generator::{SequencerRow, SharedGenerator, SlotGenerator, SHARED_SLOT};
use pgrx::pg_sys;
use std::cell::{RefCell, UnsafeCell};
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

/// One row of `pg_flake_generator_state()`: one sequencer of a generator.
pub struct StateRow {
    pub format: &'static str,
    pub mode: Mode,
    pub slot: u32,
    pub nslots: u32,
    pub sequencer: SequencerRow,
}

/// What the registry needs of every format's generator, whatever its type.
pub trait ServerGenerator: Sync {
    /// The format's name, as `pg_flake_generator_state()` shows it.
    #[allow(dead_code)]
    fn format(&self) -> &'static str;
    /// Bytes of shared memory its server-wide state takes.
    fn shared_size(&self) -> usize;
    /// Points the generator at its server-wide state at `at` (aligned for
    /// it), first initialising the state when `fresh`.
    ///
    /// # Safety
    /// `at` must be `shared_size()` bytes of shared memory reserved for this
    /// generator, initialised by an earlier call unless `fresh`.
    unsafe fn attach(&self, at: *mut u8, fresh: bool);
    /// Its rows of `pg_flake_generator_state()`: none until it has been used.
    fn state_rows(&self) -> Vec<StateRow>;
}

/// A coordination-based generator of one format: one per backend in
/// `local`, or, once attached to shared memory (shared mode), one for the
/// whole server behind a spinlock. Declare it with
/// [`generator!`](crate::generator!).
///
/// The spinlock is held for one step of the sequencer, tens of instructions;
/// an LWLock was measured as well and was no faster (`docs/BENCHMARKS.md`).
pub struct Generator<G: 'static> {
    format: &'static str,
    local: &'static LocalKey<RefCell<Option<G>>>,
    shared: AtomicPtr<SpinLocked<SharedGenerator<G>>>,
}

/// Declares a format's [`Generator`]: `generator!(pub NAME: Type, "format")`.
#[macro_export]
macro_rules! generator {
    ($vis:vis $name:ident: $generator:ty, $format:literal) => {
        $vis static $name: $crate::generator::Generator<$generator> = {
            ::std::thread_local! {
                static LOCAL: ::std::cell::RefCell<Option<$generator>> =
                    const { ::std::cell::RefCell::new(None) };
            }
            $crate::generator::Generator::new($format, &LOCAL)
        };
    };
}

impl<G: SlotGenerator> Generator<G> {
    pub const fn new(format: &'static str, local: &'static LocalKey<RefCell<Option<G>>>) -> Self {
        Generator {
            format,
            local,
            shared: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The server-wide state, once attached (shared mode).
    fn shared(&self) -> Option<&SpinLocked<SharedGenerator<G>>> {
        // SAFETY: set by `attach` to shared memory that lives as long as the
        // process; the state behind it is reached only under its lock.
        unsafe { self.shared.load(Ordering::Acquire).as_ref() }
    }

    /// Runs `step` (one attempt of the generator's non-blocking
    /// `try_generate`) until it gives a value, pausing between attempts with
    /// interrupts checked. Each attempt reads the clock first (`ReadAhead`).
    ///
    /// Per backend, the generator is created on first use for the backend's
    /// slot. In shared mode each attempt reads the clock, then holds the
    /// spinlock for one step of the server's generator: arithmetic only (a
    /// second clock reading if the first one turns out stale), nothing that
    /// can wait, raise, panic or allocate on the success path. The pause (and
    /// `CHECK_FOR_INTERRUPTS`) comes after the lock is released, and errors
    /// are raised only then.
    pub fn generate<T>(
        &'static self,
        mut step: impl FnMut(&mut G, &mut ReadAhead<BackendClock>) -> flake_core::Result<Option<T>>,
    ) -> T {
        let mut clock = BackendClock::new();
        if let Some(shared) = self.shared() {
            return retry(&mut clock, |clock| {
                let mut clock = ReadAhead::new(clock);
                let mut state = shared.lock();
                state.try_generate(&mut clock, &mut step)
            })
            .or_raise();
        }
        self.local.with_borrow_mut(|generator| {
            let generator = generator.get_or_insert_with(|| {
                let (slot, nslots) = slot();
                G::for_slot(slot, nslots, &mut clock).or_raise()
            });
            retry(&mut clock, |clock| {
                step(generator, &mut ReadAhead::new(clock))
            })
            .or_raise()
        })
    }

    /// The generator with its mode, slot and number of slots: in shared mode
    /// a copy of the server's (taken under the lock), else this backend's,
    /// if it has been made.
    fn snapshot(&self) -> Option<(Mode, (u32, u32), G)> {
        match self.shared() {
            Some(shared) => {
                let state = *shared.lock();
                state.generator().map(|g| (Mode::Shared, SHARED_SLOT, *g))
            }
            None => self
                .local
                .with_borrow(|g| g.map(|g| (Mode::Backend, slot(), g))),
        }
    }
}

impl<G: SlotGenerator> ServerGenerator for Generator<G> {
    fn format(&self) -> &'static str {
        self.format
    }

    fn shared_size(&self) -> usize {
        std::mem::size_of::<SpinLocked<SharedGenerator<G>>>()
    }

    unsafe fn attach(&self, at: *mut u8, fresh: bool) {
        let state = at.cast::<SpinLocked<SharedGenerator<G>>>();
        if fresh {
            // SAFETY: the caller reserved this memory for this generator.
            // Started now, so the current unit is never used (README
            // "Shared mode").
            unsafe { SpinLocked::init(state, SharedGenerator::starting_now(&mut SystemClock)) };
        }
        self.shared.store(state, Ordering::Release);
    }

    fn state_rows(&self) -> Vec<StateRow> {
        let Some((mode, (slot, nslots), generator)) = self.snapshot() else {
            return Vec::new();
        };
        generator
            .sequencers()
            .into_iter()
            // A shared generator exists from server start: show it once used.
            .filter(|s| mode == Mode::Backend || s.state.issued > 0)
            .map(|sequencer| StateRow {
                format: self.format,
                mode,
                slot,
                nslots,
                sequencer,
            })
            .collect()
    }
}

/// A value in shared memory behind one of PostgreSQL's spinlocks, like
/// pgrx's `PgSpinLock`, but taken and released through the unguarded C shims
/// of [`crate::ffi`].
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
    unsafe fn init(at: *mut Self, value: T) {
        unsafe {
            at.write(SpinLocked {
                lock: UnsafeCell::new(Default::default()),
                data: UnsafeCell::new(value),
            });
            spin_lock_init((*at).lock.get());
        }
    }

    #[inline]
    fn lock(&self) -> SpinLockGuard<'_, T> {
        // SAFETY: the lock was initialised in `init`; it cannot raise.
        unsafe { spin_lock_acquire(self.lock.get()) };
        SpinLockGuard { locked: self }
    }
}

struct SpinLockGuard<'a, T> {
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

// --- shared memory -------------------------------------------------------------------

/// The server-wide generators, as `_PG_init` registered them.
static SHARED_GENERATORS: OnceLock<Vec<&'static dyn ServerGenerator>> = OnceLock::new();

/// The name of the one shared-memory area that holds every generator.
const SHARED_AREA: &std::ffi::CStr = c"pg_flake generators";

/// Where each generator's state starts in the area, and the area's size.
fn layout(generators: &[&dyn ServerGenerator]) -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(generators.len());
    let mut end = 0usize;
    for generator in generators {
        // MAXALIGN, and 16 for the u128s some states hold.
        let start = end.next_multiple_of(16);
        offsets.push(start);
        end = start + generator.shared_size();
    }
    (offsets, end)
}

/// Shared mode: reserves shared memory for `generators` and attaches them
/// when the server sets it up (after a crash restart too). Called from
/// `_PG_init` while the server loads `shared_preload_libraries`.
pub fn request_shared_memory(generators: impl Iterator<Item = &'static dyn ServerGenerator>) {
    if SHARED_GENERATORS.set(generators.collect()).is_err() {
        return;
    }
    // SAFETY: _PG_init runs in the postmaster before shared memory exists;
    // the previous hooks are kept and called.
    unsafe {
        #[cfg(any(feature = "pg13", feature = "pg14"))]
        request_space();
        #[cfg(not(any(feature = "pg13", feature = "pg14")))]
        {
            PREVIOUS_REQUEST_HOOK = pg_sys::shmem_request_hook;
            pg_sys::shmem_request_hook = Some(on_shmem_request);
        }
        PREVIOUS_STARTUP_HOOK = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(on_shmem_startup);
    }
}

static mut PREVIOUS_STARTUP_HOOK: pg_sys::shmem_startup_hook_type = None;
#[cfg(not(any(feature = "pg13", feature = "pg14")))]
static mut PREVIOUS_REQUEST_HOOK: pg_sys::shmem_request_hook_type = None;

unsafe fn request_space() {
    let (_, size) = layout(SHARED_GENERATORS.get().map_or(&[][..], Vec::as_slice));
    // SAFETY: called while the server collects shared-memory requests.
    unsafe { pg_sys::RequestAddinShmemSpace(size) };
}

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn on_shmem_request() {
    // SAFETY: the hook chain PostgreSQL expects.
    unsafe {
        if let Some(previous) = PREVIOUS_REQUEST_HOOK {
            previous();
        }
        request_space();
    }
}

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn on_shmem_startup() {
    // SAFETY: the hook chain PostgreSQL expects; ShmemInitStruct under
    // AddinShmemInitLock, as PostgreSQL requires of add-ins.
    unsafe {
        if let Some(previous) = PREVIOUS_STARTUP_HOOK {
            previous();
        }
        let generators = SHARED_GENERATORS.get().map_or(&[][..], Vec::as_slice);
        let (offsets, size) = layout(generators);
        let lock = &raw mut (*pg_sys::MainLWLockArray.add(ADDIN_SHMEM_INIT_LOCK)).lock;
        pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let mut found = false;
        let area = pg_sys::ShmemInitStruct(SHARED_AREA.as_ptr(), size, &mut found).cast::<u8>();
        for (generator, offset) in generators.iter().zip(offsets) {
            generator.attach(area.add(offset), !found);
        }
        pg_sys::LWLockRelease(lock);
    }
}

/// `AddinShmemInitLock`'s place in `MainLWLockArray` (lwlocknames.h).
const ADDIN_SHMEM_INIT_LOCK: usize = 21;
