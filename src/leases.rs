//! Leases of node ranges to application generators (docs/sql-reference.md "Leases"): the
//! SQL functions are plain SQL and PL/pgSQL in `sql/leases.sql`; these are
//! the helpers they call, which know what SQL cannot: the setting and the
//! server's own node for each format, the session's role, and how to wait
//! for the synchronous standbys the way marks do (src/marks/wal.rs). Named
//! for `sql/leases.sql`, whose functions it serves; the arithmetic of
//! leases and the setting's syntax are the core's `core/src/lease.rs`.

use crate::formats;
use crate::node::lease_range;
use crate::plumbing::backend::errors::{raise, OrRaise};
use crate::plumbing::fmgr::c_function::sql_file;
use crate::plumbing::settings::{self, Definition, Plain};
use flake_core::lease::{self as lease_core, LeaseFormat};
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use pgrx::prelude::*;
use pgrx::spi::Spi;

/// `pg_flake.lease_max_per_role`: the most units of one format whose
/// leases one role may hold at once; 0 is half the format's reserved units
/// (rounded up), so that no grantee can take every unit. Read by
/// `pg_flake_lease` with `current_setting`.
static MAX_PER_ROLE: GucSetting<i32> = GucSetting::<i32>::new(0);

/// Defines `pg_flake.lease_max_per_role` (from `_PG_init`).
pub fn define_settings() {
    settings::define_int::<Plain>(
        Definition {
            name: c"pg_flake.lease_max_per_role",
            short: c"The most units of one format a role may hold leases of at once (0: half the format's reserved units).",
            long: c"pg_flake_lease refuses (53400) a role that holds this many units of the format already, counting every unit whose newest lease it took and whose window has not ended (docs/sql-reference.md \"Leases\").",
            // Superuser-only: a grantee that could raise it could take
            // every unit.
            context: GucContext::Suset,
            flags: GucFlags::default(),
        },
        &MAX_PER_ROLE,
        0,
        i32::MAX,
    );
}

/// `pg_flake_lease_range(format) → (first_node, last_node, processes)`:
/// the nodes of `format` that `pg_flake.lease_nodes` reserves and the
/// process values per node, for `pg_flake_lease`. Raises 22023 for a format
/// that cannot be leased, 55000 where nothing is reserved for it or this
/// server's own node for it lies in the range (it would generate the IDs
/// a lease holder makes). Declared in `sql/leases.sql` (EXECUTE revoked
/// from PUBLIC), hence `sql = false`.
#[doc(alias = "pg_flake_lease_range_wrapper")]
#[pg_extern(sql = false)]
fn pg_flake_lease_range(
    format: &str,
) -> TableIterator<
    'static,
    (
        name!(first_node, i64),
        name!(last_node, i64),
        name!(processes, i32),
    ),
> {
    let format = LeaseFormat::parse(format).or_raise();
    let Some(range) = lease_range(format) else {
        raise(lease_core::nothing_reserved(format));
    };
    let field = formats::FORMATS
        .iter()
        .flat_map(|f| f.nodes.iter())
        .find(|field| field.lease_format() == Some(format));
    // The node pg_flake_node() shows for the format (in recovery, where the
    // lease is refused anyway, only pg_flake.node).
    if let Some(field) = field {
        if let Some(identity) = field.source() {
            field.check_reserved(identity).or_raise();
        }
    }
    TableIterator::once((
        i64::from(range.first),
        i64::from(range.last),
        format.processes() as i32,
    ))
}

