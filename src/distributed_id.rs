//! SQL surface of DistributedId (`spec/distributed-id.md` §1): the type with
//! decimal text, `numeric` casts, decoding, construction, hex and the
//! per-backend reference generator.

use crate::backend;
use crate::errors::OrRaise;
use crate::fixed_type::{datum_of, flake_type, out_record, v1_function, FromBinary, OutRecord};
use crate::numeric::{integer_of, numeric_of};
use flake_core::distributed_id::{self as distributed_id_core, DistributedIdGenerator};
use flake_core::FlakeId;
use pgrx::prelude::*;
use std::cell::RefCell;

flake_type!(
    DistributedId,
    distributed_id_core::DistributedId,
    distributed_id
);

/// Twelve bytes hold up to 2^96 − 1, beyond the type's 10^28 − 1: binary
/// input and `bytea::distributed_id` reject those values (22003).
impl FromBinary for distributed_id_core::DistributedId {}

pgrx::extension_sql!(
    "CREATE TYPE distributed_id;",
    name = "distributed_id_shell",
    creates = [Type(DistributedId)]
);

thread_local! {
    static GENERATOR: RefCell<DistributedIdGenerator> =
        const { RefCell::new(DistributedIdGenerator::new()) };
}

fn unix_micros(time: TimestampWithTimeZone) -> i64 {
    backend::unix_micros(time, "distributed_id", distributed_id_core::TIME_RANGE)
}

v1_function! {
    /// `distributed_id_generate() → distributed_id`
    fn distributed_id_generate(_fcinfo) {
        let id = backend::with_random_generator(&GENERATOR, |generator, clock, random| {
            generator.generate(clock, random)
        });
        datum_of(id.bytes())
    }
}

pgrx::extension_sql!(
    r#"
CREATE FUNCTION distributed_id_generate() RETURNS distributed_id
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_generate_wrapper';
"#,
    name = "distributed_id_generate",
    requires = ["flake_types"]
);

#[pg_extern(immutable, parallel_safe, strict)]
fn distributed_id_timestamp(id: DistributedId) -> TimestampWithTimeZone {
    backend::timestamp(id.0.unix_micros())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn distributed_id_from_time(time: TimestampWithTimeZone) -> DistributedId {
    DistributedId(distributed_id_core::DistributedId::from_time(unix_micros(time)).or_raise())
}

#[pg_extern(
    immutable,
    parallel_safe,
    strict,
    sql = r#"
CREATE FUNCTION distributed_id_parts(id distributed_id, OUT "time" timestamptz, OUT random bigint)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_parts_wrapper';
"#
)]
fn distributed_id_parts(id: DistributedId, fcinfo: pg_sys::FunctionCallInfo) -> OutRecord {
    out_record(
        fcinfo,
        &[
            backend::timestamp(id.0.unix_micros()).into_datum(),
            (id.0.random() as i64).into_datum(),
        ],
    )
}

#[pg_extern(immutable, parallel_safe, strict)]
fn distributed_id_from_parts(time: TimestampWithTimeZone, random: i64) -> DistributedId {
    DistributedId(
        distributed_id_core::DistributedId::from_parts(unix_micros(time), random).or_raise(),
    )
}

#[pg_extern(immutable, parallel_safe, strict)]
fn distributed_id_to_hex(id: DistributedId) -> String {
    id.0.to_hex()
}

#[pg_extern(immutable, parallel_safe, strict)]
fn distributed_id_from_hex(hex: &str) -> DistributedId {
    DistributedId(distributed_id_core::DistributedId::from_hex(hex).or_raise())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn distributed_id_to_numeric(id: DistributedId) -> AnyNumeric {
    numeric_of(id.0.to_u128())
}

#[pg_extern(immutable, parallel_safe, strict)]
fn distributed_id_from_numeric(value: AnyNumeric) -> DistributedId {
    let integer = integer_of(
        &value,
        "distributed_id",
        distributed_id_core::MAX_VALUE,
        distributed_id_core::VALUE_RANGE,
    );
    DistributedId(distributed_id_core::DistributedId::from_u128(integer).or_raise())
}

// Assignment casts (`distributed-id.md` §1): a numeric literal goes into a
// distributed_id column, and `id::numeric` is the reference's DECIMAL(28,0).
pgrx::extension_sql!(
    r#"
CREATE CAST (distributed_id AS numeric) WITH FUNCTION distributed_id_to_numeric(distributed_id)
    AS ASSIGNMENT;
CREATE CAST (numeric AS distributed_id) WITH FUNCTION distributed_id_from_numeric(numeric)
    AS ASSIGNMENT;
"#,
    name = "distributed_id_numeric_casts",
    requires = [
        "flake_types",
        distributed_id_to_numeric,
        distributed_id_from_numeric
    ]
);
