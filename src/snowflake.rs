//! SQL surface of Snowflake, Discord flavour (`spec/snowflake.md`), on
//! `bigint`: decoding, construction and the generator.
//!
//! Every function with an `epoch_ms` argument also exists without it, reading
//! `pg_flake.snowflake_epoch` instead: the form with the argument is
//! `IMMUTABLE` (usable in expression indexes), the other `STABLE`.

use crate::backend;
use crate::errors::OrRaise;
use crate::fixed_type::{out_record, v1_function, OutRecord};
use crate::generator_state::{self, StateRow};
use crate::settings;
use flake_core::snowflake::{self as snowflake_core, SnowflakeGenerator};
use flake_core::Error;
use pgrx::prelude::*;

/// Epochs from 1970-01-01 to 9999-12-31 23:59:59.999 UTC, so that every
/// snowflake time (up to 2^41 ms after its epoch) is a `timestamptz`.
const EPOCH_RANGE_MS: std::ops::RangeInclusive<i64> = 0..=253_402_300_799_999;
pub const EPOCH_ACCEPTED: &str = "A snowflake epoch is an integer number of milliseconds since \
     1970-01-01 00:00:00 UTC, from 0 to 253402300799999 (9999-12-31 23:59:59.999 UTC).";

/// An epoch argument or setting, in milliseconds since the Unix epoch.
pub fn check_epoch(epoch_ms: i64) -> flake_core::Result<i64> {
    if EPOCH_RANGE_MS.contains(&epoch_ms) {
        Ok(epoch_ms)
    } else {
        Err(Error::InvalidParameter {
            message: format!(
                "snowflake epoch {epoch_ms} is outside 0 to 253402300799999 \
                 (milliseconds since 1970-01-01 00:00:00 UTC, up to 9999-12-31)"
            ),
        })
    }
}

crate::generator!(pub GENERATOR: SnowflakeGenerator, c"pg_flake snowflake generator");

fn unix_millis(time: TimestampWithTimeZone) -> i64 {
    backend::unix_micros(time, "snowflake", snowflake_core::TIME_RANGE).div_euclid(1000)
}

v1_function! {
    /// `snowflake_generate() → bigint`
    fn snowflake_generate(_fcinfo) {
        let worker = settings::SNOWFLAKE_WORKER.get() as i64;
        let epoch = settings::snowflake_epoch();
        pg_sys::Datum::from(GENERATOR.generate(|generator, clock| generator.try_generate(clock, worker, epoch)))
    }
}

pgrx::extension_sql!(
    r#"
CREATE FUNCTION snowflake_generate() RETURNS bigint
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_generate_wrapper';
"#,
    name = "snowflake_generate"
);

#[pg_extern(immutable, parallel_safe, strict)]
fn snowflake_timestamp(snowflake: i64, epoch_ms: i64) -> TimestampWithTimeZone {
    let epoch = check_epoch(epoch_ms).or_raise();
    backend::timestamp(snowflake_core::timestamp(snowflake, epoch).or_raise())
}

#[pg_extern(stable, parallel_safe, strict, name = "snowflake_timestamp")]
fn snowflake_timestamp_at_setting(snowflake: i64) -> TimestampWithTimeZone {
    snowflake_timestamp(snowflake, settings::snowflake_epoch())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn snowflake_from_time(time: TimestampWithTimeZone, epoch_ms: i64) -> i64 {
    snowflake_from_parts(time, 0, 0, 0, epoch_ms)
}

#[pg_extern(stable, parallel_safe, strict, name = "snowflake_from_time")]
fn snowflake_from_time_at_setting(time: TimestampWithTimeZone) -> i64 {
    snowflake_from_time(time, settings::snowflake_epoch())
}

#[pg_extern(
    immutable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION snowflake_parts(snowflake bigint, epoch_ms bigint,
    OUT "time" timestamptz, OUT worker int, OUT process int, OUT sequence int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_parts_wrapper';
"#
)]
fn snowflake_parts(snowflake: i64, epoch_ms: i64, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    let epoch = check_epoch(epoch_ms).or_raise();
    let p = snowflake_core::parts(snowflake, epoch).or_raise();
    out_record(
        fcinfo,
        &[
            backend::timestamp(p.time).into_datum(),
            (p.worker as i32).into_datum(),
            (p.process as i32).into_datum(),
            (p.sequence as i32).into_datum(),
        ],
    )
}

#[pg_extern(
    stable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION snowflake_parts(snowflake bigint,
    OUT "time" timestamptz, OUT worker int, OUT process int, OUT sequence int)
RETURNS record STABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_parts_at_setting_wrapper';
"#
)]
fn snowflake_parts_at_setting(snowflake: i64, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    snowflake_parts(snowflake, settings::snowflake_epoch(), fcinfo)
}

#[pg_extern(immutable, parallel_safe, strict)]
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

#[pg_extern(stable, parallel_safe, strict, name = "snowflake_from_parts")]
fn snowflake_from_parts_at_setting(
    time: TimestampWithTimeZone,
    worker: i32,
    process: i32,
    sequence: i32,
) -> i64 {
    snowflake_from_parts(time, worker, process, sequence, settings::snowflake_epoch())
}

/// The snowflake generator, for `pg_flake_generator_state()`.
pub fn generator_states() -> Vec<StateRow> {
    generator_state::rows("snowflake", &GENERATOR)
}
