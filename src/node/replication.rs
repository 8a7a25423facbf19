//! Two servers that replicate into each other by logical replication and
//! generate on the default node (docs/operations.md "Logical replication"):
//! both then issue the same IDs, and the second copy of each row fails on
//! its key (23505) or, without a unique key, is stored twice. A server
//! cannot see its peer's node, so what `pg_flake_node()` reports is the
//! shape that makes the clash likely: this database subscribes to a
//! publication (a subscription, enabled or not: `disable_on_error` disables
//! it at the first duplicate) and publishes (a publication of its own), and
//! the format's node is the default, which every unconfigured server shares. A reported problem, not a refusal: a subscriber that
//! never writes the tables it receives is safe on the default node.

use crate::node::{Identity, Source};
use pgrx::spi::Spi;

/// Whether this database both subscribes (a subscription of its own) and
/// publishes (a publication): replication that may run both ways.
pub fn both_ways() -> bool {
    // pg_subscription's columns but subconninfo are readable by every role.
    // Read-only (`select`), as on a standby it must be: `Spi::get_one`
    // runs its query read-write, which a server in recovery refuses.
    const QUERY: &str = "SELECT EXISTS (SELECT FROM pg_catalog.pg_subscription s
                        JOIN pg_catalog.pg_database d ON d.oid = s.subdbid
                        WHERE d.datname = pg_catalog.current_database())
            AND EXISTS (SELECT FROM pg_catalog.pg_publication)";
    Spi::connect(|client| {
        client
            .select(QUERY, Some(1), &[])?
            .first()
            .get_one::<bool>()
    })
    .ok()
    .flatten()
    .unwrap_or(false)
}

/// The problem `pg_flake_node()` reports for a format that generates with
/// `identity` in a database that replicates both ways, if there is one.
pub fn shared_default_node(format: &str, identity: Identity) -> Option<String> {
    matches!(identity.source, Source::Default).then(|| {
        format!(
            "this database subscribes and publishes by logical replication, and {format} IDs are generated on the default node {}, which every server without a node setting shares: a peer that also generates them issues the same IDs (set pg_flake.node, or the format's own setting, to a number no other server uses; docs/operations.md \"Logical replication\")",
            identity.node
        )
    })
}
