//! Lineage nodes (docs/operations.md "Standbys and failover"): the nodes a data
//! directory's WAL line has generated a format with, and the rule by which
//! a server in recovery may generate with a node of its own, and the mark
//! records in the WAL that carry the primary's node. Pure logic; the server
//! keeps the nodes in the format's marks file.
//!
//! The lineage is bounded ([`LINEAGE_MAX`] nodes), least recently seen
//! first. A standby's own nodes are never the ones that go: a server cloned
//! from it learns them only from the copied lineage, and takes its
//! `pg_flake.node` with the copy. So a standby has at most [`OWN_MAX`] nodes
//! of its own per format and refuses a further one ([`Clash::OwnFull`])
//! rather than forget one; the rest of the lineage keeps its primaries'
//! most recently seen nodes (a primary's node is seen again in every mark
//! record it writes, so the one it generates with never goes).

pub use crate::marks_file::LINEAGE_MAX;

/// The most nodes of its own a standby keeps in a format's lineage: half of
/// it, so that at least as many of its primaries' nodes stay.
pub const OWN_MAX: usize = LINEAGE_MAX / 2;

/// Why a server in recovery must not generate with `node`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clash {
    /// No node of its primary is known: `node` cannot be shown to differ.
    Unknown,
    /// `node` is one its primary generates (or generated) with.
    Primary,
    /// `node` would be a node of its own beyond [`OWN_MAX`]: recording it
    /// would push one of its own out of the lineage.
    OwnFull,
}

/// Whether a server in recovery may generate with `node`: `nodes` are its
/// lineage nodes, `own` those it generated with itself (not seen in replay
/// since). Every other lineage node is its primary's (replayed, or copied
/// with a base backup); at least one must be known, `node` must not be one
/// of them, and it must be one of its own already or leave room for it.
pub fn check(nodes: &[u32], own: &[u32], node: u32) -> Result<(), Clash> {
    let mut foreign = nodes.iter().filter(|n| !own.contains(n)).peekable();
    if foreign.peek().is_none() {
        return Err(Clash::Unknown);
    }
    if foreign.any(|&n| n == node) {
        return Err(Clash::Primary);
    }
    if !own.contains(&node) && own.len() >= OWN_MAX {
        return Err(Clash::OwnFull);
    }
    Ok(())
}

/// What [`add`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Added {
    /// The nodes changed (and must be written).
    pub changed: bool,
    /// The node was not there before.
    pub new: bool,
    /// The node that went to make room, if one did.
    pub dropped: Option<u32>,
}

/// Adds `node` to `nodes` (least recently seen first) as the most recent.
/// Where `nodes` hold `max` already, the least recent that is not in `keep`
/// goes; `keep` holds fewer than `max` nodes wherever the callers uphold
/// [`OWN_MAX`], and if it ever did not, the least recent of all would go.
pub fn add(nodes: &mut Vec<u32>, node: u32, max: usize, keep: &[u32]) -> Added {
    if nodes.last() == Some(&node) {
        return Added::default();
    }
    let new = !nodes.contains(&node);
    nodes.retain(|&n| n != node);
    let mut dropped = None;
    while nodes.len() >= max.max(1) {
        let at = nodes.iter().position(|n| !keep.contains(n)).unwrap_or(0);
        dropped = Some(nodes.remove(at));
    }
    nodes.push(node);
    Added {
        changed: true,
        new,
        dropped,
    }
}

/// A server in recovery generates with `node`, one of its own: it joins
/// `own` (unless there already) and the lineage, where none of `own` goes
/// to make room. [`Clash::OwnFull`] (and nothing changed) where it would be
/// a node of its own beyond [`OWN_MAX`].
pub fn adopt(nodes: &mut Vec<u32>, own: &mut Vec<u32>, node: u32) -> Result<Added, Clash> {
    if !own.contains(&node) {
        if own.len() >= OWN_MAX {
            return Err(Clash::OwnFull);
        }
        own.push(node);
    }
    if nodes.contains(&node) {
        // Already recorded: its place matters not, none of `own` goes.
        return Ok(Added::default());
    }
    Ok(add(nodes, node, LINEAGE_MAX, own))
}

