//! SQL surface of Snowflake, Discord flavour (docs/formats/snowflake.md), on
//! `bigint`: decoding, construction, the generator and its settings.
//!
//! Every function with an `epoch_ms` argument also exists without it, reading
//! `pg_flake.snowflake_epoch` instead: the form with the argument is
//! `IMMUTABLE` (usable in expression indexes), the other `STABLE`.

use super::format::Format;
use crate::generation::Generator;
use crate::node::format_setting::format_node_setting;
use crate::node::NodeField;
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::fmgr::c_function::{c_function, sql_file, Call};
use crate::plumbing::fmgr::record::{column, out_record};
use crate::plumbing::fmgr::timestamptz;
use crate::plumbing::settings::{self, Definition, Rejection, TextSetting};
use flake_core::snowflake::{self as snowflake_core, check_epoch, SnowflakeGenerator};
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use pgrx::prelude::*;
use std::ffi::CString;
use std::sync::atomic::{AtomicI64, Ordering};

sql_file!(
    "../../sql/snowflake.sql",
    name = "snowflake",
    requires = ["siq"]
);

pub static GENERATOR: Generator<SnowflakeGenerator> = Generator::new(&NODE);

/// The format's name, as its settings and marks file say it.
const NAME: &str = "snowflake";

pub static FORMAT: Format = Format {
    name: NAME,
    init: define_settings,
    generators: &[&GENERATOR],
    nodes: &[&NODE],
    generate: &["snowflake_generate()"],
};

/// The worker field: this server's node (docs/operations.md "Several servers").
pub static NODE: NodeField = NodeField::new(NAME, 5, Some(SNOWFLAKE_WORKER.field()));

// --- settings ------------------------------------------------------------------

format_node_setting! {
    /// `pg_flake.snowflake_worker`, which overrides `pg_flake.node` where set.
    static SNOWFLAKE_WORKER = "pg_flake.snowflake_worker", max snowflake_core::MAX_WORKER as i32,
    "Worker field of generated snowflakes: this server's number.",
    "Overrides pg_flake.node for Snowflake where set (0-31).",
}
/// Text, because integer settings are 32-bit; the check hook admits only an
/// integer in `snowflake_core::EPOCH_RANGE_MS`.
static SNOWFLAKE_EPOCH: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"1420070400000"));
/// `pg_flake.snowflake_epoch` parsed when the setting changes.
static SNOWFLAKE_EPOCH_MS: AtomicI64 = AtomicI64::new(snowflake_core::DEFAULT_EPOCH_MILLIS);

/// `pg_flake.snowflake_epoch` in milliseconds since the Unix epoch.
fn epoch_setting() -> i64 {
    SNOWFLAKE_EPOCH_MS.load(Ordering::Relaxed)
}

fn parse_epoch(text: &[u8]) -> Option<i64> {
    let epoch = std::str::from_utf8(text).ok()?.trim().parse().ok()?;
    check_epoch(epoch).ok()
}

struct EpochSetting;

impl TextSetting for EpochSetting {
    fn check(text: &[u8]) -> Result<(), Rejection> {
        parse_epoch(text)
            .map(drop)
            .ok_or_else(|| Rejection::Detail(snowflake_core::EPOCH_ACCEPTED.into()))
    }

    fn assign(text: &[u8]) {
        // The check admitted only values that parse.
        let epoch = parse_epoch(text).unwrap_or(snowflake_core::DEFAULT_EPOCH_MILLIS);
        SNOWFLAKE_EPOCH_MS.store(epoch, Ordering::Relaxed);
    }
}

fn define_settings() {
    settings::define_text::<EpochSetting>(
        Definition {
            name: c"pg_flake.snowflake_epoch",
            short: c"Snowflake epoch in milliseconds since 1970-01-01 00:00:00 UTC.",
            long: c"The default 1420070400000 is 2015-01-01 00:00:00 UTC, Discord's epoch.",
            // Superuser-only: IDs generated under two epochs can collide in
            // one table (docs/sql-reference.md "Settings"); the decoders take an explicit
            // epoch argument for every role.
            context: GucContext::Suset,
            flags: GucFlags::default(),
        },
        &SNOWFLAKE_EPOCH,
    );
    SNOWFLAKE_WORKER.define();
}

