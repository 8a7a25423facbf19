//! Which node this server is, for every coordination-based format (docs/operations.md
//! "Several servers"): the value in each format's node field (sno's
//! partition high byte, SIQ's node byte, Snowflake's worker, kuid96's node)
//! and where it comes from, first that applies:
//! 1. the format's own setting (0.1.0's `pg_flake.sno_node`, `siq_node`,
//!    `snowflake_worker`, `kuid_node`), where it is set;
//! 2. `pg_flake.node`, where it is set;
//! 3. inside a Citus cluster, the node's group id, which Citus's
//!    coordinator assigns once and uniquely (`pg_dist_local_group`: 0 on the
//!    coordinator, 1, 2, … on the workers), read from the catalog;
//! 4. 0.
//!
//! A server in recovery (a hot standby) would repeat its primary's
//! identity, so it generates only with a `pg_flake.node` of its own, which
//! is then its identity for every format, and only where it can show that
//! node differs from its primary's (docs/operations.md "Standbys and failover",
//! [`crate::lineage`]): pg_flake preloaded (so that its primary's marks and
//! nodes reach it), a format with a node field (never kuid64), and a node
//! other than every node its WAL line generated the format with, of which
//! it knows at least one. A node copied with the primary's
//! `postgresql.auto.conf` is therefore not "its own". A node number wider
//! than a format's field is an error that names the setting to use, never a
//! truncation.

use crate::errors::{raise, OrRaise};
use crate::settings::{
    self, Definition, Derived, FormatSetting, IntSetting, Rejection, TextSetting,
};
use crate::{lineage, wal};
use flake_core::lease::{self as lease_core, LeaseFormat, LeaseRanges, NodeRange, LEASE_FORMATS};
use flake_core::lineage::Clash;
use flake_core::{Error, ErrorKind};
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use pgrx::prelude::*;
use std::cell::Cell;
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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
        settings::identity_changed();
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
        settings::identity_changed();
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
fn lease_format(field: &str) -> Option<LeaseFormat> {
    LeaseFormat::named(field)
}

/// `pg_flake.node`, where set.
fn node_setting() -> Option<u32> {
    u32::try_from(NODE.get()).ok()
}

/// A format's own node setting and how to read the node number from it.
pub type FormatNode = (&'static FormatSetting, fn() -> u32);

/// A format's node field.
pub struct NodeField {
    /// The format, as `pg_flake_node()` shows it.
    pub format: &'static str,
    /// The field's width in bits: 0 for kuid64, which has none (its IDs
    /// stay on one server, so it refuses to generate in a Citus cluster).
    pub bits: u32,
    /// The format's own setting, and its value where set.
    pub setting: Option<FormatNode>,
    /// The node this backend last announced for the format ([`announce`](Self::announce)):
    /// the node, with bit 32 set where it was adopted in recovery;
    /// [`UNANNOUNCED`] before.
    announced: AtomicU64,
    /// The node a primary generates with, checked and announced, until a
    /// setting or Citus's catalog changes ([`generating_node`](Self::generating_node)).
    generating: Derived,
}

/// [`NodeField::announced`] before the first announcement.
const UNANNOUNCED: u64 = u64::MAX;

/// The node this backend announced for `format` (for the mark records it
/// writes), if it announced one as a primary.
pub fn announced(format: &str) -> Option<u32> {
    crate::registry::FORMATS
        .iter()
        .flat_map(|f| f.nodes.iter())
        .find(|field| field.format == format)
        .map(|field| field.announced.load(Ordering::Relaxed))
        .filter(|&a| a >> 32 == 0)
        .map(|a| a as u32)
}

/// Where a node number comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The format's own setting.
    FormatSetting(&'static str),
    Node,
    Citus,
    Default,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::FormatSetting(name) => name,
            Source::Node => "pg_flake.node",
            Source::Citus => "citus",
            Source::Default => "default",
        }
    }
}

/// The node number a format uses, and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub node: u32,
    pub source: Source,
}

impl NodeField {
    pub const fn new(format: &'static str, bits: u32, setting: Option<FormatNode>) -> Self {
        NodeField {
            format,
            bits,
            setting,
            announced: AtomicU64::new(UNANNOUNCED),
            generating: Derived::new(),
        }
    }

    /// The identity this server generates `self.format` with (docs/operations.md
    /// "Several servers"), or why it must not generate it.
    pub fn identity(&self) -> Result<Identity, Error> {
        self.identity_at(recovery_in_progress())
    }

    /// [`identity`](Self::identity) with the recovery state read once by
    /// the caller.
    fn identity_at(&self, in_recovery: bool) -> Result<Identity, Error> {
        let identity = self.resolve(in_recovery)?;
        self.check_fit(identity)?;
        if in_recovery {
            self.check_lineage(identity)?;
        }
        Ok(identity)
    }

