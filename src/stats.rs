//! The statistics an operator scrapes (docs/sql-reference.md "Statistics",
//! docs/operations.md "Metrics"), over every coordination-based format of
//! the registry:
//! - `pg_flake_stats`: per format, IDs issued, calls that waited for the
//!   next unit, refusals, marks recorded and the time their recording took,
//!   steps back of the clock seen, how far IDs run ahead of the clock now,
//!   and since when it counts;
//! - `pg_flake_refusal_stats`: the refusals by SQLSTATE;
//! - `pg_flake_stats_reset(format)`: starts a format's counters (or every
//!   format's) again;
//! - `pg_flake_lease_stats` (SQL only): the leases of the table, by format.
//!
//! The counters are the server's generators' own (`generation/generator/counters.rs`):
//! one set per server, preloaded or not, counting from the generators' set-up
//! (the server's start, or its first ID without preloading) until the server
//! stops; nothing survives a restart.

use crate::formats;
use crate::generation::{unix_micros_now, ServerGenerator, StatsRow};
use crate::plumbing::backend::errors::raise;
use crate::plumbing::fmgr::c_function::sql_file;
use crate::plumbing::fmgr::timestamptz;
use flake_core::Error;
use pgrx::datum::Interval;
use pgrx::prelude::*;

sql_file!(
    "../sql/stats.sql",
    name = "stats",
    requires = ["partitions"]
);

fn rows() -> impl Iterator<Item = StatsRow> {
    formats::generators().map(|generator| generator.stats())
}

fn millis(nanos: u64) -> f64 {
    nanos as f64 / 1e6
}

/// A counter as SQL's bigint (saturating: it never reaches it).
fn counter(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

// pgrx reads the column names from the tuple in the signature itself, so
// the row type cannot be a type alias.
#[allow(clippy::type_complexity)]
#[doc(alias = "pg_flake_stats_wrapper")]
#[pg_extern(sql = false)]
fn pg_flake_stats() -> TableIterator<
    'static,
    (
        name!(format, String),
        name!(issued, i64),
        name!(waits, i64),
        name!(refusals, i64),
        name!(marks_recorded, i64),
        name!(mark_file_time, f64),
        name!(mark_wal_time, f64),
        name!(clock_steps_back, i64),
        name!(clock_lead, Interval),
        name!(stats_reset, Option<TimestampWithTimeZone>),
    ),
> {
    TableIterator::new(rows().map(|r| {
        (
            r.format.to_string(),
            counter(r.issued),
            counter(r.waits),
            counter(r.refusals.iter().map(|(_, n)| n).sum()),
            counter(r.marks_recorded),
            millis(r.mark_file_nanos),
            millis(r.mark_wal_nanos),
            counter(r.clock_steps_back),
            Interval::from_micros(r.lead_nanos / 1000),
            timestamptz::timestamp_checked(r.reset_unix_micros),
        )
    }))
}

#[doc(alias = "pg_flake_refusal_stats_wrapper")]
#[pg_extern(sql = false)]
fn pg_flake_refusal_stats() -> TableIterator<
    'static,
    (
        name!(format, String),
        name!(sqlstate, String),
        name!(refusals, i64),
    ),
> {
    let refusals: Vec<_> = rows()
        .flat_map(|r| {
            r.refusals
                .into_iter()
                .map(move |(sqlstate, n)| (r.format.to_string(), sqlstate.to_string(), counter(n)))
        })
        .collect();
    TableIterator::new(refusals)
}

/// Starts the counters of `format` (NULL: of every coordination-based
/// format) again from zero; returns the time they start from.
#[doc(alias = "pg_flake_stats_reset_wrapper")]
#[pg_extern(sql = false)]
fn pg_flake_stats_reset(format: Option<&str>) -> TimestampWithTimeZone {
    let chosen: Vec<&'static dyn ServerGenerator> = formats::generators()
        .filter(|g| format.is_none_or(|f| g.format() == f))
        .collect();
    if chosen.is_empty() {
        raise(Error::InvalidParameter {
            message: format!(
                "pg_flake_stats_reset: \"{}\" is not a coordination-based format; accepted: {} (or NULL for all)",
                format.unwrap_or_default(),
                formats::generators()
                    .map(|g| g.format())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    let now = unix_micros_now();
    chosen.iter().for_each(|g| g.reset_stats(now));
    timestamptz::timestamp(now)
}
