//! SQL surface of the k-ordered uid (docs/formats/kuid.md): kuid64 on
//! `bigint`, the type `kuid96` (its SQL in `sql/kuid.sql`), node
//! fingerprints, both generators and their settings.
//!
//! Every kuid96 function with an `interval` argument also exists without it,
//! reading `pg_flake.kuid_interval` instead (and `kuid96_globalize` without
//! `node` reads `pg_flake.kuid_node`): the form with every argument is
//! `IMMUTABLE` (usable in expression indexes), the others `STABLE`.

use super::format::Format;
use crate::generation::Generator;
use crate::node::NodeField;
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::fmgr::c_function::{c_function, sql_file, Call};
use crate::plumbing::fmgr::native_type::{native_type, FromBinary};
use crate::plumbing::fmgr::record::{column, out_record};
use crate::plumbing::fmgr::timestamptz;
use crate::plumbing::settings::{self, Definition, FormatSetting, Plain, TextSetting};
use flake_core::error::field_in_range;
use flake_core::kuid::{self as kuid_core, Kuid64Generator, Kuid96Generator};
use flake_core::FlakeId;
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use pgrx::prelude::*;
use std::ffi::CString;
use std::sync::atomic::{AtomicU32, Ordering};

native_type!(
    Kuid96,
    kuid_core::Kuid96,
    kuid96,
    [
        kuid96_in_wrapper,
        kuid96_out_wrapper,
        kuid96_recv_wrapper,
        kuid96_send_wrapper,
        kuid96_eq_wrapper,
        kuid96_ne_wrapper,
        kuid96_lt_wrapper,
        kuid96_le_wrapper,
        kuid96_gt_wrapper,
        kuid96_ge_wrapper,
        kuid96_cmp_wrapper,
        kuid96_smaller_wrapper,
        kuid96_larger_wrapper,
        kuid96_hash_wrapper,
        kuid96_hash_extended_wrapper,
        kuid96_sortsupport_wrapper,
        kuid96_minmax_multi_distance_wrapper,
        kuid96_skipsupport_wrapper,
        kuid96_to_bytea_wrapper,
        kuid96_from_bytea_wrapper,
    ]
);

impl FromBinary for kuid_core::Kuid96 {}

sql_file!(
    "../../sql/kuid.sql",
    name = "kuid",
    creates = [Type(Kuid96)],
    requires = ["snowflake"]
);

pub static KUID64_GENERATOR: Generator<Kuid64Generator> = Generator::new(&KUID64_NODE);
pub static KUID96_GENERATOR: Generator<Kuid96Generator> = Generator::new(&KUID96_NODE);

/// The formats' names, as their SQL types (kuid96; kuid64 is a bigint),
/// marks files and settings say them.
const KUID64: &str = "kuid64";
const KUID96: &str = <kuid_core::Kuid96 as FlakeId>::TYPE_NAME;

pub static FORMAT: Format = Format {
    name: "kuid",
    init: define_settings,
    generators: &[&KUID64_GENERATOR, &KUID96_GENERATOR],
    nodes: &[&KUID64_NODE, &KUID96_NODE],
    generate: &["kuid64_generate()", "kuid96_generate()"],
};

/// kuid64 has no node field: its IDs are for one server (docs/operations.md "Several
/// servers"), and it refuses to generate in a Citus cluster.
pub static KUID64_NODE: NodeField = NodeField::new(KUID64, 0, None);

/// kuid96's 32-bit node: the fingerprint of `pg_flake.kuid_node` where it is
/// set, else the node number itself (docs/operations.md "Several servers").
pub static KUID96_NODE: NodeField = NodeField::new(
    KUID96,
    32,
    Some((&KUID_NODE_SET, || {
        KUID_NODE_FINGERPRINT.load(Ordering::Relaxed)
    })),
);

// --- settings ------------------------------------------------------------------

static KUID_NODE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));
static KUID_INTERVAL: GucSetting<i32> = GucSetting::<i32>::new(kuid_core::DEFAULT_INTERVAL as i32);

/// Fingerprint of `pg_flake.kuid_node`, computed when the setting changes.
static KUID_NODE_FINGERPRINT: AtomicU32 = AtomicU32::new(0);
static KUID_NODE_SET: FormatSetting = FormatSetting::new("pg_flake.kuid_node");

/// The node of generated kuid96s.
fn node_setting() -> u32 {
    KUID96_GENERATOR.generating_node()
}

/// `pg_flake.kuid_interval`, which the setting keeps within 5–10.
fn interval_setting() -> u32 {
    settings::int_value(&KUID_INTERVAL) as u32
}

/// `pg_flake.kuid_node`: a name whose fingerprint is the node.
struct NodeNameSetting;

