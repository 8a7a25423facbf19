//! Leases of node ranges to application generators (docs/sql-reference.md "Leases"): the
//! SQL functions are plain SQL and PL/pgSQL in `sql/leases.sql`; this is
//! the one helper they call, which knows the setting and the server's own
//! node for each format.

use crate::c_function::sql_file;
use crate::errors::{raise, OrRaise};
use crate::node::lease_range;
use crate::registry;
use flake_core::lease::{self as lease_core, LeaseFormat};
use pgrx::prelude::*;

/// `pg_flake_lease_range(format) → (first_node, last_node, processes)`:
/// the nodes of `format` that `pg_flake.lease_nodes` reserves and the
/// process values per node, for `pg_flake_lease`. Raises 22023 for a format
/// that cannot be leased, 55000 where nothing is reserved for it or this
/// server's own node for it lies in the range (it would generate the IDs
/// a lease holder makes). Declared in `sql/leases.sql` (EXECUTE revoked
/// from PUBLIC), hence `sql = false`.
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
    let field = registry::FORMATS
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

// The table, the functions and the view (plain SQL, one file shared with
// the 0.2.0 → 0.3.0 update script).
sql_file!("../sql/leases.sql", name = "leases", requires = ["state"]);
