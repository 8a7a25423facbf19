//! The server-wide state of pg_flake's generators (docs/operations.md "Shared mode"):
//! one area of shared memory, in which each user (a generator, see
//! `crate::generation`) has its place. With pg_flake preloaded, the area is
//! reserved when the server starts (and set up again after a crash
//! restart); on PostgreSQL 17+ without preloading, the first backend that
//! needs it creates it as a named DSM segment (`GetNamedDSMSegment`), which
//! the others attach; on 15 and 16 as a DSM segment it pins and records in
//! a file (`pinned_segment`).
//!
//! This module knows no generator: it defines what it needs of its users,
//! [`SharedState`].
//!
//! The room of shared memory also holds how a backend finds it without
//! preloading (`dsm_claim` on 17+, `pinned_segment` on 15 and 16) and
//! the lock a generator's state is behind ([`spinlock`]).

#[cfg(named_dsm)]
pub mod dsm_claim;
#[cfg(not(named_dsm))]
pub mod pinned_segment;
pub mod spinlock;

use crate::plumbing::settings;
use pgrx::pg_sys;
use std::ffi::CStr;
use std::sync::OnceLock;

/// What keeps state in the area.
pub trait SharedState: Sync {
    /// Bytes of shared memory its state takes.
    fn size(&self) -> usize;
    /// Points it at its state at `at` (aligned for it), first initialising
    /// the state when `fresh`.
    ///
    /// # Safety
    /// `at` must be `size()` bytes of shared memory reserved for it,
    /// initialised by an earlier call unless `fresh`.
    unsafe fn attach(&self, at: *mut u8, fresh: bool);
    /// Called in the postmaster when it exits after a smart or fast
    /// shutdown: every backend is gone, having left the state whole, and
    /// the state holds everything they did.
    fn at_shutdown(&self);
}

/// The area's users, as `register` got them.
static USERS: OnceLock<Vec<&'static dyn SharedState>> = OnceLock::new();

fn users() -> &'static [&'static dyn SharedState] {
    USERS.get().map_or(&[][..], Vec::as_slice)
}

/// Registers the area's users (from `_PG_init`). Preloaded, it reserves the
/// area and attaches them when the server sets up shared memory.
pub fn register(users: impl Iterator<Item = &'static dyn SharedState>) {
    if USERS.set(users.collect()).is_err() {
        return;
    }
    if settings::preloaded() {
        // SAFETY: _PG_init runs in the postmaster before shared memory
        // exists; the previous hooks are kept and called.
        unsafe {
            PREVIOUS_REQUEST_HOOK = pg_sys::shmem_request_hook;
            pg_sys::shmem_request_hook = Some(on_shmem_request);
            PREVIOUS_STARTUP_HOOK = pg_sys::shmem_startup_hook;
            pg_sys::shmem_startup_hook = Some(on_shmem_startup);
        }
    }
}

/// The name of the one shared-memory area that holds every user's state.
const SHARED_AREA: &CStr = c"pg_flake generators";

/// Where each user's state starts in the area, and the area's size.
fn layout() -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(users().len());
    let mut end = 0usize;
    for user in users() {
        // MAXALIGN, and 16 for the u128s some states may hold.
        let start = end.next_multiple_of(16);
        offsets.push(start);
        end = start + user.size();
    }
    (offsets, end)
}

/// Attaches every user to the area at `area`.
///
/// # Safety
/// `area` must be the area of [`layout`]'s size, initialised unless `fresh`.
unsafe fn attach_all(area: *mut u8, fresh: bool) {
    let (offsets, _) = layout();
    for (user, offset) in users().iter().zip(offsets) {
        unsafe { user.attach(area.add(offset), fresh) };
    }
}

static mut PREVIOUS_STARTUP_HOOK: pg_sys::shmem_startup_hook_type = None;
static mut PREVIOUS_REQUEST_HOOK: pg_sys::shmem_request_hook_type = None;

