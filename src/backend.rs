//! What a generator needs from the backend it runs in: its slot (`sql-api.md`
//! §4) or the server-wide state of shared mode (§5), a clock whose waits can
//! be cancelled, the backend's CSPRNG, and time
//! conversions between PostgreSQL's `timestamptz` and the core's Unix
//! microseconds.

use crate::errors::{raise, OrRaise};
use crate::settings;
use flake_core::clock::{retry, system_now_nanos, Clock, ReadAhead, SystemClock, PAUSE};
use flake_core::generator::{SharedGenerator, SlotGenerator, SHARED_SLOT};
use flake_core::random::OsRandom;
use flake_core::Error;
use pgrx::prelude::*;
use pgrx::{PGRXSharedMemory, PgAtomic, PgSharedMemoryInitialization};
use std::cell::{RefCell, UnsafeCell};
use std::ffi::CStr;
use std::thread::LocalKey;
use std::time::Duration;

/// Unix epoch in PostgreSQL's timestamp representation (µs since 2000-01-01).
const UNIX_EPOCH_IN_PG_MICROS: i64 = -946_684_800_000_000;

/// This backend's slot and the number of slots: unique among running backends.
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

/// A coordination-based generator of one format (`sql-api.md` §4–§5): one per
/// backend in `local`, or, when pg_flake is preloaded (shared mode), one for
/// the whole server in shared memory, behind a spinlock (`PgAtomic` only
/// places the [`SpinLocked`] value in shared memory). Declare it with
/// [`generator!`](crate::generator) and register it in `_PG_init`.
///
/// The spinlock is held for one step of the sequencer, tens of instructions;
/// an LWLock was measured as well and was no faster (`docs/BENCHMARKS.md`).
pub struct Generator<G: 'static> {
    local: &'static LocalKey<RefCell<Option<G>>>,
    shared: PgAtomic<SpinLocked<Shared<G>>>,
}

/// A server-wide generator as it lives in shared memory.
#[derive(Clone, Copy)]
pub struct Shared<G>(SharedGenerator<G>);

// SAFETY: `SlotGenerator`s are plain data (`Copy`, no pointers; see
// `flake_core::generator`), valid at the same address in every process.
unsafe impl<G: SlotGenerator> PGRXSharedMemory for Shared<G> {}

impl<G: SlotGenerator> Shared<G> {
    /// The value at shared-memory startup: slot 0 of 1, started at the current
    /// unit, which is therefore never used.
    pub fn starting_now() -> Self {
        Shared(SharedGenerator::starting_now(&mut SystemClock))
    }
}

/// Declares a format's [`Generator`]: `generator!(NAME: Type, c"shmem name")`.
#[macro_export]
macro_rules! generator {
    ($vis:vis $name:ident: $generator:ty, $shmem_name:literal) => {
        $vis static $name: $crate::backend::Generator<$generator> = {
            ::std::thread_local! {
                static LOCAL: ::std::cell::RefCell<Option<$generator>> =
                    const { ::std::cell::RefCell::new(None) };
            }
            const NAME: &::std::ffi::CStr = $shmem_name;
            // SAFETY: every generator has its own shared-memory name.
            unsafe { $crate::backend::Generator::new(NAME, &LOCAL) }
        };
    };
}

