//! SQL surface of the k-ordered uid (`spec/kuid.md`): kuid64 on `bigint`,
//! the type `kuid96`, node fingerprints and both generators.
//!
//! Every kuid96 function with an `interval` argument also exists without it,
//! reading `pg_flake.kuid_interval` instead (and `kuid96_globalize` without
//! `node` reads `pg_flake.kuid_node`): the form with every argument is
//! `IMMUTABLE` (usable in expression indexes), the others `STABLE`.

use crate::backend;
use crate::errors::OrRaise;
use crate::fixed_type::{datum_of, flake_type, out_record, v1_function, FromBinary, OutRecord};
use crate::generator_state::{self, StateRow};
use crate::settings;
use flake_core::error::field_in_range;
use flake_core::kuid::{self as kuid_core, Kuid64Generator, Kuid96Generator};
use flake_core::FlakeId;
use pgrx::prelude::*;

flake_type!(Kuid96, kuid_core::Kuid96, kuid96);

impl FromBinary for kuid_core::Kuid96 {}

pgrx::extension_sql!(
    "CREATE TYPE kuid96;",
    name = "kuid96_shell",
    creates = [Type(Kuid96)]
);

crate::generator!(pub KUID64: Kuid64Generator, c"pg_flake kuid64 generator");
crate::generator!(pub KUID96: Kuid96Generator, c"pg_flake kuid96 generator");

fn kuid64_micros(time: TimestampWithTimeZone) -> i64 {
    backend::unix_micros(time, "kuid64", kuid_core::KUID64_TIME_RANGE)
}

fn kuid96_micros(time: TimestampWithTimeZone) -> i64 {
    backend::unix_micros(time, "kuid96", kuid_core::KUID96_TIME_RANGE)
}

/// An interval argument: 5–10, else 22023.
fn interval_arg(interval: i32) -> u32 {
    kuid_core::check_interval(interval).or_raise()
}

/// A node argument: a 32-bit fingerprint, else 22003.
fn node_arg(node: i64) -> u32 {
    field_in_range("kuid96", "node", node as i128, 0, u32::MAX as i128).or_raise() as u32
}

// --- kuid64 ---------------------------------------------------------------------

v1_function! {
    /// `kuid64_generate() → bigint`
    fn kuid64_generate(_fcinfo) {
        pg_sys::Datum::from(KUID64.generate(|generator, clock| generator.try_generate(clock)))
    }
}

