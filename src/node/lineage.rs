//! Lineage nodes (docs/operations.md "Standbys and failover"): the nodes a data
//! directory's WAL line has generated each coordination-based format with,
//! so that a server in recovery never generates with its primary's node.
//! Named as core/src/lineage.rs, whose rule this module applies where a
//! server keeps the lineage (the marks file, the WAL, its own nodes' file).
//!
//! - A primary **announces** its node: before it issues the first ID of a
//!   format with a node it has not announced (first
//!   generation, or after `pg_flake.node` or the format's own setting
//!   changed), it adds the node to the format's marks file and writes a mark
//!   record carrying it to the WAL. Every mark record carries the node too.
//! - A standby learns them: redo adds every node it replays to its marks
//!   file, and a base backup copies the file, so a fresh standby knows every
//!   node its primary announced before the backup.
//! - A standby that generates with a node of its own adds it to the lineage
//!   too, always (a server cloned from it knows it: the clone also copies
//!   the standby's `pg_flake.node`), and remembers it as its own in
//!   `pg_flake/pgsql_tmp_own_<format>`: `pg_basebackup` leaves files named
//!   `pgsql_tmp*` out, so a clone does not take the node for its own. A
//!   node replayed from the WAL is no longer its own: its primary generates
//!   with it. The lineage is bounded: its own nodes never go to make room,
//!   and a standby with [`flake_core::lineage::OWN_MAX`] of its own refuses
//!   another (issue 36 item 4: a bound of 3 nodes had left a fourth
//!   standby's node out, and its clone generated the standby's IDs).
//! - A standby generates only while it knows its primary preloads pg_flake
//!   ([`crate::marks::primary`]): only then do the primary's nodes reach it.

use crate::marks::wal;
use crate::marks::Marks;
use flake_core::lineage::{Added, Clash};
use std::fs::OpenOptions;
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;

/// Where a standby remembers the nodes it generated `format` with itself.
fn own_path(format: &str) -> String {
    format!("pg_flake/pgsql_tmp_own_{format}")
}

/// The nodes this server generated `format` with while in recovery.
fn own_nodes(format: &str) -> io::Result<Vec<u32>> {
    let mut bytes = Vec::new();
    match std::fs::File::open(own_path(format)) {
        Ok(mut file) => file.read_to_end(&mut bytes)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// Whether this server generated `format` with a node of its own while in
/// recovery (and no replayed record has claimed that node since): its
/// marks cover its own IDs too, so a replayed `pg_flake_set_mark` must not
/// lower them.
pub fn generated_here(format: &str) -> io::Result<bool> {
    Ok(!own_nodes(format)?.is_empty())
}

/// Replaces the own nodes of `format` (under the marks lock).
fn write_own(format: &str, nodes: &[u32]) -> io::Result<()> {
    let path = own_path(format);
    if nodes.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)?;
    let bytes: Vec<u8> = nodes.iter().flat_map(|n| n.to_le_bytes()).collect();
    file.write_all(&bytes)?;
    // SAFETY: a plain global of the server's configuration.
    if unsafe { pgrx::pg_sys::enableFsync } {
        file.sync_data()?;
    }
    Ok(())
}

/// What a server in recovery knows of `format`'s nodes.
pub struct Lineage {
    /// Every lineage node: replayed, copied, or its own.
    pub nodes: Vec<u32>,
    /// The nodes it generated with itself (not seen in replay since).
    pub own: Vec<u32>,
}

impl Lineage {
    /// Whether a server in recovery may generate with `node`
    /// ([`flake_core::lineage::check`]).
    pub fn check(&self, node: u32) -> Result<(), Clash> {
        flake_core::lineage::check(&self.nodes, &self.own, node)
    }
}

/// The lineage of `format`, as a server in recovery checks it before every
/// ID (redo adds nodes at any time).
pub fn read(format: &str) -> io::Result<Lineage> {
    let marks = Marks::lock_interruptible(format)?;
    Ok(Lineage {
        nodes: marks.nodes()?,
        own: own_nodes(format)?,
    })
}

/// A server in recovery generates `format` with its own `node` (checked
/// against [`read`]): recorded as its own first, then in the lineage, where
/// none of its own goes to make room. `Err(Clash::OwnFull)`, and nothing
/// recorded, where it would be one of its own beyond
/// [`flake_core::lineage::OWN_MAX`] (another backend may have recorded
/// others since the check).
pub fn adopt(format: &str, node: u32) -> io::Result<Result<(), Clash>> {
    let marks = Marks::lock_interruptible(format)?;
    let own = own_nodes(format)?;
    let (mut nodes, mut now_own) = (marks.nodes()?, own.clone());
    let added = match flake_core::lineage::adopt(&mut nodes, &mut now_own, node) {
        Ok(added) => added,
        Err(clash) => return Ok(Err(clash)),
    };
    if now_own != own {
        write_own(format, &now_own)?;
    }
    if added.changed {
        marks.set_nodes(nodes)?;
        log_dropped(format, added);
    }
    Ok(Ok(()))
}

/// A lineage node that went to make room is worth a line in the log: a
/// server in recovery no longer refuses it (docs/operations.md "Standbys
/// and failover").
fn log_dropped(format: &str, added: Added) {
    if let Some(node) = added.dropped {
        pgrx::log!(
            "pg_flake: the {format} lineage holds {} nodes: node {node}, the least recently seen, is no longer in it",
            flake_core::lineage::LINEAGE_MAX
        );
    }
}

/// A primary announces that it generates `format` with `node`: in the marks
/// file first (a base backup that copies the file before the WAL record is
/// written replays the record), then in the WAL with the mark as it is —
/// once per run of the server: a node that is the file's most recent and
/// reached the WAL in this run needs nothing more (the record was flushed,
/// and confirmed by the synchronous standbys, before that was recorded).
///
/// The record is written while the marks file is locked: a
/// `pg_flake_set_mark` replaces the file under that lock, so its set
/// record comes after this one in the WAL, and replay (crash recovery, a
/// standby) ends at the mark the operator set rather than raising it again
/// to the one read here (issue 49, item 8; tests/servers/test_set_mark.py).
pub fn announce(format: &str, node: u32) -> io::Result<()> {
    let run = crate::marks::run();
    let marks = Marks::lock_interruptible(format)?;
    if marks.announced(node, run) {
        return Ok(());
    }
    log_dropped(format, marks.add_node(node, &[])?);
    if wal::registered() {
        wal::log_mark(format, marks.global()?, Some(node));
        marks.set_announced(node, run)?;
    }
    Ok(())
}

/// Redo of a record carrying `node` (under the marks lock): the WAL line
/// generates `format` with it, so it is no longer this server's own; none
/// of its own goes to make room.
pub fn replayed(marks: &Marks, format: &str, node: u32) -> io::Result<()> {
    let own = own_nodes(format)?;
    let (mut nodes, mut now_own) = (marks.nodes()?, own.clone());
    let added = flake_core::lineage::replayed(&mut nodes, &mut now_own, node);
    // No longer its own first: the node is in the lineage already, or gets
    // there next, so a crash in between leaves it refused, not its own.
    if now_own != own {
        write_own(format, &now_own)?;
    }
    if added.changed {
        marks.set_nodes(nodes)?;
        log_dropped(format, added);
    }
    Ok(())
}
