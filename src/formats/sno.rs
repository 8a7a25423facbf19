//! SQL surface of `sno` (docs/formats/sno.md): the type (its SQL in
//! `sql/sno.sql`), decoding, construction, the generator and its
//! setting.

use super::format::Format;
use crate::generation::Generator;
use crate::node::format_setting::format_node_setting;
use crate::node::NodeField;
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::fmgr::c_function::{c_function, sql_file};
use crate::plumbing::fmgr::native_type::{native_type, FromBinary};
use crate::plumbing::fmgr::record::{column, out_record};
use crate::plumbing::fmgr::timestamptz;
use flake_core::error::field_in_range;
use flake_core::sno::{self as sno_core, SnoGenerator};
use flake_core::FlakeId;
use pgrx::prelude::*;

native_type!(
    Sno,
    sno_core::Sno,
    sno,
    [
        sno_in_wrapper,
        sno_out_wrapper,
        sno_recv_wrapper,
        sno_send_wrapper,
        sno_eq_wrapper,
        sno_ne_wrapper,
        sno_lt_wrapper,
        sno_le_wrapper,
        sno_gt_wrapper,
        sno_ge_wrapper,
        sno_cmp_wrapper,
        sno_smaller_wrapper,
        sno_larger_wrapper,
        sno_hash_wrapper,
        sno_hash_extended_wrapper,
        sno_sortsupport_wrapper,
        sno_minmax_multi_distance_wrapper,
        sno_skipsupport_wrapper,
        sno_to_bytea_wrapper,
        sno_from_bytea_wrapper,
    ]
);

impl FromBinary for sno_core::Sno {}

sql_file!("../../sql/sno.sql", name = "sno", creates = [Type(Sno)]);

/// The format's name, as its SQL type, marks file and settings say it.
const NAME: &str = <sno_core::Sno as FlakeId>::TYPE_NAME;

pub static FORMAT: Format = Format {
    name: NAME,
    init: || SNO_NODE.define(),
    generators: &[&GENERATOR],
    nodes: &[&NODE],
    generate: &["sno_generate()"],
};

pub static GENERATOR: Generator<SnoGenerator> = Generator::new(&NODE);

/// The partition's high byte: this server's node (docs/operations.md "Several servers").
pub static NODE: NodeField = NodeField::new(NAME, 8, Some(SNO_NODE.field()));

format_node_setting! {
    /// `pg_flake.sno_node`, which overrides `pg_flake.node` where set.
    static SNO_NODE = "pg_flake.sno_node", max 255,
    "High byte of the sno partition: this server's node number.",
    "Overrides pg_flake.node for sno where set (0-255).",
}

fn field(name: &'static str, value: i32, max: i128) -> i128 {
    field_in_range(NAME, name, value as i128, 0, max).or_raise()
}

fn unix_nanos(time: TimestampWithTimeZone) -> i128 {
    timestamptz::unix_micros(time, NAME, sno_core::TIME_RANGE) as i128 * 1000
}

c_function! {
    /// `sno_generate(meta int DEFAULT 0) → sno`
    sno_generate_wrapper,
    |call| {
        let meta = call.datum(0).value() as i32;
        let meta = field("meta", meta, 255) as u8;
        let node = GENERATOR.generating_node() as u8;
        GENERATOR.generate_datum::<sno_core::Sno>(|generator, clock, limits| generator.try_generate_key(clock, limits, node, meta))
    }
}

c_function! {
    /// Cannot fail: LEAKPROOF in `sql/sno.sql`.
    sno_timestamp_wrapper,
    |call| {
        let Sno(id) = call.value(0);
        timestamptz::timestamp(id.unix_micros()).into_datum().unwrap_or(pg_sys::Datum::from(0usize))
    }
}

#[doc(alias = "sno_from_time_wrapper")]
#[pg_extern(sql = false)]
fn sno_from_time(time: TimestampWithTimeZone) -> Sno {
    Sno(sno_core::Sno::from_time(unix_nanos(time)).or_raise())
}

#[doc(alias = "sno_meta_wrapper")]
#[pg_extern(sql = false)]
fn sno_meta(id: Sno) -> i32 {
    id.0.meta() as i32
}

#[doc(alias = "sno_partition_wrapper")]
#[pg_extern(sql = false)]
fn sno_partition(id: Sno) -> i32 {
    id.0.partition() as i32
}

#[doc(alias = "sno_sequence_wrapper")]
#[pg_extern(sql = false)]
fn sno_sequence(id: Sno) -> i32 {
    id.0.sequence() as i32
}

#[doc(alias = "sno_tick_tock_wrapper")]
#[pg_extern(sql = false)]
fn sno_tick_tock(id: Sno) -> bool {
    id.0.tick_tock()
}

c_function! {
    sno_parts_wrapper,
    |call| {
        let Sno(id) = call.value(0);
        out_record(
            call,
            &[
                column("time", timestamptz::timestamp(id.unix_micros())),
                column("tick_tock", id.tick_tock()),
                column("meta", id.meta() as i32),
                column("partition", id.partition() as i32),
                column("sequence", id.sequence() as i32),
            ],
        )
    }
}

#[doc(alias = "sno_from_parts_wrapper")]
#[pg_extern(sql = false)]
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

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use crate::plumbing::pg_test_support::{increases_within_a_statement, text_of};
    use pgrx::prelude::*;

    #[pg_test]
    fn sno_text_round_trip() {
        assert_eq!(
            text_of("SELECT 'brpk4q72xwf2m63l'::sno::text").as_deref(),
            Some("brpk4q72xwf2m63l")
        );
    }

    #[pg_test]
    fn sno_generate_is_increasing_within_a_backend() {
        assert!(increases_within_a_statement("sno_generate()"));
    }

    #[pg_test(error = "invalid input syntax for type sno: \"abc\"")]
    fn sno_rejects_bad_text() {
        Spi::run("SELECT 'abc'::sno").unwrap();
    }
}
