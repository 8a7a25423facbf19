//! This server's place in a Citus cluster, read from Citus's catalog
//! without linking to Citus (docs/operations.md "Several servers"): the
//! node a server takes when `pg_flake.node` is unset.

use crate::plumbing::backend::errors::raise;
use crate::plumbing::settings::derived;
use flake_core::Error;
use pgrx::prelude::*;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// What Citus's catalog says of this database's server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CitusNode {
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
pub(super) fn citus_node() -> CitusNode {
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
    const QUERY: &str = "SELECT (SELECT groupid FROM pg_catalog.pg_dist_local_group LIMIT 1), \
                EXISTS (SELECT FROM pg_catalog.pg_dist_node)";
    // Read-only (`select`): a worker's streaming standby reads its group
    // too, to refuse with it (25006), and `Spi::get_two` would run the
    // query read-write, assigning a transaction ID, which a server in
    // recovery refuses with an internal error (as src/node/replication.rs
    // says of `Spi::get_one`).
    let row = Spi::connect(|client| {
        client
            .select(QUERY, Some(1), &[])?
            .first()
            .get_two::<i32, bool>()
    });
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
            derived::identity_changed();
        }
    }
    unsafe extern "C-unwind" fn forget_class(_arg: pg_sys::Datum, _cacheid: i32, _hash: u32) {
        CITUS.set(None);
        derived::identity_changed();
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
