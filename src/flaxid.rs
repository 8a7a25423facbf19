//! SQL surface of Flax ID (`spec/flaxid.md`): the type, decoding,
//! construction and generation from the backend's CSPRNG.

use crate::backend::{self, BackendClock};
use crate::errors::OrRaise;
use crate::fixed_type::{datum_of, flake_type, out_record, v1_function, FromBinary, OutRecord};
use flake_core::flaxid::{self as flaxid_core, FlaxIdGenerator};
use flake_core::FlakeId;
use pgrx::prelude::*;

flake_type!(FlaxId, flaxid_core::FlaxId, flaxid);

impl FromBinary for flaxid_core::FlaxId {}

pgrx::extension_sql!(
    "CREATE TYPE flaxid;",
    name = "flaxid_shell",
    creates = [Type(FlaxId)]
);

fn unix_micros(time: TimestampWithTimeZone) -> i64 {
    backend::unix_micros(time, "flaxid", flaxid_core::TIME_RANGE)
}

v1_function! {
    /// `flaxid_generate() → flaxid`
    fn flaxid_generate(_fcinfo) {
        let id = backend::with_random(|random| {
            FlaxIdGenerator::generate(&mut BackendClock::new(), random)
        });
        datum_of(id.or_raise().bytes())
    }
}

pgrx::extension_sql!(
    r#"
CREATE FUNCTION flaxid_generate() RETURNS flaxid
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_generate_wrapper';
"#,
    name = "flaxid_generate",
    requires = ["flake_types"]
);

#[pg_extern(immutable, parallel_safe, strict)]
fn flaxid_timestamp(id: FlaxId) -> TimestampWithTimeZone {
    backend::timestamp(id.0.unix_micros())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn flaxid_from_time(time: TimestampWithTimeZone) -> FlaxId {
    FlaxId(flaxid_core::FlaxId::from_time(unix_micros(time)).or_raise())
}

#[pg_extern(
    immutable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION flaxid_parts(id flaxid, OUT "time" timestamptz, OUT random bigint)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_parts_wrapper';
"#
)]
fn flaxid_parts(id: FlaxId, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    out_record(
        fcinfo,
        &[
            backend::timestamp(id.0.unix_micros()).into_datum(),
            (id.0.random() as i64).into_datum(),
        ],
    )
}

#[pg_extern(immutable, parallel_safe, strict)]
fn flaxid_from_parts(time: TimestampWithTimeZone, random: i64) -> FlaxId {
    let unix_millis = unix_micros(time).div_euclid(1000);
    FlaxId(flaxid_core::FlaxId::from_parts(unix_millis, random).or_raise())
}
