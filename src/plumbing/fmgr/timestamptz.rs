//! Time conversions between PostgreSQL's `timestamptz` (microseconds since
//! 2000-01-01) and the core's Unix microseconds.

use crate::plumbing::backend::errors::raise;
use flake_core::Error;
use pgrx::prelude::*;

/// Unix epoch in PostgreSQL's timestamp representation (µs since 2000-01-01).
const UNIX_EPOCH_IN_PG_MICROS: i64 = -946_684_800_000_000;

/// Microseconds since the Unix epoch of a finite timestamp; infinite ones are
/// outside every format's range (22008, docs/guarantees.md "Decisions where the spec is
/// silent").
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
        crate::plumbing::backend::errors::internal(format!(
            "pg_flake: timestamp {unix_micros} out of PostgreSQL's range"
        ))
    })
}

/// The timestamp of a Unix-microsecond instant, if PostgreSQL can hold it.
pub fn timestamp_checked(unix_micros: i64) -> Option<TimestampWithTimeZone> {
    unix_micros
        .checked_add(UNIX_EPOCH_IN_PG_MICROS)
        .and_then(|pg| TimestampWithTimeZone::try_from(pg).ok())
}