// --- functions -----------------------------------------------------------------

fn unix_millis(time: TimestampWithTimeZone) -> i64 {
    timestamptz::unix_micros(time, NAME, snowflake_core::TIME_RANGE).div_euclid(1000)
}

c_function! {
    /// `snowflake_generate() → bigint`
    snowflake_generate_wrapper,
    |_call| {
        let worker = GENERATOR.generating_node() as i64;
        let epoch = epoch_setting();
        pg_sys::Datum::from(GENERATOR.generate(|generator, clock, limits| generator.try_generate(clock, limits, worker, epoch)))
    }
}

#[doc(alias = "snowflake_timestamp_wrapper")]
#[pg_extern(sql = false)]
fn snowflake_timestamp(snowflake: i64, epoch_ms: i64) -> TimestampWithTimeZone {
    let epoch = check_epoch(epoch_ms).or_raise();
    timestamptz::timestamp(snowflake_core::timestamp(snowflake, epoch).or_raise())
}

#[doc(alias = "snowflake_timestamp_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn snowflake_timestamp_at_setting(snowflake: i64) -> TimestampWithTimeZone {
    snowflake_timestamp(snowflake, epoch_setting())
}

#[doc(alias = "snowflake_from_time_wrapper")]
#[pg_extern(sql = false)]
fn snowflake_from_time(time: TimestampWithTimeZone, epoch_ms: i64) -> i64 {
    snowflake_from_parts(time, 0, 0, 0, epoch_ms)
}

#[doc(alias = "snowflake_from_time_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn snowflake_from_time_at_setting(time: TimestampWithTimeZone) -> i64 {
    snowflake_from_time(time, epoch_setting())
}

/// The row of `snowflake_parts`.
fn parts_record(call: Call<'_>, snowflake: i64, epoch_ms: i64) -> pg_sys::Datum {
    let epoch = check_epoch(epoch_ms).or_raise();
    let p = snowflake_core::parts(snowflake, epoch).or_raise();
    out_record(
        call,
        &[
            column("time", timestamptz::timestamp(p.time)),
            column("worker", p.worker as i32),
            column("process", p.process as i32),
            column("sequence", p.sequence as i32),
        ],
    )
}

c_function! {
    snowflake_parts_wrapper,
    |call| {
        let (snowflake, epoch_ms) = (call.value(0), call.value(1));
        parts_record(call, snowflake, epoch_ms)
    }
}

c_function! {
    snowflake_parts_at_setting_wrapper,
    |call| {
        let snowflake = call.value(0);
        parts_record(call, snowflake, epoch_setting())
    }
}

#[doc(alias = "snowflake_from_parts_wrapper")]
#[pg_extern(sql = false)]
fn snowflake_from_parts(
    time: TimestampWithTimeZone,
    worker: i32,
    process: i32,
    sequence: i32,
    epoch_ms: i64,
) -> i64 {
    let epoch = check_epoch(epoch_ms).or_raise();
    snowflake_core::from_parts(
        unix_millis(time),
        worker as i64,
        process as i64,
        sequence as i64,
        epoch,
    )
    .or_raise()
}

#[doc(alias = "snowflake_from_parts_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn snowflake_from_parts_at_setting(
    time: TimestampWithTimeZone,
    worker: i32,
    process: i32,
    sequence: i32,
) -> i64 {
    snowflake_from_parts(time, worker, process, sequence, epoch_setting())
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    #[pg_test]
    fn snowflake_discord_example() {
        let worker = Spi::get_one::<i32>("SELECT worker FROM snowflake_parts(175928847299117063)");
        assert_eq!(worker.unwrap(), Some(1));
    }
}
