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
//! [`crate::node::lineage`]): pg_flake preloaded, here and, as a record of the
//! primary's current run replayed here shows, on the primary (so that its
//! primary's marks and nodes reach it, [`crate::marks::primary`]), a format with
//! a node field (never kuid64), a node other than every node its WAL line
//! generated the format with, of which it knows at least one, and room for
//! it among the standby's own nodes. A node copied with the primary's
//! `postgresql.auto.conf` is therefore not "its own". A node number wider
//! than a format's field is an error that names the setting to use, never a
//! truncation.

mod citus;
pub mod format_setting;
pub mod lineage;
pub mod replication;
mod setting;

use crate::marks::wal;
use crate::plumbing::settings::derived::Derived;
use crate::plumbing::settings::FormatSetting;
use citus::{citus_node, CitusNode};
use flake_core::lease::{self as lease_core, LeaseFormat};
use flake_core::lineage::Clash;
use flake_core::{Error, ErrorKind};
use pgrx::pg_sys;
pub use setting::{define_settings, lease_range};
use setting::{lease_format, node_setting};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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

    /// The node this backend announced for the format (for the mark records
    /// it writes), if it announced one as a primary.
    pub fn announced(&self) -> Option<u32> {
        let announced = self.announced.load(Ordering::Relaxed);
        (announced >> 32 == 0).then_some(announced as u32)
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
    /// format with, now and later: the primary's nodes reach it (pg_flake
    /// preloaded here, and known to be preloaded on the primary,
    /// [`crate::marks::primary`]), and recording the node as its own keeps every
    /// other of its own (docs/operations.md "Standbys and failover").
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
        let lineage =
            lineage::read(self.format).map_err(|e| crate::marks::failure(self.format, e))?;
        let node = identity.node;
        let clash = lineage.check(node);
        let primary = || {
            refusal(
                format!(
                    "node {node} (from pg_flake.node) is a node its primary generates {} with (seen in the WAL or in the base backup)",
                    self.format
                ),
                "Give this standby a pg_flake.node no other server uses: ALTER SYSTEM SET pg_flake.node = N on the standby, then SELECT pg_reload_conf().".into(),
            )
        };
        // A node known to be its primary's is refused whatever else holds;
        // anything else needs a primary known to preload pg_flake.
        if clash == Err(Clash::Primary) {
            return Err(primary());
        }
        if !crate::marks::primary::preloaded() {
            return Err(refusal(
                "no pg_flake record of its primary's current run has been replayed here, so it cannot tell that the primary preloads pg_flake (without which the primary's node changes never reach it)".into(),
                "Preload pg_flake on the primary (shared_preload_libraries, then restart it), then generate IDs of any coordination-based format on the primary: the mark record it writes within a second of generation tells this standby.".into(),
            ));
        }
        match clash {
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
            Err(Clash::Primary) => Err(primary()),
            Err(Clash::OwnFull) => Err(self.own_full(node, &lineage.own)),
        }
    }

    /// Why a standby does not generate with `node`, which would be a node
    /// of its own beyond [`flake_core::lineage::OWN_MAX`] (`own`: those it
    /// has): 55000, as the lineage would have to forget one of them.
    fn own_full(&self, node: u32, own: &[u32]) -> Error {
        let own = own
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        Error::NotReady {
            message: format!(
                "cannot generate {} IDs on a server in recovery with node {node} (from pg_flake.node): it has generated {} with {} nodes of its own ({own}), the most its lineage keeps, and a server cloned from it must know every one",
                self.format,
                self.format,
                flake_core::lineage::OWN_MAX
            ),
            hint: format!(
                "Set pg_flake.node back to one of its own nodes ({own}): ALTER SYSTEM SET pg_flake.node = N on the standby, then SELECT pg_reload_conf(); or rebuild the standby from a new base backup of its primary."
            ),
        }
    }

    /// Before this backend issues an ID of the format whose node field holds
    /// `node` (the value that goes into the ID: SIQ's byte, …): the first
    /// time with this node, a primary announces it (marks file and WAL,
    /// [`lineage::announce`]) and a server in recovery records it as its own
    /// ([`lineage::adopt`]). Otherwise one comparison.
    pub fn announce(&self, node: u32, in_recovery: bool) -> Result<(), Error> {
        let key = node as u64 | (in_recovery as u64) << 32;
        if self.announced.load(Ordering::Relaxed) == key {
            return Ok(());
        }
        // The claim first (PostgreSQL 17+ without preloading): a backend
        // whose library does not own this run's generators refuses before
        // it writes a marks file, which the owning library's backends, an
        // older release among them, read in their own layout
        // (docs/operations.md "Versions").
        crate::plumbing::shmem::attach_dynamic();
        let done = if in_recovery {
            lineage::adopt(self.format, node)
        } else {
            lineage::announce(self.format, node).map(Ok)
        };
        match done {
            Ok(Ok(())) => {}
            // Another backend recorded nodes of its own since the check.
            Ok(Err(_)) => {
                let own = lineage::read(self.format)
                    .map(|l| l.own)
                    .unwrap_or_default();
                return Err(self.own_full(node, &own));
            }
            Err(e) => return Err(crate::marks::failure(self.format, e)),
        }
        self.announced.store(key, Ordering::Relaxed);
        Ok(())
    }

    /// The node that goes into the IDs of a format whose IDs carry the
    /// identity's node as it is, or the refusal: [`identity_for_generation`](Self::identity_for_generation)
    /// and [`announce`](Self::announce) of its node (the format's generator
    /// raises the refusal, counting it: `Generator::generating_node`). A primary works it out
    /// once per change of the settings or of Citus's catalog
    /// ([`derived::identity_changed`]); a server in recovery for every ID
    /// (its primary's nodes reach it by replay).
    #[inline(always)]
    pub fn generating_node(&self) -> Result<u32, Error> {
        if !recovery_in_progress() {
            if let Some(node) = self.generating.get() {
                return Ok(node);
            }
        }
        self.work_out_generating_node()
    }

    #[cold]
    #[inline(never)]
    fn work_out_generating_node(&self) -> Result<u32, Error> {
        let (identity, in_recovery) = self.identity_for_generation()?;
        if self.bits > 0 {
            self.announce(identity.node, in_recovery)?;
        }
        if !in_recovery {
            self.generating.keep(identity.node);
        }
        Ok(identity.node)
    }

    /// The identity to generate with (or the refusal), and whether the
    /// server is in recovery, for [`announce`](Self::announce): one reading
    /// of the recovery state per ID.
    pub fn identity_for_generation(&self) -> Result<(Identity, bool), Error> {
        let in_recovery = recovery_in_progress();
        let identity = self.identity_at(in_recovery)?;
        Ok((identity, in_recovery))
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
