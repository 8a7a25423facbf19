//! `pg_flake/formats`, the list of the formats whose marks files exist (one
//! name per line), so that a missing marks file is noticed (docs/guarantees.md
//! "Restarts, crashes and the clock"): a child module of `marks.rs`.
//!
//! The list is read, changed and renamed into place under `flock` on
//! `pg_flake/formats.lock`: two sessions that make the marks files of two
//! formats at once (per backend, each format's first session does) would
//! otherwise each write the list as it read it, and one format would be
//! lost from it — its marks file, once removed, then made again silently
//! instead of refused.

use super::disk::{exclusive, make_directory, write_atomically, DIRECTORY};
use pgrx::pg_sys;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;

pub(super) const FORMATS_FILE: &str = "pg_flake/formats";
const FORMATS_LOCK: &str = "pg_flake/formats.lock";

/// The formats `pg_flake/formats` lists. Where it is missing (a data
/// directory of 0.2.0, or a new one), it is made from the marks files
/// there are.
pub(super) fn listed() -> io::Result<Vec<String>> {
    if let Some(formats) = read()? {
        return Ok(formats);
    }
    locked(|| match read()? {
        Some(formats) => Ok(formats),
        None => {
            let existing = existing()?;
            if !existing.is_empty() {
                write_atomically(FORMATS_FILE, existing.join("\n").as_bytes())?;
            }
            Ok(existing)
        }
    })
}

/// Adds `format` to `pg_flake/formats` (after its marks file exists).
pub(super) fn add(format: &str) -> io::Result<()> {
    locked(|| {
        let mut formats = match read()? {
            Some(formats) => formats,
            None => existing()?,
        };
        if formats.iter().any(|f| f == format) {
            return Ok(());
        }
        formats.push(format.to_string());
        formats.sort();
        write_atomically(FORMATS_FILE, formats.join("\n").as_bytes())
    })
}

/// The list, or None where there is none.
fn read() -> io::Result<Option<Vec<String>>> {
    match std::fs::read_to_string(FORMATS_FILE) {
        Ok(text) => Ok(Some(text.lines().map(str::to_string).collect())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The formats with a marks file in `pg_flake/`.
fn existing() -> io::Result<Vec<String>> {
    let entries = match std::fs::read_dir(DIRECTORY) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut formats = Vec::new();
    for entry in entries {
        let name = entry?.file_name();
        if let Some(format) = name.to_str().and_then(|n| n.strip_suffix(".marks")) {
            formats.push(format.to_string());
        }
    }
    formats.sort();
    Ok(formats)
}

/// Runs `change` holding `flock` on `pg_flake/formats.lock` (made, with
/// `pg_flake/`, where missing). Its holders only read and write the list,
/// a few milliseconds; a client backend waits for it as for a marks file
/// (`disk::exclusive`), cancellably.
fn locked<T>(change: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    make_directory()?;
    let lock: File = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(FORMATS_LOCK)?;
    exclusive(&lock, interruptible())?;
    // The lock goes with the file, whatever `change` does.
    let changed = change();
    drop(lock);
    changed
}

/// Whether a wait here may end with an interrupt: in a client backend that
/// is not exiting. Not the postmaster, the startup process's redo, nor an
/// exit callback (`proc_exit`), which must not be interrupted.
fn interruptible() -> bool {
    // SAFETY: plain globals of the process.
    unsafe {
        pg_sys::IsUnderPostmaster
            && pg_sys::MyBackendType == pg_sys::BackendType::B_BACKEND
            && !pg_sys::proc_exit_inprogress
            && !pg_sys::MyLatch.is_null()
    }
}