    /// In recovery: whether `identity` (from `pg_flake.node`) can be shown
    /// to differ from every node this server's WAL line generates the
    /// format with (docs/operations.md "Standbys and failover").
    fn check_lineage(&self, identity: Identity) -> Result<(), Error> {
        let refusal = |reason: String, hint: String| {
            Error::refused(
                ErrorKind::ReadOnly,
                format!(
                    "cannot generate {} IDs on a server in recovery: {reason}",
                    self.format
                ),
                hint,
            )
        };
        if !wal::registered() {
            return Err(refusal(
                "its primary's marks and nodes do not reach it (pg_flake is not preloaded, or PostgreSQL is older than 15)".into(),
                "Preload pg_flake (shared_preload_libraries) on the primary and on this standby, then give the standby a pg_flake.node no other server uses.".into(),
            ));
        }
        let lineage = lineage::read(self.format)
            .unwrap_or_else(|e| crate::generator::marks_failed(self.format, e));
        let node = identity.node;
        match lineage.check(node) {
            Ok(()) => Ok(()),
            Err(Clash::Unknown) => Err(refusal(
                format!(
                    "the node its primary generates {} with is not known here, so node {node} (from pg_flake.node) cannot be shown to differ",
                    self.format
                ),
                format!(
                    "Generate one {} ID on the primary, or wait until its first mark is replayed here.",
                    self.format
                ),
            )),
            Err(Clash::Primary) => Err(refusal(
                format!(
                    "node {node} (from pg_flake.node) is a node its primary generates {} with (seen in the WAL or in the base backup)",
                    self.format
                ),
                "Give this standby a pg_flake.node no other server uses: ALTER SYSTEM SET pg_flake.node = N on the standby, then SELECT pg_reload_conf().".into(),
            )),
        }
    }

    /// Before this backend issues an ID of the format whose node field holds
    /// `node` (the value that goes into the ID: SIQ's byte, …): the first
    /// time with this node, a primary announces it (marks file and WAL,
    /// [`lineage::announce`]) and a server in recovery records it as its own
    /// ([`lineage::adopt`]). Otherwise one comparison.
    pub fn announce(&self, node: u32, in_recovery: bool) {
        let key = node as u64 | (in_recovery as u64) << 32;
        if self.announced.load(Ordering::Relaxed) == key {
            return;
        }
        let done = if in_recovery {
            lineage::adopt(self.format, node)
        } else {
            lineage::announce(self.format, node)
        };
        if let Err(e) = done {
            crate::generator::marks_failed(self.format, e);
        }
        self.announced.store(key, Ordering::Relaxed);
    }

    /// The node that goes into the IDs of a format whose IDs carry the
    /// identity's node as it is: [`identity_or_raise`](Self::identity_or_raise)
    /// and [`announce`](Self::announce) of its node. A primary works it out
    /// once per change of the settings or of Citus's catalog
    /// ([`settings::identity_changed`]); a server in recovery for every ID
    /// (its primary's nodes reach it by replay).
    #[inline(always)]
    pub fn generating_node(&self) -> u32 {
        if !recovery_in_progress() {
            if let Some(node) = self.generating.get() {
                return node;
            }
        }
        self.work_out_generating_node()
    }

    #[cold]
    #[inline(never)]
    fn work_out_generating_node(&self) -> u32 {
        let (identity, in_recovery) = self.identity_for_generation();
        if self.bits > 0 {
            self.announce(identity.node, in_recovery);
        }
        if !in_recovery {
            self.generating.keep(identity.node);
        }
        identity.node
    }

    /// The identity to generate with (raising the refusal), and whether the
    /// server is in recovery, for [`announce`](Self::announce): one reading
    /// of the recovery state per ID.
    pub fn identity_for_generation(&self) -> (Identity, bool) {
        let in_recovery = recovery_in_progress();
        let identity = self.identity_at(in_recovery).or_raise();
        (identity, in_recovery)
    }

    /// The identity the settings and Citus give this server, whether or not
    /// it may generate now (for functions that only use the node number,
    /// such as `kuid96_globalize(bigint)`).
    pub fn configured(&self) -> Result<Identity, Error> {
        let identity = self.resolve(false)?;
        self.check_fit(identity)?;
        Ok(identity)
    }

    /// Where the node number would come from, fitting the field or not (for
    /// `pg_flake_node()`, which shows it with the problem).
    pub fn source(&self) -> Option<Identity> {
        self.resolve(recovery_in_progress())
            .ok()
            .filter(|_| self.bits > 0)
    }