impl<G: SlotGenerator> Generator<G> {
    /// # Safety
    /// `name` must be unique among the server's named shared-memory areas.
    pub const unsafe fn new(
        name: &'static CStr,
        local: &'static LocalKey<RefCell<Option<G>>>,
    ) -> Self {
        Generator {
            local,
            // SAFETY: the caller guarantees that the name is unique.
            shared: unsafe { PgAtomic::new(name) },
        }
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
        if settings::preloaded() {
            let shared = self.shared.get();
            return retry(&mut clock, |clock| {
                let mut clock = ReadAhead::new(clock);
                let mut state = shared.lock();
                state.0.try_generate(&mut clock, &mut step)
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

    /// The generator for `pg_flake_generator_state()`, with its mode, slot
    /// and number of slots: in shared mode a copy of the server's (taken
    /// under the lock), else this backend's, if it has been made.
    pub fn snapshot(&'static self) -> Option<(Mode, (u32, u32), G)> {
        if settings::preloaded() {
            let state = *self.shared.get().lock();
            state.0.generator().map(|g| (Mode::Shared, SHARED_SLOT, *g))
        } else {
            self.local
                .with_borrow(|g| g.map(|g| (Mode::Backend, slot(), g)))
        }
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

impl<G: SlotGenerator> PgSharedMemoryInitialization for Generator<G> {
    type Value = Shared<G>;

    unsafe fn on_shmem_request(&'static self) {
        // SAFETY: called from the shared-memory request hook, as required.
        unsafe { self.shared.on_shmem_request() }
    }

    unsafe fn on_shmem_startup(&'static self, value: Shared<G>) {
        // SAFETY: called from the shared-memory startup hook, as required.
        unsafe { self.shared.on_shmem_startup(SpinLocked::new(value)) }
    }
}

/// A value in shared memory behind one of PostgreSQL's spinlocks, like
/// pgrx's `PgSpinLock`, but taken and released through pgrx's C shims
/// directly rather than its guarded bindings: neither can raise an ERROR (a
/// stuck spinlock is a PANIC, which ends the process), so the guard's
/// `sigsetjmp` and thread check around each call (about a tenth of the cost
/// of a shared-mode ID) protect against nothing here.
pub struct SpinLocked<T> {
    lock: UnsafeCell<pg_sys::slock_t>,
    data: UnsafeCell<T>,
}

extern "C" {
    // pgrx's C shims (pgrx-cshim.c) over PostgreSQL's SpinLock macros, the
    // same symbols its guarded `pg_sys::SpinLock*` call.
    #[link_name = "SpinLockInit__pgrx_cshim"]
    fn spin_lock_init(lock: *mut pg_sys::slock_t);
    #[link_name = "SpinLockAcquire__pgrx_cshim"]
    fn spin_lock_acquire(lock: *mut pg_sys::slock_t);
    #[link_name = "SpinLockRelease__pgrx_cshim"]
    fn spin_lock_release(lock: *mut pg_sys::slock_t);
}

// SAFETY: the data is reached only under the lock; `T` is shared-memory safe.
unsafe impl<T: PGRXSharedMemory> PGRXSharedMemory for SpinLocked<T> {}
// SAFETY: as above.
unsafe impl<T: PGRXSharedMemory> Sync for SpinLocked<T> {}

impl<T> SpinLocked<T> {
    fn new(value: T) -> Self {
        let locked = SpinLocked {
            lock: UnsafeCell::new(Default::default()),
            data: UnsafeCell::new(value),
        };
        // SAFETY: initialises the lock it owns.
        unsafe { spin_lock_init(locked.lock.get()) };
        locked
    }

    #[inline]
    fn lock(&self) -> SpinLockGuard<'_, T> {
        // SAFETY: the lock was initialised in `new`; it cannot raise.
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

/// The real-time clock; a pause sleeps and then honours cancel requests and
/// `statement_timeout`.
#[derive(Debug, Clone, Copy)]
pub struct BackendClock {
    pause: Duration,
}

/// DistributedId's and DistributedId128's wait: the reference sleeps 1 ms.
pub const ONE_MILLISECOND: Duration = Duration::from_millis(1);

impl BackendClock {
    /// Pauses of `clock::PAUSE` (20 µs): the coordination-based formats wait
    /// for the end of a short time unit.
    pub const fn new() -> Self {
        BackendClock::pausing(PAUSE)
    }

    /// Pauses of `pause`, for generators whose reference sleeps a fixed time.
    pub const fn pausing(pause: Duration) -> Self {
        BackendClock { pause }
    }
}

impl Default for BackendClock {
    fn default() -> Self {
        BackendClock::new()
    }
}

impl Clock for BackendClock {
    fn now_nanos(&mut self) -> i64 {
        system_now_nanos()
    }
    fn pause(&mut self) {
        std::thread::sleep(self.pause);
        pgrx::check_for_interrupts!();
    }
}

thread_local! {
    /// The backend's CSPRNG, shared by the random formats: seeded from the
    /// operating system on first use in this backend (and reseeded if the
    /// process id changes), so no two backends share a stream.
    static RANDOM: RefCell<Option<OsRandom>> = const { RefCell::new(None) };
}

/// This backend's process id as PostgreSQL keeps it (set in every new
/// backend), read without a system call.
fn backend_pid() -> u32 {
    // SAFETY: a plain global of the backend, set before any SQL runs.
    unsafe { pg_sys::MyProcPid as u32 }
}

/// Runs `f` with this backend's CSPRNG.
pub fn with_random<T>(f: impl FnOnce(&mut OsRandom) -> T) -> T {
    RANDOM.with_borrow_mut(|random| {
        f(random.get_or_insert_with(|| OsRandom::with_process_id(backend_pid)))
    })
}

/// Runs `step` on the random-based generator kept in `cell` (DistributedId,
/// DistributedId128), with the backend's CSPRNG and a clock whose pauses
/// sleep 1 ms, as the reference does.
pub fn with_random_generator<G, T>(
    cell: &'static LocalKey<RefCell<G>>,
    step: impl FnOnce(&mut G, &mut BackendClock, &mut OsRandom) -> flake_core::Result<T>,
) -> T {
    let mut clock = BackendClock::pausing(ONE_MILLISECOND);
    cell.with_borrow_mut(|generator| with_random(|random| step(generator, &mut clock, random)))
        .or_raise()
}

/// Microseconds since the Unix epoch of a finite timestamp; infinite ones are
/// outside every format's range.
pub fn unix_micros(ts: TimestampWithTimeZone, type_name: &'static str, range: &'static str) -> i64 {
    if !ts.is_finite() {
        raise(Error::TimeOutOfRange { type_name, range });
    }
    i64::from(ts) - UNIX_EPOCH_IN_PG_MICROS
}

/// The timestamp of a Unix-microsecond instant. Every format's range lies
/// inside PostgreSQL's, so this only fails on a bug.
pub fn timestamp(unix_micros: i64) -> TimestampWithTimeZone {
    TimestampWithTimeZone::try_from(unix_micros + UNIX_EPOCH_IN_PG_MICROS).unwrap_or_else(|_| {
        pgrx::error!("pg_flake: timestamp {unix_micros} out of PostgreSQL's range")
    })
}