/// `pg_flake_lease_role() → text`: the role that holds a lease this
/// session takes, renews or releases now: the session's role (its login
/// role, or the one `SET ROLE` chose), not the owner of a `SECURITY
/// DEFINER` function on the way, which is `current_user` in there (every
/// lease function is one). Declared in `sql/leases.sql` (EXECUTE revoked
/// from PUBLIC).
#[doc(alias = "pg_flake_lease_role_wrapper")]
#[pg_extern(sql = false)]
fn pg_flake_lease_role() -> String {
    // SAFETY: the name of an existing role (noerr = false raises for a
    // dropped one), a palloc'd C string.
    unsafe {
        let name = pg_sys::GetUserNameFromId(pg_sys::GetOuterUserId(), false);
        std::ffi::CStr::from_ptr(name)
            .to_string_lossy()
            .into_owned()
    }
}

/// `pg_flake_lease_promise(fence regclass, expires timestamptz)`: before a
/// grant or renewal answers with a window ending at `expires`, raises the
/// fence (the sequence `pg_flake_lease_promised`: the latest end of a window
/// ever answered, in Unix microseconds) to it, flushes the WAL and waits
/// until the synchronous standbys confirmed it, however the session set
/// `synchronous_commit`.
///
/// Why not the commit's own wait: a cancel ends it with a WARNING after
/// the local commit (PostgreSQL cannot undo a commit), the client reads the
/// window as granted, and a standby promoted before the commit reached it
/// would grant the unit again. This wait is the marks' (src/marks/wal.rs): a
/// cancel, `statement_timeout` or terminate ends it with an ERROR (57014,
/// FATAL), so no window is answered that the standbys have not seen the
/// fence of. The commit record still follows the answer, so a failover can
/// lose the row itself: a grant on a server whose timeline differs from the
/// last grant's therefore starts no window before the fence
/// (`pg_flake_lease`).
///
/// The fence only rises. Concurrent renewals raise it at once: reading and
/// setting it happen under a lock of its own (an object lock no SQL
/// statement can take, released here, never held to the end of a caller's
/// transaction). Declared in `sql/leases.sql` (EXECUTE revoked from
/// PUBLIC).
#[doc(alias = "pg_flake_lease_promise_wrapper")]
#[pg_extern(sql = false)]
fn pg_flake_lease_promise(fence: pg_sys::Oid, expires: pgrx::datum::TimestampWithTimeZone) {
    let until = crate::plumbing::fmgr::timestamptz::unix_micros(
        expires,
        "timestamp with time zone",
        "finite",
    );
    let lock = pg_sys::ExclusiveLock as pg_sys::LOCKMODE;
    // SAFETY: an object lock tagged with the fence's OID as its class, a
    // tag no SQL statement takes (DDL tags catalog classes); released
    // below, and by the abort if the statement fails in between.
    unsafe { pg_sys::LockDatabaseObject(fence, pg_sys::InvalidOid, 0, lock) };
    // Always set, even to the value it has: the setting is then this
    // backend's last WAL record, and flushing up to its end covers every
    // earlier raise another promise made.
    let set = Spi::run_with_args(
        "SELECT pg_catalog.setval($1, greatest(coalesce(pg_catalog.pg_sequence_last_value($1), 0), $2))",
        &[fence.into(), until.into()],
    );
    // SAFETY: the lock taken above.
    unsafe { pg_sys::UnlockDatabaseObject(fence, pg_sys::InvalidOid, 0, lock) };
    if let Err(e) = set {
        crate::plumbing::backend::errors::internal(format!(
            "pg_flake: cannot raise the lease fence: {e}"
        ));
    }
    // SAFETY: the end of this backend's last WAL record (the setval above),
    // flushed as any commit flushes its record.
    let end = unsafe {
        let end = pg_sys::XactLastRecEnd;
        pg_sys::XLogFlush(end);
        end
    };
    crate::marks::wal::wait_for_synchronous_standbys(end);
}

// The tables, the helpers above, the row type and the view; then the
// functions, apart so that an update includes them as they are
// (sql/upgrades/pg_flake--0.4.0--0.5.0.sql).
sql_file!("../sql/leases.sql", name = "leases", requires = ["state"]);
sql_file!(
    "../sql/lease_functions.sql",
    name = "lease_functions",
    requires = ["leases"]
);
