//! SQL surface of Flax ID (docs/formats/flaxid.md): the type (its SQL in
//! `sql/flaxid.sql`), decoding, construction and generation from the
//! backend's CSPRNG.

use super::format::Format;
use crate::plumbing::backend::clock::BackendClock;
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::backend::random::with_random;
use crate::plumbing::fmgr::c_function::{c_function, sql_file};
use crate::plumbing::fmgr::native_type::{datum_of, native_type, FromBinary};
use crate::plumbing::fmgr::record::{column, out_record};
use crate::plumbing::fmgr::timestamptz;
use flake_core::flaxid::{self as flaxid_core, FlaxIdGenerator};
use flake_core::FlakeId;
use pgrx::prelude::*;

native_type!(
    FlaxId,
    flaxid_core::FlaxId,
    flaxid,
    [
        flaxid_in_wrapper,
        flaxid_out_wrapper,
        flaxid_recv_wrapper,
        flaxid_send_wrapper,
        flaxid_eq_wrapper,
        flaxid_ne_wrapper,
        flaxid_lt_wrapper,
        flaxid_le_wrapper,
        flaxid_gt_wrapper,
        flaxid_ge_wrapper,
        flaxid_cmp_wrapper,
        flaxid_smaller_wrapper,
        flaxid_larger_wrapper,
        flaxid_hash_wrapper,
        flaxid_hash_extended_wrapper,
        flaxid_sortsupport_wrapper,
        flaxid_minmax_multi_distance_wrapper,
        flaxid_skipsupport_wrapper,
        flaxid_to_bytea_wrapper,
        flaxid_from_bytea_wrapper,
    ]
);

impl FromBinary for flaxid_core::FlaxId {}

sql_file!(
    "../../sql/flaxid.sql",
    name = "flaxid",
    creates = [Type(FlaxId)],
    requires = ["distributed_id128"]
);

pub static FORMAT: Format = Format {
    generate: &["flaxid_generate()"],
    ..Format::named("flaxid")
};

fn unix_micros(time: TimestampWithTimeZone) -> i64 {
    timestamptz::unix_micros(time, "flaxid", flaxid_core::TIME_RANGE)
}

c_function! {
    /// `flaxid_generate() → flaxid`
    flaxid_generate_wrapper,
    |_call| {
        let id = with_random(|random| FlaxIdGenerator::generate(&mut BackendClock::new(), random));
        datum_of(id.or_raise().bytes())
    }
}

c_function! {
    /// Cannot fail: LEAKPROOF in `sql/flaxid.sql`.
    flaxid_timestamp_wrapper,
    |call| {
        let FlaxId(id) = call.value(0);
        timestamptz::timestamp(id.unix_micros()).into_datum().unwrap_or(pg_sys::Datum::from(0usize))
    }
}

#[doc(alias = "flaxid_from_time_wrapper")]
#[pg_extern(sql = false)]
fn flaxid_from_time(time: TimestampWithTimeZone) -> FlaxId {
    FlaxId(flaxid_core::FlaxId::from_time(unix_micros(time)).or_raise())
}

c_function! {
    flaxid_parts_wrapper,
    |call| {
        let FlaxId(id) = call.value(0);
        out_record(
            call,
            &[
                column("time", timestamptz::timestamp(id.unix_micros())),
                column("random", id.random() as i64),
            ],
        )
    }
}

#[doc(alias = "flaxid_from_parts_wrapper")]
#[pg_extern(sql = false)]
fn flaxid_from_parts(time: TimestampWithTimeZone, random: i64) -> FlaxId {
    let unix_millis = unix_micros(time).div_euclid(1000);
    FlaxId(flaxid_core::FlaxId::from_parts(unix_millis, random).or_raise())
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use crate::plumbing::pg_test_support::text_of;
    use pgrx::prelude::*;

    #[pg_test]
    fn flaxid_text_round_trip() {
        assert_eq!(
            text_of("SELECT '0RdKJcxqVBiAiQr0'::flaxid::text").as_deref(),
            Some("0RdKJcxqVBiAiQr0")
        );
    }
}
