//! Lineage nodes (README "Standbys and failover"): the nodes a data
//! directory's WAL line has generated a format with, and the rule by which
//! a server in recovery may generate with a node of its own. Pure logic; the
//! server keeps the nodes in the format's marks file.

/// Why a server in recovery must not generate with `node`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clash {
    /// No node of its primary is known: `node` cannot be shown to differ.
    Unknown,
    /// `node` is one its primary generates (or generated) with.
    Primary,
}

/// Whether a server in recovery may generate with `node`: `nodes` are its
/// lineage nodes, `own` those it generated with itself (not seen in replay
/// since). Every other lineage node is its primary's (replayed, or copied
/// with a base backup); at least one must be known, and `node` must not be
/// one of them.
pub fn check(nodes: &[u32], own: &[u32], node: u32) -> Result<(), Clash> {
    let mut foreign = nodes.iter().filter(|n| !own.contains(n)).peekable();
    if foreign.peek().is_none() {
        return Err(Clash::Unknown);
    }
    if foreign.any(|&n| n == node) {
        return Err(Clash::Primary);
    }
    Ok(())
}

/// Adds `node` to `nodes` (least recently seen first) as the most recent,
/// the least recent going beyond `max`. Returns whether `nodes` changed and
/// whether `node` is new.
pub fn add(nodes: &mut Vec<u32>, node: u32, max: usize) -> (bool, bool) {
    if nodes.last() == Some(&node) {
        return (false, false);
    }
    let new = !nodes.contains(&node);
    nodes.retain(|&n| n != node);
    while nodes.len() >= max.max(1) {
        nodes.remove(0);
    }
    nodes.push(node);
    (true, new)
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
        assert_eq!(add(&mut nodes, 3, 3), (true, true));
        assert_eq!(add(&mut nodes, 3, 3), (false, false));
        assert_eq!(add(&mut nodes, 4, 3), (true, true));
        // Seen again: moves to the end, not new.
        assert_eq!(add(&mut nodes, 3, 3), (true, false));
        assert_eq!(nodes, [4, 3]);
        add(&mut nodes, 5, 3);
        add(&mut nodes, 6, 3);
        assert_eq!(nodes, [3, 5, 6]);
    }
}
