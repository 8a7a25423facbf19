//! The one way pg_flake reports to PostgreSQL: every error is a core
//! [`Error`] and reaches the user as an ERROR with the SQLSTATE of its kind
//! (docs/sql-reference.md "Errors") through [`raise`] (or, for input
//! functions called softly, [`save`]); a broken invariant goes through
//! [`internal`]. The two reports that are no error, a WARNING and a PANIC,
//! are made here too ([`warn`], [`panic`]).

use flake_core::{Error, ErrorKind};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

fn sqlstate(kind: ErrorKind) -> PgSqlErrorCode {
    match kind {
        ErrorKind::InvalidText => PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        ErrorKind::InvalidBinary => PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION,
        ErrorKind::NumericOutOfRange => PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
        ErrorKind::DatetimeOverflow => PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        ErrorKind::InvalidParameter => PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        ErrorKind::NotReady => PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        ErrorKind::ReadOnly => PgSqlErrorCode::ERRCODE_READ_ONLY_SQL_TRANSACTION,
        ErrorKind::InsufficientPrivilege => PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        ErrorKind::DataCorrupted => PgSqlErrorCode::ERRCODE_DATA_CORRUPTED,
        ErrorKind::UndefinedFile => PgSqlErrorCode::ERRCODE_UNDEFINED_FILE,
        ErrorKind::DiskFull => PgSqlErrorCode::ERRCODE_DISK_FULL,
        ErrorKind::IoError => PgSqlErrorCode::ERRCODE_IO_ERROR,
        ErrorKind::Internal => PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
    }
}

/// Reports `error` to the caller's soft-error context (PostgreSQL 16+:
/// `pg_input_is_valid`, `pg_input_error_info`, `COPY … ON_ERROR ignore`),
/// with the same SQLSTATE, message, detail and hint as [`raise`].
///
/// # Safety
/// `context` must be the current call's `ErrorSaveContext`.
#[cfg(soft_errors)]
pub unsafe fn save(context: *mut pgrx::pg_sys::Node, error: &Error) {
    use crate::plumbing::backend::ffi::{errcode, errdetail_internal, errhint, errmsg_internal};
    use pgrx::pg_sys;
    use std::ffi::CString;
    let text = |s: String| CString::new(s).unwrap_or_default();
    let message = text(error.to_string());
    let detail = error.detail().map(text);
    let hint = error.hint().or_else(|| hint_for(error)).map(text);
    // SAFETY: the errsave protocol of elog.h; with a soft context
    // errsave_start only prepares a report and errsave_finish files it in
    // the context and returns.
    unsafe {
        if pg_sys::errsave_start(context, c"pg_flake".as_ptr()) {
            errcode(sqlstate(error.kind()) as i32);
            errmsg_internal(c"%s".as_ptr(), message.as_ptr());
            if let Some(detail) = &detail {
                errdetail_internal(c"%s".as_ptr(), detail.as_ptr());
            }
            if let Some(hint) = &hint {
                errhint(c"%s".as_ptr(), hint.as_ptr());
            }
            pg_sys::errsave_finish(context, c"errors.rs".as_ptr(), 0, c"save".as_ptr());
        }
    }
}

/// Raises `error` as an ERROR; never returns.
pub fn raise(error: Error) -> ! {
    report(&error, PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

/// Raises a broken invariant of pg_flake's own as an ERROR (XX000).
#[cold]
pub fn internal(message: impl Into<String>) -> ! {
    raise(Error::Internal {
        message: message.into(),
    })
}

/// 55000: the generators of this server run belong to another pg_flake
/// library than this backend's (one installed while the server runs,
/// without preloading; docs/operations.md "Versions"): `detail` says which.
/// One library's generators per run, until the server restarts.
#[cold]
pub fn library_replaced(detail: String) -> ! {
    raise(library_replaced_error(detail))
}

/// [`library_replaced`]'s error, for a caller that counts it first.
pub fn library_replaced_error(detail: String) -> Error {
    Error::Refused {
        kind: ErrorKind::NotReady,
        message: "pg_flake's library was replaced while the server runs: restart the server".into(),
        detail: Some(detail),
        hint: Some(
            "Restart the server (pg_ctl restart) after installing pg_flake: every backend then \
             loads the installed library. Until then, backends that loaded the other library \
             generate with it, and no ID is issued twice (docs/operations.md \"Versions\")."
                .into(),
        ),
    }
}

/// Logs a WARNING with a detail line (and returns).
pub fn warn(message: String, detail: String) {
    ErrorReport::new(PgSqlErrorCode::ERRCODE_WARNING, message, "pg_flake")
        .set_detail(detail)
        .report(PgLogLevel::WARNING);
}

/// Reports `error` as a PANIC: the server stops and recovers from what is
/// durable (a failed fsync, see `marks::fsync_failed`).
pub fn panic(error: Error) -> ! {
    report(&error, PgLogLevel::PANIC);
    unreachable!("PANIC does not return")
}

fn report(error: &Error, level: PgLogLevel) {
    let mut report = ErrorReport::new(sqlstate(error.kind()), error.to_string(), "pg_flake");
    if let Some(detail) = error.detail() {
        report = report.set_detail(detail);
    }
    if let Some(hint) = error.hint().or_else(|| hint_for(error)) {
        report = report.set_hint(hint);
    }
    report.report(level);
}

/// What the extension adds to the core's errors: the settings to change.
fn hint_for(error: &Error) -> Option<String> {
    match error {
        Error::ClockBehind { .. } => Some(
            "Correct the server's clock, or let IDs run further ahead of it with \
             pg_flake.max_clock_lag (docs/guarantees.md \"Guarantees\")."
                .into(),
        ),
        Error::ClockJumped { type_name, .. } => Some(format!(
            "Correct the server's clock: generation resumes once it is back. If the new time is \
             right, SELECT pg_flake_set_mark('{type_name}', now()) moves the mark to it deliberately \
             (docs/guarantees.md \"Restarts, crashes and the clock\"; the bound is pg_flake.max_clock_jump)."
        )),
        _ => None,
    }
}

pub trait OrRaise<T> {
    /// The value, or the error raised as a PostgreSQL ERROR.
    fn or_raise(self) -> T;
}

impl<T> OrRaise<T> for Result<T, Error> {
    #[inline]
    fn or_raise(self) -> T {
        match self {
            Ok(v) => v,
            Err(e) => raise(e),
        }
    }
}
