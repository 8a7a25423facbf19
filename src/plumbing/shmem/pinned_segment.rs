//! PostgreSQL 15 and 16 without preloading: the server-wide state in a DSM
//! segment that the first backend to need it creates and pins for the rest
//! of the server's run, and that every other backend finds through a small
//! file, `pg_flake/pgsql_tmp_segment` (docs/operations.md "Shared mode").
//! PostgreSQL 17 has this built in (`GetNamedDSMSegment`); 15 and 16 have
//! no registry of named segments, and without preloading no shared memory
//! of pg_flake's own to keep a handle in.
//!
//! The file holds the segment's handle and a random number, the segment's
//! header the same number: a handle read from the file is used only if the
//! segment it opens carries that number. So a stale file — left by a server
//! run that ended, by a crash restart (which destroys every DSM segment,
//! pinned or not, while the postmaster lives on), or copied by a base
//! backup (`pgsql_tmp` files are not: PostgreSQL skips them) — never leads
//! to a segment that is not this run's generators, even where its handle
//! now names another segment. Backends take turns under
//! `AddinShmemInitLock`, so one segment is made per run.
//!
//! A segment that is found but has another layout (a library of another
//! version, installed while the server runs) is refused (55000) rather
//! than shared, and no second one is made: one library's generators per
//! server run, as on 17 (`dsm_claim.rs`).

use crate::plumbing::backend::errors::{library_replaced, raise};
use flake_core::{Error, ErrorKind};
use pgrx::pg_sys;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::{AtomicU32, Ordering};

/// Where the segment's handle is kept, under the data directory.
const RECORD: &str = "pg_flake/pgsql_tmp_segment";
/// Written first, and renamed over [`RECORD`]: a reader never sees half.
const RECORD_NEXT: &str = "pg_flake/pgsql_tmp_segment.next";

/// The segment's header; the users' states follow at [`HEADER`].
#[repr(C)]
struct Header {
    magic: u64,
    /// The random number the record names it by.
    nonce: u64,
    layout: u64,
    size: u64,
    /// Whether the users' states are set up (see [`attach`]).
    ready: AtomicU32,
}

/// The users' states start this far into the segment (16-aligned).
pub const HEADER: usize = 64;
const MAGIC: u64 = u64::from_le_bytes(*b"pgflseg1");
const READY: u32 = 1;
const _: () = assert!(std::mem::size_of::<Header>() <= HEADER);

/// What [`RECORD`] holds.
struct Record {
    handle: pg_sys::dsm_handle,
    nonce: u64,
}

/// `AddinShmemInitLock`'s place in `MainLWLockArray` (lwlocknames.h).
const ADDIN_SHMEM_INIT_LOCK: usize = 21;

/// The area of `size` bytes (after the header) of this run, made if there
/// is none yet: `set_up(area, fresh)` attaches the users to it, first
/// setting their states up when `fresh`. A set-up that raises leaves the
/// segment not ready, and the next backend sets it up again, as on 17.
pub fn attach(layout: u64, size: usize, set_up: impl FnOnce(*mut u8, bool)) {
    let total = HEADER + size;
    // SAFETY: the add-ins' lock for setting up shared state; an ERROR below
    // releases it with the transaction's abort.
    let lock = unsafe { &raw mut (*pg_sys::MainLWLockArray.add(ADDIN_SHMEM_INIT_LOCK)).lock };
    unsafe { pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE) };
    let segment = match find() {
        Some(segment) => segment,
        None => create(layout, total),
    };
    // SAFETY: a segment of ours: its header is written, `total` bytes long
    // (checked in `find`).
    let (header, area) = unsafe {
        let base = pg_sys::dsm_segment_address(segment).cast::<u8>();
        (&*base.cast::<Header>(), base.add(HEADER))
    };
    if header.layout != layout || header.size != total as u64 {
        unsafe { pg_sys::LWLockRelease(lock) };
        refuse_other_layout();
    }
    let fresh = header.ready.load(Ordering::Acquire) != READY;
    set_up(area, fresh);
    header.ready.store(READY, Ordering::Release);
    unsafe { pg_sys::LWLockRelease(lock) };
}

/// This run's segment, if [`RECORD`] names one: attached, its mapping kept
/// for the backend's life.
fn find() -> Option<*mut pg_sys::dsm_segment> {
    let record = read_record()?;
    // SAFETY: attaching any segment is harmless; one that is not ours (a
    // handle reused since) is detached again at once.
    unsafe {
        let segment = pg_sys::dsm_attach(record.handle);
        if segment.is_null() {
            return None;
        }
        let ours = pg_sys::dsm_segment_map_length(segment) >= HEADER && {
            let header = &*pg_sys::dsm_segment_address(segment).cast::<Header>();
            header.magic == MAGIC && header.nonce == record.nonce
        };
        if !ours {
            pg_sys::dsm_detach(segment);
            return None;
        }
        pg_sys::dsm_pin_mapping(segment);
        Some(segment)
    }
}

/// A new segment for this run, pinned until the server stops, and
/// recorded in [`RECORD`].
fn create(layout: u64, total: usize) -> *mut pg_sys::dsm_segment {
    let nonce = random_nonce();
    // SAFETY: a new segment of `total` bytes, whose header is written
    // before anyone can find it (the record comes after).
    unsafe {
        let segment = pg_sys::dsm_create(total, 0);
        pg_sys::dsm_segment_address(segment)
            .cast::<Header>()
            .write(Header {
                magic: MAGIC,
                nonce,
                layout,
                size: total as u64,
                ready: AtomicU32::new(0),
            });
        if let Err(e) = write_record(pg_sys::dsm_segment_handle(segment), nonce) {
            // Unrecorded, it is destroyed with the transaction's resources.
            record_failed(e);
        }
        pg_sys::dsm_pin_segment(segment);
        pg_sys::dsm_pin_mapping(segment);
        segment
    }
}

fn random_nonce() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: fills the buffer it is given.
    let filled = unsafe { pg_sys::pg_strong_random(bytes.as_mut_ptr().cast(), bytes.len()) };
    if !filled {
        raise(Error::refused(
            ErrorKind::Internal,
            "pg_flake: could not draw a random number for the generators' shared memory",
            "The operating system's random source failed; try again.",
        ));
    }
    u64::from_le_bytes(bytes)
}

fn read_record() -> Option<Record> {
    let bytes = std::fs::read(RECORD).ok()?;
    let field = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
    };
    (field(0)? == MAGIC).then_some(())?;
    Some(Record {
        handle: field(8)? as pg_sys::dsm_handle,
        nonce: field(16)?,
    })
}

fn write_record(handle: pg_sys::dsm_handle, nonce: u64) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(24);
    bytes.extend_from_slice(&MAGIC.to_le_bytes());
    bytes.extend_from_slice(&(handle as u64).to_le_bytes());
    bytes.extend_from_slice(&nonce.to_le_bytes());
    match std::fs::create_dir("pg_flake") {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(RECORD_NEXT)?
        .write_all(&bytes)?;
    std::fs::rename(RECORD_NEXT, RECORD)
}

#[cold]
fn record_failed(error: std::io::Error) -> ! {
    raise(Error::refused(
        ErrorKind::IoError,
        format!("pg_flake: could not write {RECORD}: {error}"),
        format!(
            "The server's operating-system user must be able to write {RECORD} under the data directory."
        ),
    ))
}

fn refuse_other_layout() -> ! {
    library_replaced(format!(
        "A backend that loaded another pg_flake library keeps its generators in the shared memory {RECORD} names, in another layout."
    ))
}