/// Redo of a record carrying `node`: the WAL line generates with it, so it
/// is no longer one of `own`; it joins the lineage as the most recent,
/// and none of `own` goes to make room. A node of `own` missing from the
/// lineage (a marks file made again from the WAL, `Marks::recover`) is
/// put back first.
pub fn replayed(nodes: &mut Vec<u32>, own: &mut Vec<u32>, node: u32) -> Added {
    own.retain(|&n| n != node);
    let mut put_back = Added::default();
    for &n in own.iter() {
        if !nodes.contains(&n) {
            put_back = add(nodes, n, LINEAGE_MAX, own);
        }
    }
    let added = add(nodes, node, LINEAGE_MAX, own);
    Added {
        changed: added.changed || put_back.changed,
        dropped: added.dropped.or(put_back.dropped),
        ..added
    }
}

/// A mark record's main data in the WAL: format, NUL, mark (8 bytes LE),
/// then the node the primary generates the format with (4 bytes LE) where
/// there is one (0.3.0; 0.2.0 wrote none, and kuid64 has none).
pub fn mark_record(format: &str, mark: u64, node: Option<u32>) -> Vec<u8> {
    let mut data = Vec::with_capacity(format.len() + 13);
    data.extend_from_slice(format.as_bytes());
    data.push(0);
    data.extend_from_slice(&mark.to_le_bytes());
    if let Some(node) = node {
        data.extend_from_slice(&node.to_le_bytes());
    }
    data
}

