//! `pg_flake.node` and `pg_flake.lease_nodes`: the settings that say which
//! node this server is and which nodes application leases keep for
//! themselves (docs/operations.md "Several servers", docs/sql-reference.md
//! "Leases").

use crate::plumbing::settings::derived;
use crate::plumbing::settings::{self, Definition, IntSetting, Rejection, TextSetting};
use flake_core::lease::{LeaseFormat, LeaseRanges, NodeRange, LEASE_FORMATS};
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};

/// `pg_flake.node`: -1 is unset.
static NODE: GucSetting<i32> = GucSetting::<i32>::new(-1);

/// Defines `pg_flake.node` and `pg_flake.lease_nodes` (from `_PG_init`).
pub fn define_settings() {
    settings::define_int::<NodeSetting>(
        Definition {
            name: c"pg_flake.node",
            short: c"This server's node number, for every format's node field (-1: unset).",
            long: c"Give every server that generates IDs its own number. Unset, a node of a Citus cluster takes its group id, any other server 0; a format's own node setting, where set, overrides it.",
            context: GucContext::Suset,
            flags: GucFlags::default(),
        },
        &NODE,
        -1,
        i32::MAX,
    );
    settings::define_text::<LeaseNodesSetting>(
        Definition {
            name: c"pg_flake.lease_nodes",
            short: c"Nodes reserved for application leases, per format (docs/sql-reference.md \"Leases\").",
            long: c"Comma-separated format=first-last, format=n or format=none; formats not named keep their default (sno and siq 255, snowflake 31, kuid96 4294967040-4294967295).",
            // Superuser-only: a role that could move the range onto a
            // server's node, or onto held leases, could make IDs collide.
            context: GucContext::Suset,
            flags: GucFlags::default(),
        },
        &LEASE_NODES,
    );
}

struct NodeSetting;

impl IntSetting for NodeSetting {
    fn assign(_node: i32) {
        derived::identity_changed();
    }
}

// --- nodes reserved for leases -------------------------------------------------------

/// `pg_flake.lease_nodes` (docs/sql-reference.md "Leases"): the nodes of each format that
/// application generators lease and servers never generate with.
static LEASE_NODES: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));

/// The reserved range of each format in [`LEASE_FORMATS`] order, parsed when
/// the setting changes (the assign hook), so that the check made for every
/// ID is two comparisons: `first << 32 | last`, [`NO_RANGE`] for `none`.
static LEASE_RANGES: [AtomicU64; 4] = [
    AtomicU64::new(pack(LeaseFormat::Sno.default_range())),
    AtomicU64::new(pack(LeaseFormat::Siq.default_range())),
    AtomicU64::new(pack(LeaseFormat::Snowflake.default_range())),
    AtomicU64::new(pack(LeaseFormat::Kuid96.default_range())),
];

/// An empty range (first > last): nothing reserved.
const NO_RANGE: u64 = 0xFFFF_FFFF_0000_0000;

const fn pack(range: NodeRange) -> u64 {
    (range.first as u64) << 32 | range.last as u64
}

fn parse_lease_nodes(text: &[u8]) -> Result<LeaseRanges, String> {
    let text = std::str::from_utf8(text).map_err(|_| "not UTF-8".to_string())?;
    LeaseRanges::parse(text).map_err(|e| e.to_string())
}

struct LeaseNodesSetting;

impl TextSetting for LeaseNodesSetting {
    fn check(text: &[u8]) -> Result<(), Rejection> {
        parse_lease_nodes(text).map(drop).map_err(Rejection::Detail)
    }

    fn assign(text: &[u8]) {
        // The check admitted only values that parse.
        let ranges = parse_lease_nodes(text).unwrap_or_default();
        for format in LEASE_FORMATS {
            let packed = ranges.range(format).map_or(NO_RANGE, pack);
            LEASE_RANGES[format.index()].store(packed, Ordering::Relaxed);
        }
        derived::identity_changed();
    }
}

/// The nodes of `format` reserved for leases, if any (from the cache the
/// assign hook keeps).
pub fn lease_range(format: LeaseFormat) -> Option<NodeRange> {
    let packed = LEASE_RANGES[format.index()].load(Ordering::Relaxed);
    let (first, last) = ((packed >> 32) as u32, packed as u32);
    (first <= last).then_some(NodeRange { first, last })
}

/// The leasable format whose node field `field` is (kuid64 has none).
pub(super) fn lease_format(field: &str) -> Option<LeaseFormat> {
    LeaseFormat::named(field)
}

/// `pg_flake.node`, where set.
pub(super) fn node_setting() -> Option<u32> {
    u32::try_from(NODE.get()).ok()
}