impl TextSetting for NodeNameSetting {
    fn assign(text: &[u8]) {
        let name = String::from_utf8_lossy(text);
        KUID_NODE_FINGERPRINT.store(kuid_core::node_fingerprint(&name), Ordering::Relaxed);
    }

    fn tracked() -> Option<&'static FormatSetting> {
        Some(&KUID_NODE_SET)
    }
}

fn define_settings() {
    settings::define_text::<NodeNameSetting>(
        Definition {
            name: c"pg_flake.kuid_node",
            short: c"This server's node name: its fingerprint goes into generated kuid96 values.",
            long:
                c"Overrides pg_flake.node for kuid96 where set: its fingerprint is the node field.",
            context: GucContext::Suset,
            flags: GucFlags::default(),
        },
        &KUID_NODE,
    );
    settings::define_int::<Plain>(
        Definition {
            name: c"pg_flake.kuid_interval",
            short: c"kuid96 neighborhood interval I: the node sits above the low I bits of the seconds.",
            long: c"Every reader must use the interval the value was generated with (5-10).",
            // Superuser-only: the interval moves the boundary between time and
            // node bits, so kuid96 values generated under two intervals can
            // collide in one table (docs/sql-reference.md "Settings"); the functions take an
            // explicit interval argument for every role.
            context: GucContext::Suset,
            flags: GucFlags::default(),
        },
        &KUID_INTERVAL,
        kuid_core::MIN_INTERVAL as i32,
        kuid_core::MAX_INTERVAL as i32,
    );
}

// --- functions -----------------------------------------------------------------

fn kuid64_micros(time: TimestampWithTimeZone) -> i64 {
    timestamptz::unix_micros(time, KUID64, kuid_core::KUID64_TIME_RANGE)
}

fn kuid96_micros(time: TimestampWithTimeZone) -> i64 {
    timestamptz::unix_micros(time, KUID96, kuid_core::KUID96_TIME_RANGE)
}

/// An interval argument: 5–10, else 22023.
fn interval_arg(interval: i32) -> u32 {
    kuid_core::check_interval(interval).or_raise()
}

/// A node argument: a 32-bit fingerprint, else 22003.
fn node_arg(node: i64) -> u32 {
    field_in_range(KUID96, "node", node as i128, 0, u32::MAX as i128).or_raise() as u32
}

// --- kuid64 ---------------------------------------------------------------------

c_function! {
    /// `kuid64_generate() → bigint`
    kuid64_generate_wrapper,
    |_call| {
        KUID64_GENERATOR.generating_node();
        pg_sys::Datum::from(KUID64_GENERATOR.generate(|generator, clock, limits| generator.try_generate(clock, limits)))
    }
}

#[doc(alias = "kuid64_encode_wrapper")]
#[pg_extern(sql = false)]
fn kuid64_encode(kuid64: i64) -> String {
    kuid_core::kuid64_encode(kuid64).or_raise()
}

#[doc(alias = "kuid64_decode_wrapper")]
#[pg_extern(sql = false)]
fn kuid64_decode(text: &str) -> i64 {
    kuid_core::kuid64_decode(text).or_raise()
}

#[doc(alias = "kuid64_timestamp_wrapper")]
#[pg_extern(sql = false)]
fn kuid64_timestamp(kuid64: i64) -> TimestampWithTimeZone {
    timestamptz::timestamp(kuid_core::kuid64_timestamp(kuid64).or_raise())
}

#[doc(alias = "kuid64_from_time_wrapper")]
#[pg_extern(sql = false)]
fn kuid64_from_time(time: TimestampWithTimeZone) -> i64 {
    kuid_core::kuid64_from_time(kuid64_micros(time)).or_raise()
}

c_function! {
    kuid64_parts_wrapper,
    |call| {
        let p = kuid_core::kuid64_parts(call.value(0)).or_raise();
        out_record(
            call,
            &[
                column("time", timestamptz::timestamp(p.time)),
                column("megaseconds", p.megaseconds as i32),
                column("seconds", p.seconds as i32),
                column("microseconds", p.microseconds as i32),
                column("seq", p.seq as i32),
            ],
        )
    }
}

#[doc(alias = "kuid64_from_parts_wrapper")]
#[pg_extern(sql = false)]
fn kuid64_from_parts(time: TimestampWithTimeZone, seq: i32) -> i64 {
    kuid_core::kuid64_from_parts(kuid64_micros(time), seq as i64).or_raise()
}

// --- kuid96 ---------------------------------------------------------------------

#[doc(alias = "kuid_node_fingerprint_wrapper")]
#[pg_extern(sql = false)]
fn kuid_node_fingerprint(name: &str) -> i64 {
    kuid_core::node_fingerprint(name) as i64
}

