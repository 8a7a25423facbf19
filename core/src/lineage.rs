//! Lineage nodes (docs/operations.md "Standbys and failover"): the nodes a data
//! directory's WAL line has generated a format with, and the rule by which
//! a server in recovery may generate with a node of its own, and the mark
//! records in the WAL that carry the primary's node. Pure logic; the server
//! keeps the nodes in the format's marks file.

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
