//! SQL surface of DistributedId (docs/formats/distributed_id.md): the type
//! (its SQL in `sql/distributed_id.sql`) with decimal text, `numeric`
//! casts, decoding, construction, hex and the per-backend reference
//! generator.

use super::format::Format;
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::backend::random::with_random_generator;
use crate::plumbing::fmgr::c_function::{c_function, sql_file};
use crate::plumbing::fmgr::native_type::{datum_of, native_type, FromBinary};
use crate::plumbing::fmgr::numeric::{integer_of, numeric_of};
use crate::plumbing::fmgr::record::{column, out_record};
use crate::plumbing::fmgr::timestamptz;
use flake_core::distributed_id::{self as distributed_id_core, DistributedIdGenerator};
use flake_core::FlakeId;
use pgrx::prelude::*;
use std::cell::RefCell;

native_type!(
    DistributedId,
    distributed_id_core::DistributedId,
    distributed_id,
    [
        distributed_id_in_wrapper,
        distributed_id_out_wrapper,
        distributed_id_recv_wrapper,
        distributed_id_send_wrapper,
        distributed_id_eq_wrapper,
        distributed_id_ne_wrapper,
        distributed_id_lt_wrapper,
        distributed_id_le_wrapper,
        distributed_id_gt_wrapper,
        distributed_id_ge_wrapper,
        distributed_id_cmp_wrapper,
        distributed_id_smaller_wrapper,
        distributed_id_larger_wrapper,
        distributed_id_hash_wrapper,
        distributed_id_hash_extended_wrapper,
        distributed_id_sortsupport_wrapper,
        distributed_id_minmax_multi_distance_wrapper,
        distributed_id_skipsupport_wrapper,
        distributed_id_to_bytea_wrapper,
        distributed_id_from_bytea_wrapper,
    ]
);

/// Twelve bytes hold up to 2^96 − 1, beyond the type's 10^28 − 1: binary
/// input and `bytea::distributed_id` reject those values (22003).
impl FromBinary for distributed_id_core::DistributedId {}

sql_file!(
    "../../sql/distributed_id.sql",
    name = "distributed_id",
    creates = [Type(DistributedId)],
    requires = ["kuid"]
);

pub static FORMAT: Format = Format {
    generate: &["distributed_id_generate()"],
    ..Format::named("distributed_id")
};

thread_local! {
    static GENERATOR: RefCell<DistributedIdGenerator> =
        const { RefCell::new(DistributedIdGenerator::new()) };
}

fn unix_micros(time: TimestampWithTimeZone) -> i64 {
    timestamptz::unix_micros(time, "distributed_id", distributed_id_core::TIME_RANGE)
}

c_function! {
    /// `distributed_id_generate() → distributed_id`
    distributed_id_generate_wrapper,
    |_call| {
        let id = with_random_generator(&GENERATOR, |generator, clock, random| {
            generator.generate(clock, random)
        });
        datum_of(id.bytes())
    }
}

c_function! {
    /// Cannot fail: LEAKPROOF in `sql/distributed_id.sql`.
    distributed_id_timestamp_wrapper,
    |call| {
        let DistributedId(id) = call.value(0);
        timestamptz::timestamp(id.unix_micros()).into_datum().unwrap_or(pg_sys::Datum::from(0usize))
    }
}

#[doc(alias = "distributed_id_from_time_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id_from_time(time: TimestampWithTimeZone) -> DistributedId {
    DistributedId(distributed_id_core::DistributedId::from_time(unix_micros(time)).or_raise())
}

c_function! {
    distributed_id_parts_wrapper,
    |call| {
        let DistributedId(id) = call.value(0);
        out_record(
            call,
            &[
                column("time", timestamptz::timestamp(id.unix_micros())),
                column("random", id.random() as i64),
            ],
        )
    }
}

#[doc(alias = "distributed_id_from_parts_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id_from_parts(time: TimestampWithTimeZone, random: i64) -> DistributedId {
    DistributedId(
        distributed_id_core::DistributedId::from_parts(unix_micros(time), random).or_raise(),
    )
}

#[doc(alias = "distributed_id_to_hex_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id_to_hex(id: DistributedId) -> String {
    id.0.to_hex()
}

#[doc(alias = "distributed_id_from_hex_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id_from_hex(hex: &str) -> DistributedId {
    DistributedId(distributed_id_core::DistributedId::from_hex(hex).or_raise())
}

#[doc(alias = "distributed_id_to_numeric_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id_to_numeric(id: DistributedId) -> AnyNumeric {
    numeric_of(id.0.to_u128())
}

#[doc(alias = "distributed_id_from_numeric_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id_from_numeric(value: AnyNumeric) -> DistributedId {
    let integer = integer_of(
        &value,
        "distributed_id",
        distributed_id_core::MAX_VALUE,
        distributed_id_core::VALUE_RANGE,
    );
    DistributedId(distributed_id_core::DistributedId::from_u128(integer).or_raise())
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use crate::plumbing::pg_test_support::increases_within_a_statement;
    use pgrx::prelude::*;

    #[pg_test]
    fn distributed_id_generate_is_increasing_within_a_backend() {
        assert!(increases_within_a_statement("distributed_id_generate()"));
    }
}
