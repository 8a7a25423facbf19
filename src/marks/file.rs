//! The marks files on disk (docs/guarantees.md "Restarts, crashes and the
//! clock"): where each is, how it is opened, locked and written atomically,
//! and the `fsync` whose failure is a PANIC, as for PostgreSQL's own files.

use super::{DIRECTORY, SLOT_SIZE};
use flake_core::marks_file::{Header, SLOTS_OFFSET};
use pgrx::pg_sys;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;

/// Whether the locked `file` is still the marks file of `format`: a
/// deliberate `pg_flake_set_mark` puts a new file in its place while
/// holding the old one's lock, and whoever waited for that lock must not
/// record a mark in the file that is gone.
pub(super) fn still_current(file: &File, format: &str) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let open = file.metadata()?;
    match std::fs::metadata(path_of(format)) {
        Ok(current) => Ok(current.ino() == open.ino() && current.dev() == open.dev()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Where `slot`'s holder and unit are: the unit, then the pid.
pub(super) fn slot_at(slot: u32) -> u64 {
    SLOTS_OFFSET + slot as u64 * SLOT_SIZE
}

pub(super) fn path_of(format: &str) -> String {
    format!("{DIRECTORY}/{format}.marks")
}

/// Reads into `bytes` from `at`, stopping at the end of the file; how many
/// bytes there were (the rest of `bytes` is left as it was).
pub(super) fn read_at_most(file: &File, bytes: &mut [u8], at: u64) -> io::Result<usize> {
    let mut read = 0;
    while read < bytes.len() {
        match file.read_at(&mut bytes[read..], at + read as u64)? {
            0 => break,
            n => read += n,
        }
    }
    Ok(read)
}

/// Opens the marks file of `format`. A format without one gets one (with
/// no mark yet), unless `pg_flake/formats` says it had one: then it is
/// missing, and refused.
pub(super) fn open(format: &str) -> io::Result<File> {
    let path = path_of(format);
    match OpenOptions::new().read(true).write(true).open(&path) {
        Ok(file) => return Ok(file),
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        Err(_) => {}
    }
    if list::listed()?.iter().any(|f| f == format) {
        // Listed: missing, unless another backend has just made it (a
        // format is listed only once its file is in place).
        return match OpenOptions::new().read(true).write(true).open(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(MarksError::Missing { path }.into_io())
            }
            opened => opened,
        };
    }
    // Never over a file another backend made meanwhile (it may hold a
    // mark already): the new file goes in place only where there is none.
    let header = Header {
        sequence: 1,
        ..Header::default()
    };
    write_new(&path, &file_bytes(format, &header))?;
    list::add(format)?;
    OpenOptions::new().read(true).write(true).open(&path)
}

/// Takes `flock` on `file` (released when the file is closed), waiting as
/// long as another process holds it. With `interruptible` (a backend
/// generating IDs), it sleeps 1 ms at a time on its latch meanwhile and
/// honours cancel, `statement_timeout` and terminate (docs/operations.md
/// "Standbys and failover"): an interrupt raises with nothing locked.
pub(super) fn exclusive(file: &File, interruptible: bool) -> io::Result<()> {
    if !interruptible {
        // SAFETY: flock on a descriptor the caller owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io::Error::last_os_error());
        }
        return Ok(());
    }
    loop {
        // SAFETY: as above.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::WouldBlock {
            return Err(error);
        }
        pgrx::check_for_interrupts!();
        // SAFETY: a timed wait on the backend's own latch.
        unsafe {
            pg_sys::WaitLatch(
                pg_sys::MyLatch,
                (pg_sys::WL_LATCH_SET | pg_sys::WL_TIMEOUT | pg_sys::WL_EXIT_ON_PM_DEATH) as i32,
                1,
                pg_sys::PG_WAIT_EXTENSION,
            );
            pg_sys::ResetLatch(pg_sys::MyLatch);
        }
    }
}