pgrx::extension_sql!(
    r#"
CREATE FUNCTION kuid64_generate() RETURNS bigint
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_generate_wrapper';
"#,
    name = "kuid64_generate"
);

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid64_encode(kuid64: i64) -> String {
    kuid_core::kuid64_encode(kuid64).or_raise()
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid64_decode(text: &str) -> i64 {
    kuid_core::kuid64_decode(text).or_raise()
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid64_timestamp(kuid64: i64) -> TimestampWithTimeZone {
    backend::timestamp(kuid_core::kuid64_timestamp(kuid64).or_raise())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid64_from_time(time: TimestampWithTimeZone) -> i64 {
    kuid_core::kuid64_from_time(kuid64_micros(time)).or_raise()
}

#[pg_extern(
    immutable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION kuid64_parts(kuid64 bigint,
    OUT "time" timestamptz, OUT megaseconds int, OUT seconds int, OUT microseconds int,
    OUT seq int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_parts_wrapper';
"#
)]
fn kuid64_parts(kuid64: i64, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    let p = kuid_core::kuid64_parts(kuid64).or_raise();
    out_record(
        fcinfo,
        &[
            backend::timestamp(p.time).into_datum(),
            (p.megaseconds as i32).into_datum(),
            (p.seconds as i32).into_datum(),
            (p.microseconds as i32).into_datum(),
            (p.seq as i32).into_datum(),
        ],
    )
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid64_from_parts(time: TimestampWithTimeZone, seq: i32) -> i64 {
    kuid_core::kuid64_from_parts(kuid64_micros(time), seq as i64).or_raise()
}

// --- kuid96 ---------------------------------------------------------------------

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid_node_fingerprint(name: &str) -> i64 {
    kuid_core::node_fingerprint(name) as i64
}

v1_function! {
    /// `kuid96_generate() → kuid96`
    fn kuid96_generate(_fcinfo) {
        let node = settings::kuid_node();
        let interval = settings::kuid_interval();
        datum_of(KUID96.generate(|generator, clock| generator.try_generate(clock, node, interval)).bytes())
    }
}

pgrx::extension_sql!(
    r#"
CREATE FUNCTION kuid96_generate() RETURNS kuid96
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_generate_wrapper';
"#,
    name = "kuid96_generate",
    requires = ["flake_types"]
);

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid96_timestamp(id: Kuid96, interval: i32) -> TimestampWithTimeZone {
    backend::timestamp(id.0.timestamp(interval_arg(interval)).or_raise())
}

#[pg_extern(stable, parallel_safe, strict, name = "kuid96_timestamp")]
fn kuid96_timestamp_at_setting(id: Kuid96) -> TimestampWithTimeZone {
    backend::timestamp(id.0.timestamp(settings::kuid_interval()).or_raise())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid96_node(id: Kuid96, interval: i32) -> i64 {
    id.0.node(interval_arg(interval)).or_raise() as i64
}

#[pg_extern(stable, parallel_safe, strict, name = "kuid96_node")]
fn kuid96_node_at_setting(id: Kuid96) -> i64 {
    id.0.node(settings::kuid_interval()).or_raise() as i64
}

fn kuid96_parts_record(fcinfo: pg_sys::FunctionCallInfo, id: Kuid96, interval: u32) -> OutRecord {
    let p = id.0.parts(interval).or_raise();
    out_record(
        fcinfo,
        &[
            backend::timestamp(p.time).into_datum(),
            (p.node as i64).into_datum(),
            (p.seq as i32).into_datum(),
        ],
    )
}

#[pg_extern(
    immutable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION kuid96_parts(id kuid96, "interval" int,
    OUT "time" timestamptz, OUT node bigint, OUT seq int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_parts_wrapper';
"#
)]
fn kuid96_parts(id: Kuid96, interval: i32, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    kuid96_parts_record(fcinfo, id, interval_arg(interval))
}

#[pg_extern(
    stable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION kuid96_parts(id kuid96,
    OUT "time" timestamptz, OUT node bigint, OUT seq int)
RETURNS record STABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_parts_at_setting_wrapper';
"#
)]
fn kuid96_parts_at_setting(id: Kuid96, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    kuid96_parts_record(fcinfo, id, settings::kuid_interval())
}

fn from_parts(time: TimestampWithTimeZone, node: u32, seq: i32, interval: u32) -> Kuid96 {
    Kuid96(
        kuid_core::Kuid96::from_parts(kuid96_micros(time), node, seq as i64, interval).or_raise(),
    )
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid96_from_parts(time: TimestampWithTimeZone, node: i64, seq: i32, interval: i32) -> Kuid96 {
    from_parts(time, node_arg(node), seq, interval_arg(interval))
}

#[pg_extern(stable, parallel_safe, strict, name = "kuid96_from_parts")]
fn kuid96_from_parts_at_setting(time: TimestampWithTimeZone, node: i64, seq: i32) -> Kuid96 {
    from_parts(time, node_arg(node), seq, settings::kuid_interval())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid96_from_time(time: TimestampWithTimeZone, interval: i32) -> Kuid96 {
    from_parts(time, 0, 0, interval_arg(interval))
}

#[pg_extern(stable, parallel_safe, strict, name = "kuid96_from_time")]
fn kuid96_from_time_at_setting(time: TimestampWithTimeZone) -> Kuid96 {
    from_parts(time, 0, 0, settings::kuid_interval())
}

fn globalize(kuid64: i64, node: u32, interval: u32) -> Kuid96 {
    Kuid96(kuid_core::Kuid96::globalize(kuid64, node, interval).or_raise())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid96_globalize(kuid64: i64, node: i64, interval: i32) -> Kuid96 {
    globalize(kuid64, node_arg(node), interval_arg(interval))
}

#[pg_extern(stable, parallel_safe, strict, name = "kuid96_globalize")]
fn kuid96_globalize_at_setting(kuid64: i64, node: i64) -> Kuid96 {
    globalize(kuid64, node_arg(node), settings::kuid_interval())
}

#[pg_extern(stable, parallel_safe, strict, name = "kuid96_globalize")]
fn kuid96_globalize_here(kuid64: i64) -> Kuid96 {
    globalize(kuid64, settings::kuid_node(), settings::kuid_interval())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn kuid96_localize(id: Kuid96, interval: i32) -> i64 {
    id.0.localize(interval_arg(interval)).or_raise()
}

#[pg_extern(stable, parallel_safe, strict, name = "kuid96_localize")]
fn kuid96_localize_at_setting(id: Kuid96) -> i64 {
    id.0.localize(settings::kuid_interval()).or_raise()
}

/// The kuid64 and kuid96 generators, for `pg_flake_generator_state()`.
pub fn generator_states() -> Vec<StateRow> {
    let mut rows = generator_state::rows("kuid64", &KUID64);
    rows.extend(generator_state::rows("kuid96", &KUID96));
    rows
}
