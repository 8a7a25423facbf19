//! The file-system operations under `pg_flake/` (docs/guarantees.md
//! "Restarts, crashes and the clock"): `flock`, atomic replacement, and the
//! `fsync` whose failure is a PANIC, as for PostgreSQL's own files. They
//! know no marks file.

use pgrx::pg_sys;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;

/// pg_flake's directory under the data directory (a backend's working
/// directory).
pub(super) const DIRECTORY: &str = "pg_flake";

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
    crate::plumbing::backend::errors::panic(flake_core::Error::Refused {
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
