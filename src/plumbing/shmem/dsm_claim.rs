//! PostgreSQL 17+ without preloading: one library's shared state per server
//! run (docs/operations.md "Shared mode" and "Versions").
//!
//! Without preloading, each backend loads pg_flake's library when it first
//! uses it. After a new library is installed while the server runs, new
//! backends load it while older ones keep the one they loaded: two
//! libraries in one server. Each keeps its generators in the named DSM
//! segment its own code names; two server-wide generators would count the
//! same units up from the same marks and issue the same IDs. So before a
//! backend attaches the generators' segment ([`claim`]), it makes sure that
//! no other library's generators exist or can come to exist in this run:
//!
//! - **The claim:** a segment whose name and size never change, which the
//!   first backend of any version from 0.4.0 on creates, writing its layout
//!   in it. The registry runs the creator's init callback under the entry's
//!   lock, so exactly one layout claims a server run; a backend whose layout
//!   differs refuses, whichever library came first.
//! - **The releases before the claim** (0.2.0, 0.3.0) do not look for it, but
//!   their segments' names are known. Each is asked for with a size no
//!   release used: if that release's segment exists (one of its backends
//!   generated, or began to, in this run), the registry raises its size
//!   mismatch, which becomes the refusal here; if not, the registry creates
//!   the name with this size, and a backend of that release that comes later
//!   gets the mismatch itself (an ERROR, XX000) and cannot generate.
//!
//! Either way only one library generates until the server restarts.

use crate::plumbing::backend::errors::library_replaced;
use pgrx::pg_sys;
use pgrx::pg_sys::panic::CaughtError;
use pgrx::PgSqlErrorCode;
use std::ffi::CStr;
use std::sync::atomic::{AtomicU64, Ordering};

/// The claim's name and size. **Never change either**: the registry raises
/// an ERROR of its own (XX000) for a name asked with another size, so a
/// later library must find the claim where this one put it to read it.
const CLAIM_NAME: &CStr = c"pg_flake";
const CLAIM_SIZE: usize = 64;

/// What the claim holds: the layout of the library that made it.
#[repr(C)]
struct Claim {
    /// [`MAGIC`], once the claim is written.
    magic: u64,
    /// Its `DSM_LAYOUT_VERSION` (`shmem/mod.rs`).
    layout: u64,
    /// The size of its generators' segment.
    size: u64,
}

const MAGIC: u64 = u64::from_le_bytes(*b"pgflake1");

/// The generators' segments of the releases before the claim, by name (see
/// the module's comment): 0.2.0's (`pg_flake generators`) and 0.3.0's
/// (`pg_flake generators v3 <its states' size>`). 0.3.0's size is that of
/// its build for x86_64, measured on PostgreSQL 18 (17's ConditionVariable
/// and slock_t, the only PostgreSQL types in it, are the same);
/// `tests/servers/releases/test_in_place.py` runs the real 0.3.0 and fails
/// if this name is not the one it uses.
const LEGACY: [(&CStr, &str); 2] = [
    (c"pg_flake generators", "0.2.0"),
    (c"pg_flake generators v3 1936", "0.3.0"),
];

/// The size the releases' names are asked for: no release's generators fit
/// in 1 byte, so it is never the size their segment has.
const LEGACY_PROBE_SIZE: usize = 1;

/// This library's layout, for [`write_claim`] (an init callback takes only
/// the segment's address).
static OURS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

unsafe extern "C-unwind" fn write_claim(area: *mut std::ffi::c_void) {
    // SAFETY: a new segment of CLAIM_SIZE bytes, MAXALIGNed; the registry
    // holds the entry's lock, so no one reads it before this returns.
    // Nothing here can raise.
    unsafe {
        area.cast::<Claim>().write(Claim {
            magic: MAGIC,
            layout: OURS[0].load(Ordering::Relaxed),
            size: OURS[1].load(Ordering::Relaxed),
        })
    };
}

/// Makes sure this library's generators (layout `layout`, segment of `size`
/// bytes) are the only ones of this server run, or refuses (55000).
pub fn claim(layout: u32, size: usize) {
    OURS[0].store(u64::from(layout), Ordering::Relaxed);
    OURS[1].store(size as u64, Ordering::Relaxed);
    let mut found = false;
    // SAFETY: a backend may use the registry at any time; the callback only
    // writes the claim of a new segment.
    let claim = unsafe {
        pg_sys::GetNamedDSMSegment(
            CLAIM_NAME.as_ptr(),
            CLAIM_SIZE,
            Some(write_claim),
            &mut found,
        )
    }
    .cast::<Claim>();
    // SAFETY: written by its creator's init callback before the registry
    // let anyone else reach it, and never written again.
    let claim = unsafe { &*claim };
    if claim.magic != MAGIC || claim.layout != u64::from(layout) || claim.size != size as u64 {
        library_replaced(format!(
            "This backend's pg_flake library keeps its generators in layout {layout} ({size} bytes); \
             this server's were set up by a backend of another pg_flake library, in layout {} \
             ({} bytes).",
            claim.layout, claim.size
        ));
    }
    for (name, release) in LEGACY {
        probe_legacy(name, release);
    }
}

/// Asks the registry for `release`'s segment `name` with a size it never
/// had (see the module's comment): returns if it did not exist (it exists
/// now, with that size) or was made by such a probe, refuses if `release`
/// made it.
fn probe_legacy(name: &'static CStr, release: &'static str) {
    // The registry raises the size mismatch with its entry's lock held; the
    // handler only raises again, and the transaction's abort releases it.
    pgrx::PgTryBuilder::new(|| {
        let mut found = false;
        // SAFETY: as in `claim`; no callback, nothing reads the segment.
        unsafe {
            pg_sys::GetNamedDSMSegment(name.as_ptr(), LEGACY_PROBE_SIZE, None, &mut found);
        }
    })
    .catch_when(PgSqlErrorCode::ERRCODE_INTERNAL_ERROR, |cause| {
        let registry = match &cause {
            CaughtError::PostgresError(report) => report.message().to_string(),
            _ => cause.rethrow(),
        };
        library_replaced(format!(
            "A backend that loaded pg_flake {release}'s library keeps that library's generators \
             in shared memory (the registry, asked for its segment \"{}\": {registry}).",
            name.to_string_lossy()
        ))
    })
    .execute();
}