    /// The leasable format of this node field, if it is one.
    pub fn lease_format(&self) -> Option<LeaseFormat> {
        lease_format(self.format)
    }

    /// Whether `identity`'s node is reserved for application leases
    /// (docs/sql-reference.md "Leases"): a server never generates with such a node, and
    /// `pg_flake_lease` refuses while a server does.
    pub fn check_reserved(&self, identity: Identity) -> Result<(), Error> {
        let Some(format) = self.lease_format() else {
            return Ok(());
        };
        if lease_range(format).is_some_and(|r| r.contains(identity.node)) {
            return Err(lease_core::server_node_reserved(
                format,
                identity.node,
                identity.source.name(),
            ));
        }
        Ok(())
    }

    /// Whether `identity`'s node fits the field, and lies outside the
    /// range reserved for leases.
    fn check_fit(&self, identity: Identity) -> Result<(), Error> {
        if self.bits < 32 && identity.node >= 1 << self.bits {
            let setting = self.setting.map_or("pg_flake.node", |(s, _)| s.name);
            return Err(Error::NotReady {
                message: format!(
                    "node {} (from {}) does not fit the {}-bit node field of {} (0 to {})",
                    identity.node,
                    identity.source.name(),
                    self.bits,
                    self.format,
                    (1u64 << self.bits) - 1
                ),
                hint: format!(
                    "Set {setting} to a number from 0 to {} that no other server uses.",
                    (1u64 << self.bits) - 1
                ),
            });
        }
        self.check_reserved(identity)
    }

    fn resolve(&self, in_recovery: bool) -> Result<Identity, Error> {
        let citus = citus_node();
        if let CitusNode::Incomplete = citus {
            return Err(Error::NotReady {
                message: format!(
                    "cannot generate {} IDs: Citus's pg_dist_local_group holds no group id",
                    self.format
                ),
                hint:
                    "After pg_upgrade, run citus_finish_pg_upgrade() first; or set pg_flake.node."
                        .into(),
            });
        }
        if self.bits == 0 {
            return match citus {
                // A standby's kuid64 values would repeat its primary's (same
                // units, same sequence), and no node of its own goes into a
                // field to tell them apart.
                _ if in_recovery => Err(Error::refused(
                    ErrorKind::ReadOnly,
                    format!(
                        "cannot generate {} IDs on a server in recovery: it has no node field, so they could repeat its primary's",
                        self.format
                    ),
                    "Use kuid96_generate() on a standby (with a pg_flake.node of its own), or generate kuid64 on the primary.",
                )),
                CitusNode::Member(_) => Err(Error::NotReady {
                    message: format!(
                        "{} has no node field, so its IDs would repeat across the nodes of this Citus cluster",
                        self.format
                    ),
                    hint: "Use kuid96_generate() (or sno, siq, snowflake), whose IDs carry the node.".into(),
                }),
                _ => Ok(Identity {
                    node: 0,
                    source: Source::Default,
                }),
            };
        }
        let identity = if in_recovery {
            // A standby repeats its primary's settings and Citus group.
            match node_setting() {
                Some(node) => Identity {
                    node,
                    source: Source::Node,
                },
                None => return Err(self.in_recovery()),
            }
        } else if let Some((setting, value)) = self.setting.filter(|(s, _)| s.is_set()) {
            Identity {
                node: value(),
                source: Source::FormatSetting(setting.name),
            }
        } else if let Some(node) = node_setting() {
            Identity {
                node,
                source: Source::Node,
            }
        } else if let CitusNode::Member(group) = citus {
            Identity {
                node: group,
                source: Source::Citus,
            }
        } else {
            Identity {
                node: 0,
                source: Source::Default,
            }
        };
        Ok(identity)
    }

    /// Why a server in recovery without a `pg_flake.node` of its own does
    /// not generate this format.
    fn in_recovery(&self) -> Error {
        Error::refused(
            ErrorKind::ReadOnly,
            format!(
                "cannot generate {} IDs on a server in recovery",
                self.format
            ),
            "A standby has its primary's node identity, so its IDs could repeat the primary's. \
             To generate on it, give it a pg_flake.node no other server uses: ALTER SYSTEM SET pg_flake.node = N on the standby, then SELECT pg_reload_conf().",
        )
    }
}

/// Whether the server is in recovery. Once a backend has seen recovery end
/// it never sees it again (PostgreSQL keeps that in a backend-local flag
/// too), so after that no call crosses into C: this is read for every ID.
#[inline(always)]
pub fn recovery_in_progress() -> bool {
    !RECOVERY_ENDED.load(Ordering::Relaxed) && read_recovery_state()
}

/// Whether this backend has seen recovery end.
static RECOVERY_ENDED: AtomicBool = AtomicBool::new(false);