/// A marks file for `format` holding `header` in both copies, put in place
/// whole, so that a crash leaves either no file or a valid one.
pub(super) fn create_file(format: &str, header: &Header) -> io::Result<()> {
    write_atomically(&path_of(format), &file_bytes(format, header))
}

/// The bytes of a new marks file: `header` in both copies.
pub(super) fn file_bytes(format: &str, header: &Header) -> Vec<u8> {
    let copy = marks_file::encode(format, header);
    let mut bytes = Vec::with_capacity(2 * COPY_SIZE);
    bytes.extend_from_slice(&copy);
    bytes.extend_from_slice(&copy);
    bytes
}

/// Writes `path` whole: a temporary file beside it, `fsync`'d, renamed over
/// it, the directory `fsync`'d (making `pg_flake/` first if needed).
pub(super) fn write_atomically(path: &str, bytes: &[u8]) -> io::Result<()> {
    let temporary = write_temporary(bytes)?;
    std::fs::rename(&temporary, path)?;
    sync_directory(DIRECTORY);
    Ok(())
}

/// `bytes` in a new temporary file of this backend in `pg_flake/` (made
/// first if needed), `fsync`'d; returns its path.
pub(super) fn write_temporary(bytes: &[u8]) -> io::Result<String> {
    make_directory()?;
    // pgsql_tmp*: pg_basebackup leaves out one left behind by a crash.
    let temporary = format!("{DIRECTORY}/pgsql_tmp_marks_{}", backend_pid());
    {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temporary)?;
        file.write_all(bytes)?;
        // SAFETY: a plain global of the server's configuration.
        if unsafe { pg_sys::enableFsync } {
            if let Err(e) = file.sync_all() {
                fsync_failed(&temporary, e);
            }
        }
    }
    Ok(temporary)
}

/// Makes `pg_flake/` where it is missing, durably.
pub(super) fn make_directory() -> io::Result<()> {
    match std::fs::create_dir(DIRECTORY) {
        Ok(()) => sync_directory("."),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    Ok(())
}

/// Writes `path` whole like [`write_atomically`], but only where no file
/// is there: a hard link of the temporary file, which fails rather than
/// replace one. Returns whether this call made it.
pub(super) fn write_new(path: &str, bytes: &[u8]) -> io::Result<bool> {
    let temporary = write_temporary(bytes)?;
    let made = match std::fs::hard_link(&temporary, path) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(e);
        }
    };
    std::fs::remove_file(&temporary)?;
    sync_directory(DIRECTORY);
    Ok(made)
}

pub(super) fn sync_directory(path: &str) {
    // SAFETY: a plain global of the server's configuration.
    if unsafe { pg_sys::enableFsync } {
        if let Err(e) = File::open(path).and_then(|d| d.sync_all()) {
            fsync_failed(path, e);
        }
    }
}

/// A failed `fsync` of pg_flake's files is a PANIC, as PostgreSQL makes it
/// for its own (`data_sync_retry = off`): after a failure the kernel may
/// have dropped the unwritten data and report success next time, so what
/// was written must never be relied on; crash recovery starts from what is
/// durable.
pub(super) fn fsync_failed(path: &str, error: io::Error) -> ! {
    crate::plumbing::errors::panic(flake_core::Error::Refused {
        kind: flake_core::ErrorKind::IoError,
        message: format!("pg_flake: could not fsync file \"{path}\": {error}"),
        detail: None,
        hint: None,
    })
}

/// This run of the server: the postmaster's pid and start time.
pub fn run() -> (u64, u64) {
    // SAFETY: plain globals set by the postmaster and inherited by its
    // children.
    unsafe { (pg_sys::PostmasterPid as u64, pg_sys::PgStartTime as u64) }
}

pub(super) fn backend_pid() -> u32 {
    // SAFETY: a plain global of the backend.
    unsafe { pg_sys::MyProcPid as u32 }
}
