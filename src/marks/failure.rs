//! A marks file that cannot be read or written, as the error a user sees.

use super::list;
use crate::plumbing::backend::errors::{library_replaced_error, raise};
use flake_core::marks_file::Damage;
use flake_core::{Error, ErrorKind};
use std::io;

/// Why a format's marks cannot be used: the generator refuses until an
/// operator acts (docs/guarantees.md "Restarts, crashes and the clock").
#[derive(Debug)]
pub enum MarksError {
    Damaged {
        path: String,
        damage: Damage,
    },
    Missing {
        path: String,
    },
    /// A per-backend generator of 0.2.0 (15 and 16 without preloading)
    /// wrote the file in this server run: its library is loaded in some
    /// backend, and this version's generator must not share the run.
    EarlierLibraryRun,
}

impl std::fmt::Display for MarksError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MarksError::Damaged { path, damage } => {
                write!(f, "the marks file {path} is damaged: {damage}")
            }
            MarksError::Missing { path } => write!(
                f,
                "the marks file {path} is missing, although {} says it existed",
                list::FORMATS_FILE
            ),
            MarksError::EarlierLibraryRun => {
                write!(
                    f,
                    "an earlier pg_flake library generates in this server run"
                )
            }
        }
    }
}

impl std::error::Error for MarksError {}

impl MarksError {
    pub(super) fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }

    /// The marks error inside `error`, if it is one.
    pub fn of(error: &io::Error) -> Option<&MarksError> {
        error.get_ref().and_then(|e| e.downcast_ref::<MarksError>())
    }
}

/// Raises a failure to read or write a marks file, with the SQLSTATE
/// PostgreSQL gives the same failure of its own files
/// (`errcode_for_file_access`): generation stops rather than risk a
/// duplicate (docs/guarantees.md "Restarts, crashes and the clock").
pub fn failed(format: &str, error: std::io::Error) -> ! {
    raise(failure(format, error))
}

/// [`failed`]'s error, for a caller that counts it first.
pub fn failure(format: &str, error: std::io::Error) -> Error {
    if let Some(MarksError::EarlierLibraryRun) = MarksError::of(&error) {
        return beside_earlier_library(format);
    }
    if let Some(damage) = MarksError::of(&error) {
        // Damaged or missing (docs/guarantees.md "Restarts, crashes and the clock"):
        // no mark to trust, so none of the format's IDs until an operator
        // says where its IDs end.
        return Error::refused(
            ErrorKind::DataCorrupted,
            format!("cannot generate {format} IDs: {damage}"),
            format!(
                "Restore the file from a backup of this data directory taken with the server stopped, or set the mark deliberately: \
                 find the time of the highest {format} ID stored (e.g. SELECT max({format}_timestamp(id)) FROM your tables) and, as a superuser, \
                 SELECT pg_flake_set_mark('{format}', that time) (docs/guarantees.md \"Restarts, crashes and the clock\")."
            ),
        );
    }
    let kind = match error.kind() {
        std::io::ErrorKind::PermissionDenied => ErrorKind::InsufficientPrivilege,
        std::io::ErrorKind::NotFound => ErrorKind::UndefinedFile,
        std::io::ErrorKind::StorageFull => ErrorKind::DiskFull,
        _ => ErrorKind::IoError,
    };
    Error::refused(
        kind,
        format!("pg_flake: could not record the {format} mark in pg_flake/{format}.marks: {error}"),
        format!(
            "The server's operating-system user must be able to read and write pg_flake/{format}.marks under the data directory; no {format} ID is issued until it can."
        ),
    )
}

/// A per-backend generator of an earlier library (0.3.0 and before, on
/// PostgreSQL 15 and 16 without preloading) has generated in this server
/// run: this version's server-wide generator records no mark beside it, so
/// it stays below every unit that one may use (docs/operations.md
/// "Versions").
/// The refusal (55000) is this error.
pub fn beside_earlier_library(format: &str) -> Error {
    library_replaced_error(format!(
        "A backend that loaded an earlier pg_flake library generated {format} IDs with a generator of its own in this server run."
    ))
}