#[cold]
#[inline(never)]
fn read_recovery_state() -> bool {
    // SAFETY: reads the server's recovery state (shared memory, then a
    // backend-local flag once recovery has ended).
    let in_recovery = unsafe { pg_sys::RecoveryInProgress() };
    if !in_recovery {
        RECOVERY_ENDED.store(true, Ordering::Relaxed);
    }
    in_recovery
}

// --- Citus ---------------------------------------------------------------------------

/// What Citus's catalog says of this database's server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CitusNode {
    /// No Citus here, or a server no coordinator has added (group 0 and no
    /// nodes known): it is a server of its own.
    Absent,
    /// A node of a Citus cluster, with its group id.
    Member(u32),
    /// Citus's catalog is there but holds no group id (between pg_upgrade
    /// and citus_finish_pg_upgrade()).
    Incomplete,
}

/// A reading of Citus's catalog and the relations it came from.
#[derive(Debug, Clone, Copy)]
struct CitusReading {
    node: CitusNode,
    relids: [pg_sys::Oid; 2],
}

thread_local! {
    /// This backend's reading of Citus's catalog, until an invalidation.
    static CITUS: Cell<Option<CitusReading>> = const { Cell::new(None) };
}

/// This server's place in a Citus cluster, read once per backend and again
/// after Citus changes it: Citus invalidates the relcache entries of
/// `pg_dist_local_group` and `pg_dist_node` when it changes them (on a
/// worker, when the coordinator activates it), and `CREATE EXTENSION citus`
/// changes `pg_class`.
fn citus_node() -> CitusNode {
    if let Some(known) = CITUS.get() {
        return known.node;
    }
    register_invalidation();
    let reading = read_citus_node();
    CITUS.set(Some(reading));
    reading.node
}

/// The relid of a relation in pg_catalog (InvalidOid if there is none).
fn catalog_relid(name: &std::ffi::CStr) -> pg_sys::Oid {
    // SAFETY: a catalog lookup by name.
    unsafe {
        pg_sys::get_relname_relid(
            name.as_ptr(),
            pg_sys::Oid::from(pg_sys::PG_CATALOG_NAMESPACE),
        )
    }
}

fn read_citus_node() -> CitusReading {
    let relids = [
        catalog_relid(c"pg_dist_local_group"),
        catalog_relid(c"pg_dist_node"),
    ];
    if relids.contains(&pg_sys::InvalidOid) {
        return CitusReading {
            node: CitusNode::Absent,
            relids,
        };
    }
    CitusReading {
        node: read_group(),
        relids,
    }
}

/// This node's group id, and whether the coordinator knows other nodes.
fn read_group() -> CitusNode {
    let row = Spi::get_two::<i32, bool>(
        "SELECT (SELECT groupid FROM pg_catalog.pg_dist_local_group LIMIT 1), \
                EXISTS (SELECT FROM pg_catalog.pg_dist_node)",
    );
    match row {
        Ok((Some(group), Some(has_nodes))) if group > 0 || has_nodes => {
            CitusNode::Member(group.max(0) as u32)
        }
        Ok((Some(_), _)) => CitusNode::Absent,
        Ok((None, _)) => CitusNode::Incomplete,
        Err(e) => raise(Error::NotReady {
            message: format!("cannot read Citus's node identity: {e}"),
            hint: "Set pg_flake.node on every node instead.".into(),
        }),
    }
}

fn register_invalidation() {
    static REGISTERED: AtomicBool = AtomicBool::new(false);
    if REGISTERED.swap(true, Ordering::Relaxed) {
        return;
    }
    unsafe extern "C-unwind" fn forget_relation(_arg: pg_sys::Datum, relid: pg_sys::Oid) {
        let concerned = CITUS
            .get()
            .is_some_and(|r| relid == pg_sys::InvalidOid || r.relids.contains(&relid));
        if concerned {
            CITUS.set(None);
            settings::identity_changed();
        }
    }
    unsafe extern "C-unwind" fn forget_class(_arg: pg_sys::Datum, _cacheid: i32, _hash: u32) {
        CITUS.set(None);
        settings::identity_changed();
    }
    // SAFETY: registers backend-local callbacks that only clear a cache.
    // Citus invalidates its catalog relations' relcache entries when it
    // changes them; any change to pg_class (CREATE EXTENSION citus) may
    // make them appear.
    unsafe {
        pg_sys::CacheRegisterRelcacheCallback(Some(forget_relation), pg_sys::Datum::from(0usize));
        pg_sys::CacheRegisterSyscacheCallback(
            pg_sys::SysCacheIdentifier::RELNAMENSP as i32,
            Some(forget_class),
            pg_sys::Datum::from(0usize),
        );
    }
}
