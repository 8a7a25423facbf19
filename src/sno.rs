//! SQL surface of `sno` (`spec/sno.md`): the type, decoding, construction
//! and the generator.

use crate::backend;
use crate::errors::OrRaise;
use crate::fixed_type::{
    arg, datum_of, flake_type, out_record, v1_function, FromBinary, OutRecord,
};
use crate::generator_state::{self, StateRow};
use crate::settings;
use flake_core::error::field_in_range;
use flake_core::sno::{self as sno_core, SnoGenerator};
use flake_core::FlakeId;
use pgrx::prelude::*;

flake_type!(Sno, sno_core::Sno, sno);

impl FromBinary for sno_core::Sno {}

pgrx::extension_sql!(
    "CREATE TYPE sno;",
    name = "sno_shell",
    creates = [Type(Sno)]
);

crate::generator!(pub GENERATOR: SnoGenerator, c"pg_flake sno generator");

fn field(name: &'static str, value: i32, max: i128) -> i128 {
    field_in_range("sno", name, value as i128, 0, max).or_raise()
}

fn unix_nanos(time: TimestampWithTimeZone) -> i128 {
    backend::unix_micros(time, "sno", sno_core::TIME_RANGE) as i128 * 1000
}

v1_function! {
    /// `sno_generate(meta int DEFAULT 0) → sno`
    fn sno_generate(fcinfo) {
        // SAFETY: a strict function of one int argument.
        let meta = unsafe { arg(fcinfo, 0) }.value() as i32;
        let meta = field("meta", meta, 255) as u8;
        let node = settings::SNO_NODE.get() as u8;
        datum_of(GENERATOR.generate(|generator, clock| generator.try_generate(clock, node, meta)).bytes())
    }
}

pgrx::extension_sql!(
    r#"
CREATE FUNCTION sno_generate(meta int DEFAULT 0) RETURNS sno
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_generate_wrapper';
"#,
    name = "sno_generate",
    requires = ["flake_types"]
);

#[pg_extern(immutable, parallel_safe, strict)]
fn sno_timestamp(id: Sno) -> TimestampWithTimeZone {
    backend::timestamp(id.0.unix_micros())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn sno_from_time(time: TimestampWithTimeZone) -> Sno {
    Sno(sno_core::Sno::from_time(unix_nanos(time)).or_raise())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn sno_meta(id: Sno) -> i32 {
    id.0.meta() as i32
}

#[pg_extern(immutable, parallel_safe, strict)]
fn sno_partition(id: Sno) -> i32 {
    id.0.partition() as i32
}

#[pg_extern(immutable, parallel_safe, strict)]
fn sno_sequence(id: Sno) -> i32 {
    id.0.sequence() as i32
}

#[pg_extern(immutable, parallel_safe, strict)]
fn sno_tick_tock(id: Sno) -> bool {
    id.0.tick_tock()
}

#[pg_extern(
    immutable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION sno_parts(id sno,
    OUT "time" timestamptz, OUT tick_tock boolean, OUT meta int, OUT partition int, OUT sequence int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'sno_parts_wrapper';
"#
)]
fn sno_parts(id: Sno, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    let id = id.0;
    out_record(
        fcinfo,
        &[
            backend::timestamp(id.unix_micros()).into_datum(),
            id.tick_tock().into_datum(),
            (id.meta() as i32).into_datum(),
            (id.partition() as i32).into_datum(),
            (id.sequence() as i32).into_datum(),
        ],
    )
}

#[pg_extern(immutable, parallel_safe, strict)]
fn sno_from_parts(
    time: TimestampWithTimeZone,
    meta: i32,
    partition: i32,
    sequence: i32,
    tick_tock: default!(bool, false),
) -> Sno {
    let units = sno_core::units_at(unix_nanos(time)).or_raise();
    Sno(sno_core::Sno::from_parts(
        units,
        tick_tock,
        field("meta", meta, 255) as u8,
        field("partition", partition, 65535) as u16,
        field("sequence", sequence, 65535) as u16,
    )
    .or_raise())
}

/// The sno generator, for `pg_flake_generator_state()`.
pub fn generator_states() -> Vec<StateRow> {
    generator_state::rows("sno", &GENERATOR)
}