/// (format, mark, node) of a mark record's main data; 0.2.0's records end
/// after the mark. None if malformed.
pub fn parse_mark_record(data: &[u8]) -> Option<(&[u8], u64, Option<u32>)> {
    let nul = data.iter().position(|&b| b == 0)?;
    let mark = data.get(nul + 1..nul + 9)?;
    let node = match data.get(nul + 9..) {
        Some([]) | None => None,
        Some(node) => Some(u32::from_le_bytes(node.try_into().ok()?)),
    };
    Some((
        &data[..nul],
        u64::from_le_bytes(mark.try_into().ok()?),
        node,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copied_node_is_the_primarys() {
        // A base backup of a primary with node 3: the standby's copied node 3.
        assert_eq!(check(&[3], &[], 3), Err(Clash::Primary));
        assert_eq!(check(&[3], &[], 7), Ok(()));
    }

    #[test]
    fn nothing_known_refuses() {
        assert_eq!(check(&[], &[], 7), Err(Clash::Unknown));
        // Only its own node: the primary's is still unknown.
        assert_eq!(check(&[7], &[7], 7), Err(Clash::Unknown));
    }

    #[test]
    fn its_own_node_is_not_a_clash_until_replayed() {
        assert_eq!(check(&[3, 7], &[7], 7), Ok(()));
        // A clone of that standby: 7 is no longer its own.
        assert_eq!(check(&[3, 7], &[], 7), Err(Clash::Primary));
    }

    #[test]
    fn adding_keeps_the_most_recent() {
        let mut nodes = vec![];
        let added = |new, dropped| Added {
            changed: true,
            new,
            dropped,
        };
        assert_eq!(add(&mut nodes, 3, 3, &[]), added(true, None));
        assert_eq!(add(&mut nodes, 3, 3, &[]), Added::default());
        assert_eq!(add(&mut nodes, 4, 3, &[]), added(true, None));
        // Seen again: moves to the end, not new.
        assert_eq!(add(&mut nodes, 3, 3, &[]), added(false, None));
        assert_eq!(nodes, [4, 3]);
        add(&mut nodes, 5, 3, &[]);
        assert_eq!(add(&mut nodes, 6, 3, &[]), added(true, Some(4)));
        assert_eq!(nodes, [3, 5, 6]);
        // A node kept is passed over: the least recent other one goes.
        assert_eq!(add(&mut nodes, 7, 3, &[3]), added(true, Some(5)));
        assert_eq!(nodes, [3, 6, 7]);
    }

    /// Issue 36 item 4: a line of primaries and standbys, each standby
    /// generating with a node of its own and then promoted, and a clone of
    /// the last standby. The clone copies the lineage, not the standby's
    /// record of its own nodes: it must find the standby's node there.
    #[test]
    fn a_standbys_own_node_is_always_recorded() {
        let mut nodes = vec![1];
        for node in 2..=20 {
            // A standby of the previous primary: node is its own.
            let mut own = vec![];
            assert_eq!(check(&nodes, &own, node), Ok(()));
            adopt(&mut nodes, &mut own, node).unwrap();
            // A clone of that standby refuses its node.
            assert_eq!(check(&nodes, &[], node), Err(Clash::Primary), "{node}");
            // Promoted: it announces its node.
            add(&mut nodes, node, LINEAGE_MAX, &[]);
        }
        assert_eq!(nodes.len(), LINEAGE_MAX);
        assert_eq!(nodes.last(), Some(&20));
    }

    #[test]
    fn own_nodes_stay_as_the_primary_moves() {
        // A standby with its own node 100, whose primary moves through more
        // nodes than the lineage holds.
        let mut nodes = vec![1];
        let mut own = vec![];
        adopt(&mut nodes, &mut own, 100).unwrap();
        for node in 2..40 {
            replayed(&mut nodes, &mut own, node);
            assert!(nodes.contains(&100), "{node}: {nodes:?}");
            assert_eq!(nodes.last(), Some(&node));
        }
        // A marks file made again from the WAL: its own node is put back.
        nodes.retain(|&n| n != 100);
        let added = replayed(&mut nodes, &mut own, 50);
        assert!(added.changed && nodes.contains(&100), "{nodes:?}");
        // Replayed, its own node is its primary's and may go like any other.
        replayed(&mut nodes, &mut own, 100);
        assert!(own.is_empty());
        assert_eq!(check(&nodes, &own, 100), Err(Clash::Primary));
    }

    #[test]
    fn a_node_of_its_own_beyond_the_bound_is_refused() {
        let mut nodes = vec![1];
        let mut own = vec![];
        for node in 0..OWN_MAX as u32 {
            let node = 100 + node;
            assert_eq!(check(&nodes, &own, node), Ok(()));
            adopt(&mut nodes, &mut own, node).unwrap();
        }
        // Every one of them still generates; a further one is refused and
        // changes nothing.
        assert_eq!(check(&nodes, &own, 100), Ok(()));
        assert_eq!(check(&nodes, &own, 200), Err(Clash::OwnFull));
        let before = (nodes.clone(), own.clone());
        assert_eq!(adopt(&mut nodes, &mut own, 200), Err(Clash::OwnFull));
        assert_eq!((nodes.clone(), own.clone()), before);
        // Its primary's nodes fill the rest; none of its own goes.
        for node in 2..40 {
            replayed(&mut nodes, &mut own, node);
        }
        assert_eq!(nodes.len(), LINEAGE_MAX);
        assert!((100..100 + OWN_MAX as u32).all(|n| nodes.contains(&n)));
        assert_eq!(nodes.last(), Some(&39));
    }

    #[test]
    fn a_record_reads_back() {
        let data = mark_record("kuid96", 42, Some(7));
        assert_eq!(data.len(), "kuid96".len() + 13);
        assert_eq!(
            parse_mark_record(&data),
            Some((&b"kuid96"[..], 42, Some(7)))
        );
        assert_eq!(parse_mark_record(b"sno"), None);
        assert_eq!(parse_mark_record(b"sno\0\x01"), None);
        // A node cut short is malformed.
        let mut short = mark_record("sno", 1, None);
        short.push(3);
        assert_eq!(parse_mark_record(&short), None);
    }

    /// 0.2.0 wrote no node: its records still replay.
    #[test]
    fn a_record_of_0_2_0_reads_back() {
        let mut data = b"kuid96\0".to_vec();
        data.extend_from_slice(&42u64.to_le_bytes());
        assert_eq!(data, mark_record("kuid96", 42, None));
        assert_eq!(parse_mark_record(&data), Some((&b"kuid96"[..], 42, None)));
    }
}
