//! The marks file of a format (docs/guarantees.md "Restarts, crashes and the
//! clock"): where it is, where each slot is in it, and how it is opened or
//! made.

use super::disk::{write_atomically, write_new, DIRECTORY};
use super::failure::MarksError;
use super::list;
use flake_core::marks_file::{self, Header, COPY_SIZE};
use std::fs::{File, OpenOptions};
use std::io;

/// The size of a slot: its unit, then its holder's pid.
pub(super) const SLOT_SIZE: u64 = 16;

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

pub(super) fn path_of(format: &str) -> String {
    format!("{DIRECTORY}/{format}.marks")
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