c_function! {
    /// `kuid96_generate() → kuid96`
    kuid96_generate_wrapper,
    |_call| {
        let node = node_setting();
        let interval = interval_setting();
        KUID96_GENERATOR.generate_datum::<kuid_core::Kuid96>(|generator, clock, limits| generator.try_generate_key(clock, limits, node, interval))
    }
}

#[doc(alias = "kuid96_timestamp_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_timestamp(id: Kuid96, interval: i32) -> TimestampWithTimeZone {
    timestamptz::timestamp(id.0.timestamp(interval_arg(interval)).or_raise())
}

#[doc(alias = "kuid96_timestamp_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_timestamp_at_setting(id: Kuid96) -> TimestampWithTimeZone {
    timestamptz::timestamp(id.0.timestamp(interval_setting()).or_raise())
}

#[doc(alias = "kuid96_node_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_node(id: Kuid96, interval: i32) -> i64 {
    id.0.node(interval_arg(interval)).or_raise() as i64
}

#[doc(alias = "kuid96_node_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_node_at_setting(id: Kuid96) -> i64 {
    id.0.node(interval_setting()).or_raise() as i64
}

/// The row of `kuid96_parts`.
fn kuid96_parts_record(call: Call<'_>, interval: u32) -> pg_sys::Datum {
    let Kuid96(id) = call.value(0);
    let p = id.parts(interval).or_raise();
    out_record(
        call,
        &[
            column("time", timestamptz::timestamp(p.time)),
            column("node", p.node as i64),
            column("seq", p.seq as i32),
        ],
    )
}

c_function! {
    kuid96_parts_wrapper,
    |call| {
        let interval = interval_arg(call.value(1));
        kuid96_parts_record(call, interval)
    }
}

c_function! {
    kuid96_parts_at_setting_wrapper,
    |call| {
        kuid96_parts_record(call, interval_setting())
    }
}

fn from_parts(time: TimestampWithTimeZone, node: u32, seq: i32, interval: u32) -> Kuid96 {
    Kuid96(
        kuid_core::Kuid96::from_parts(kuid96_micros(time), node, seq as i64, interval).or_raise(),
    )
}

#[doc(alias = "kuid96_from_parts_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_from_parts(time: TimestampWithTimeZone, node: i64, seq: i32, interval: i32) -> Kuid96 {
    from_parts(time, node_arg(node), seq, interval_arg(interval))
}

#[doc(alias = "kuid96_from_parts_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_from_parts_at_setting(time: TimestampWithTimeZone, node: i64, seq: i32) -> Kuid96 {
    from_parts(time, node_arg(node), seq, interval_setting())
}

#[doc(alias = "kuid96_from_time_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_from_time(time: TimestampWithTimeZone, interval: i32) -> Kuid96 {
    from_parts(time, 0, 0, interval_arg(interval))
}

#[doc(alias = "kuid96_from_time_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_from_time_at_setting(time: TimestampWithTimeZone) -> Kuid96 {
    from_parts(time, 0, 0, interval_setting())
}

fn globalize(kuid64: i64, node: u32, interval: u32) -> Kuid96 {
    Kuid96(kuid_core::Kuid96::globalize(kuid64, node, interval).or_raise())
}

#[doc(alias = "kuid96_globalize_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_globalize(kuid64: i64, node: i64, interval: i32) -> Kuid96 {
    globalize(kuid64, node_arg(node), interval_arg(interval))
}

#[doc(alias = "kuid96_globalize_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_globalize_at_setting(kuid64: i64, node: i64) -> Kuid96 {
    globalize(kuid64, node_arg(node), interval_setting())
}

#[doc(alias = "kuid96_globalize_here_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_globalize_here(kuid64: i64) -> Kuid96 {
    let node = KUID96_NODE.configured().or_raise().node;
    globalize(kuid64, node, interval_setting())
}

#[doc(alias = "kuid96_localize_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_localize(id: Kuid96, interval: i32) -> i64 {
    id.0.localize(interval_arg(interval)).or_raise()
}

#[doc(alias = "kuid96_localize_at_setting_wrapper")]
#[pg_extern(sql = false)]
fn kuid96_localize_at_setting(id: Kuid96) -> i64 {
    id.0.localize(interval_setting()).or_raise()
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use crate::plumbing::pg_test_support::text_of;
    use pgrx::prelude::*;

    #[pg_test]
    fn kuid96_readme_example() {
        let text = text_of(
            "SELECT kuid96_globalize(27084864703004673, kuid_node_fingerprint('uid@127.0.0.1'), 5)::text",
        );
        assert_eq!(text.as_deref(), Some(".5.tXa0xODNvPN.0"));
    }

    #[pg_test(error = "kuid interval 4 is outside 5 to 10")]
    fn kuid96_rejects_a_bad_interval() {
        Spi::run("SELECT kuid96_timestamp('.5.tXa0xODNvPN.0', 4)").unwrap();
    }
}
