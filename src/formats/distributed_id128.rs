//! SQL surface of DistributedId128 (docs/formats/distributed_id128.md) on the
//! built-in `uuid`: decoding, construction, the 128-bit integer as `numeric`
//! and the per-backend reference generator.

use super::format::Format;
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::backend::random::with_random_generator;
use crate::plumbing::fmgr::c_function::{c_function, sql_file};
use crate::plumbing::fmgr::native_type::datum_of;
use crate::plumbing::fmgr::numeric::{integer_of, numeric_of};
use crate::plumbing::fmgr::record::{column, out_record};
use crate::plumbing::fmgr::timestamptz;
use flake_core::distributed_id128::{self as core128, DistributedId128, DistributedId128Generator};
use pgrx::datum::Uuid;
use pgrx::prelude::*;
use std::cell::RefCell;

sql_file!(
    "../../sql/distributed_id128.sql",
    name = "distributed_id128",
    requires = ["distributed_id"]
);

/// The `random` argument of `distributed_id128_from_parts`: 75 bits.
const RANDOM_RANGE: &str = "0 to 37778931862957161709567 (2^75 - 1) for the random field";

pub static FORMAT: Format = Format {
    generate: &["distributed_id128_generate()"],
    ..Format::named("distributed_id128")
};

thread_local! {
    static GENERATOR: RefCell<DistributedId128Generator> =
        const { RefCell::new(DistributedId128Generator::new()) };
}

pub fn id128(uuid: Uuid) -> DistributedId128 {
    DistributedId128::from_bytes(*uuid.as_bytes())
}

pub fn uuid(id: DistributedId128) -> Uuid {
    Uuid::from_bytes(id.to_bytes())
}

fn unix_micros(time: TimestampWithTimeZone) -> i64 {
    timestamptz::unix_micros(time, "distributed_id128", core128::TIME_RANGE)
}

c_function! {
    /// `distributed_id128_generate() → uuid`
    distributed_id128_generate_wrapper,
    |_call| {
        let id = with_random_generator(&GENERATOR, |generator, clock, random| {
            generator.generate(clock, random)
        });
        datum_of(&id.to_bytes())
    }
}

c_function! {
    /// Cannot fail: LEAKPROOF in `sql/distributed_id128.sql`.
    distributed_id128_timestamp_wrapper,
    |call| {
        let id = id128(call.value(0));
        timestamptz::timestamp(id.unix_micros()).into_datum().unwrap_or(pg_sys::Datum::from(0usize))
    }
}

#[doc(alias = "distributed_id128_from_time_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id128_from_time(time: TimestampWithTimeZone) -> Uuid {
    uuid(DistributedId128::from_time(unix_micros(time)).or_raise())
}

c_function! {
    distributed_id128_parts_wrapper,
    |call| {
        let id = id128(call.value(0));
        out_record(
            call,
            &[
                column("time", timestamptz::timestamp(id.unix_micros())),
                column("random", numeric_of(id.random())),
            ],
        )
    }
}

#[doc(alias = "distributed_id128_from_parts_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id128_from_parts(time: TimestampWithTimeZone, random: AnyNumeric) -> Uuid {
    let random = integer_of(
        &random,
        "distributed_id128",
        core128::MAX_RANDOM,
        RANDOM_RANGE,
    );
    // At most 2^75 − 1, so it is an i128.
    uuid(DistributedId128::from_parts(unix_micros(time), random as i128).or_raise())
}

#[doc(alias = "distributed_id128_to_numeric_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id128_to_numeric(id: Uuid) -> AnyNumeric {
    numeric_of(id128(id).to_u128())
}

#[doc(alias = "distributed_id128_from_numeric_wrapper")]
#[pg_extern(sql = false)]
fn distributed_id128_from_numeric(value: AnyNumeric) -> Uuid {
    uuid(DistributedId128::from_u128(integer_of(
        &value,
        "uuid",
        u128::MAX,
        core128::VALUE_RANGE,
    )))
}