unsafe fn request_space() {
    let (_, size) = layout();
    // SAFETY: called while the server collects shared-memory requests.
    unsafe { pg_sys::RequestAddinShmemSpace(size) };
}

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

/// `AddinShmemInitLock`'s place in `MainLWLockArray` (lwlocknames.h).
const ADDIN_SHMEM_INIT_LOCK: usize = 21;

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn on_shmem_startup() {
    // SAFETY: the hook chain PostgreSQL expects; ShmemInitStruct under
    // AddinShmemInitLock, as PostgreSQL requires of add-ins.
    unsafe {
        if let Some(previous) = PREVIOUS_STARTUP_HOOK {
            previous();
        }
        let (_, size) = layout();
        let lock = &raw mut (*pg_sys::MainLWLockArray.add(ADDIN_SHMEM_INIT_LOCK)).lock;
        pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let mut found = false;
        let area = pg_sys::ShmemInitStruct(SHARED_AREA.as_ptr(), size, &mut found).cast::<u8>();
        attach_all(area, !found);
        pg_sys::LWLockRelease(lock);
        // In the postmaster: when it exits, every backend is gone and
        // shared memory holds every unit used, so the exact last units can
        // be recorded and the next start need not begin a lease ahead of
        // the clock. Registered at every set-up of shared memory: a crash
        // restart runs and clears the postmaster's on_shmem_exit callbacks
        // (shmem_exit) before it sets shared memory up again.
        if !pg_sys::IsUnderPostmaster {
            pg_sys::on_shmem_exit(Some(release_at_shutdown), pg_sys::Datum::from(0usize));
        }
    }
}

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn release_at_shutdown(code: i32, _arg: pg_sys::Datum) {
    if code == 0 && shut_down_cleanly() {
        users().iter().for_each(|u| u.at_shutdown());
    }
}

/// Whether the server ends with a shutdown checkpoint (or restartpoint)
/// written, as `pg_control`'s state says: a smart or fast shutdown. The
/// postmaster exits with 0 after an immediate shutdown too, but its SIGQUIT
/// ends backends wherever they are, also holding a generator's spinlock
/// (taking it then would spin until PostgreSQL's "stuck spinlock" PANIC);
/// the next start runs crash recovery from marks that were recorded before
/// use, and needs nothing from here. Read as plain bytes: nothing here may
/// raise in an exit callback.
fn shut_down_cleanly() -> bool {
    use std::os::unix::fs::FileExt;
    const STATE: usize = std::mem::offset_of!(pg_sys::ControlFileData, state);
    let mut state = [0u8; 4];
    // The postmaster's working directory is the data directory.
    let read = std::fs::File::open("global/pg_control")
        .and_then(|file| file.read_exact_at(&mut state, STATE as u64));
    read.is_ok()
        && matches!(
            u32::from_ne_bytes(state),
            pg_sys::DBState::DB_SHUTDOWNED | pg_sys::DBState::DB_SHUTDOWNED_IN_RECOVERY
        )
}

/// PostgreSQL 17+ without preloading: the generators live in a named DSM
/// segment, made by the first backend that generates (docs/operations.md "Shared mode").
///
/// Its initialisation reads every format's marks file, which can fail (a
/// file that cannot be read or locked). `GetNamedDSMSegment` registers a
/// segment before its init callback runs, so an ERROR there would leave it
/// registered but not set up, and the next backend would use it as found.
/// So the callback only marks the segment not ready; the set-up happens
/// after, under `AddinShmemInitLock`, and the segment is marked ready only
/// once every generator is set up. A backend that finds it not ready (the
/// first, or one after a failed set-up) sets it up, and an ERROR leaves it
/// not ready for the next one to try again.
///
/// First, `dsm_claim::claim`: a backend whose library's layout is not the
/// one this server run's generators were set up in (a library installed
/// while the server runs, loaded by new backends only) refuses (55000)
/// rather than make a second server-wide generator of its own. The
/// segment's name carries the layout's version and size all the same.
#[cfg(named_dsm)]
pub fn attach_dynamic() {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    static ATTACHED: AtomicBool = AtomicBool::new(false);
    if settings::preloaded() || ATTACHED.load(Ordering::Relaxed) || users().is_empty() {
        return;
    }
    /// The segment's header: whether it is set up.
    #[repr(C)]
    struct Header {
        ready: AtomicU32,
    }
    /// The users' states start this far into the segment (aligned as
    /// `layout` aligns them).
    const HEADER: usize = 16;
    const READY: u32 = 1;
    unsafe extern "C-unwind" fn init(area: *mut std::ffi::c_void) {
        // SAFETY: a new segment, at least a header long; the memory may be
        // reused, so the header is written, not assumed zero. Nothing here
        // can raise.
        unsafe {
            area.cast::<Header>().write(Header {
                ready: AtomicU32::new(0),
            })
        };
    }
    let (_, size) = layout();
    crate::plumbing::shmem::dsm_claim::claim(DSM_LAYOUT_VERSION, HEADER + size);
    let name = std::ffi::CString::new(format!("pg_flake generators v{DSM_LAYOUT_VERSION} {size}"))
        .unwrap_or_default();
    let mut found = false;
    // SAFETY: a backend may attach to named DSM segments at any time; the
    // callback only writes the header of a new one.
    let area =
        unsafe { pg_sys::GetNamedDSMSegment(name.as_ptr(), HEADER + size, Some(init), &mut found) }
            .cast::<u8>();
    // SAFETY: the segment lives as long as the server; the header is
    // written by `init` before anyone attaches.
    let header = unsafe { &*area.cast::<Header>() };
    let states = unsafe { area.add(HEADER) };
    if header.ready.load(Ordering::Acquire) != READY {
        // SAFETY: the add-ins' lock for setting up shared state; an ERROR
        // below releases it with the transaction's abort, leaving the
        // segment not ready.
        unsafe {
            let lock = &raw mut (*pg_sys::MainLWLockArray.add(ADDIN_SHMEM_INIT_LOCK)).lock;
            pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
            let fresh = header.ready.load(Ordering::Acquire) != READY;
            attach_all(states, fresh);
            header.ready.store(READY, Ordering::Release);
            pg_sys::LWLockRelease(lock);
        }
    } else {
        // SAFETY: set up, as `ready` says.
        unsafe { attach_all(states, false) };
    }
    ATTACHED.store(true, Ordering::Relaxed);
}

/// The version of the DSM segment's layout (its header and how the users'
/// states follow it), in the segment's name and in the claim
/// (`dsm_claim`) on 17+, in the segment's header on 15 and 16
/// (`pinned_segment`). Raise it whenever the layout or a user's state
/// changes: a library with another layout then refuses instead of sharing
/// the segment. 3 was 0.3.0's (whose segment `dsm_claim` knows by name); 4
/// is the first with the claim.
const DSM_LAYOUT_VERSION: u32 = 4;

/// PostgreSQL 15 and 16 without preloading: the generators live in a DSM
/// segment that the first backend to generate makes and pins for the
/// server's run, and the others find (`pinned_segment`; docs/operations.md
/// "Shared mode"). Set up as on 17: a set-up that raises leaves it not
/// ready, for the next backend to set up again.
#[cfg(not(named_dsm))]
pub fn attach_dynamic() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static ATTACHED: AtomicBool = AtomicBool::new(false);
    if settings::preloaded() || ATTACHED.load(Ordering::Relaxed) || users().is_empty() {
        return;
    }
    let (_, size) = layout();
    crate::plumbing::shmem::pinned_segment::attach(
        DSM_LAYOUT_VERSION as u64,
        size,
        |states, fresh| {
            // SAFETY: `size` bytes of this run's segment, set up unless `fresh`.
            unsafe { attach_all(states, fresh) }
        },
    );
    ATTACHED.store(true, Ordering::Relaxed);
}
