//! Leases of node ranges to application generators (docs/sql-reference.md "Leases",
//! issue 23): which nodes of each coordination-based format are reserved
//! for applications (the setting `pg_flake.lease_nodes`), and the units a
//! lease hands out: one node field value and, where the format has one,
//! one process field value (its slot rule's process field).
//!
//! Servers never generate with a node inside its format's reserved range,
//! and applications only get units inside it, so IDs of the two never
//! collide. The SQL functions (`sql/leases.sql`) hand out the units; this
//! module is the arithmetic and the setting's syntax, without PostgreSQL.

use crate::error::{Error, Result};

/// A format that can be leased: one with a node field (kuid64 has none,
/// and the random formats need no coordination).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeaseFormat {
    Sno,
    Siq,
    Snowflake,
    Kuid96,
}

/// The leasable formats, in the setting's canonical order.
pub const LEASE_FORMATS: [LeaseFormat; 4] = [
    LeaseFormat::Sno,
    LeaseFormat::Siq,
    LeaseFormat::Snowflake,
    LeaseFormat::Kuid96,
];

/// The formats a lease accepts, for error messages.
pub const ACCEPTED: &str = "sno, siq, snowflake, kuid96";

impl LeaseFormat {
    /// The format named `name` (as SQL writes it), or the error that says
    /// why it cannot be leased (22023).
    pub fn parse(name: &str) -> Result<LeaseFormat> {
        if let Some(format) = LeaseFormat::named(name) {
            return Ok(format);
        }
        match name {
            "kuid64" => Err(Error::InvalidParameter {
                message: "kuid64 has no node field, so it cannot be leased; use kuid96, whose \
                          IDs carry the leased node"
                    .into(),
            }),
            "flaxid" | "distributed_id" | "distributed_id128" => Err(Error::InvalidParameter {
                message: format!(
                    "{name} is random and needs no lease: generate it anywhere; \
                     formats that can be leased: {ACCEPTED}"
                ),
            }),
            _ => Err(Error::InvalidParameter {
                message: format!(
                    "unknown lease format \"{}\"; accepted formats: {ACCEPTED}",
                    name.escape_default()
                ),
            }),
        }
    }

    /// The leasable format named `name`, if it is one (no error built).
    pub fn named(name: &str) -> Option<LeaseFormat> {
        LEASE_FORMATS
            .into_iter()
            .find(|format| format.name() == name)
    }

    pub const fn name(self) -> &'static str {
        match self {
            LeaseFormat::Sno => "sno",
            LeaseFormat::Siq => "siq",
            LeaseFormat::Snowflake => "snowflake",
            LeaseFormat::Kuid96 => "kuid96",
        }
    }

    /// Position in [`LEASE_FORMATS`].
    pub const fn index(self) -> usize {
        match self {
            LeaseFormat::Sno => 0,
            LeaseFormat::Siq => 1,
            LeaseFormat::Snowflake => 2,
            LeaseFormat::Kuid96 => 3,
        }
    }

    /// The largest node the format's node field holds (sno's partition
    /// high byte, SIQ's node byte, Snowflake's 5-bit worker, kuid96's
    /// 32-bit node).
    pub const fn node_max(self) -> u32 {
        match self {
            LeaseFormat::Sno | LeaseFormat::Siq => 255,
            LeaseFormat::Snowflake => 31,
            LeaseFormat::Kuid96 => u32::MAX,
        }
    }

    /// Process field values per node: sno's partition low byte, SIQ's
    /// shard, Snowflake's process; kuid96 has none (always 0).
    pub const fn processes(self) -> u32 {
        match self {
            LeaseFormat::Sno | LeaseFormat::Siq => 256,
            LeaseFormat::Snowflake => 32,
            LeaseFormat::Kuid96 => 1,
        }
    }

    /// The nodes reserved when `pg_flake.lease_nodes` does not name the
    /// format: the top of each node field. kuid96's 256 nodes lie above
    /// every node-name fingerprint (< 2^28) and every `pg_flake.node`
    /// (≤ 2^31 − 1), so no server reaches them by default.
    pub const fn default_range(self) -> NodeRange {
        match self {
            LeaseFormat::Sno | LeaseFormat::Siq => NodeRange {
                first: 255,
                last: 255,
            },
            LeaseFormat::Snowflake => NodeRange {
                first: 31,
                last: 31,
            },
            LeaseFormat::Kuid96 => NodeRange {
                first: u32::MAX - 255,
                last: u32::MAX,
            },
        }
    }
}

/// An inclusive range of nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeRange {
    pub first: u32,
    pub last: u32,
}

impl NodeRange {
    pub fn contains(self, node: u32) -> bool {
        (self.first..=self.last).contains(&node)
    }

    /// Nodes in the range.
    pub fn nodes(self) -> u64 {
        u64::from(self.last - self.first) + 1
    }

    /// Lease units in the range for `format`: nodes × processes.
    pub fn units(self, format: LeaseFormat) -> u64 {
        self.nodes() * u64::from(format.processes())
    }

    /// The `n`-th unit (0-based, node ascending then process ascending) as
    /// (node, process), if the range has that many.
    pub fn unit(self, format: LeaseFormat, n: u64) -> Option<(u32, u32)> {
        if n >= self.units(format) {
            return None;
        }
        let processes = u64::from(format.processes());
        let node = u64::from(self.first) + n / processes;
        Some((node as u32, (n % processes) as u32))
    }
}

/// The reserved range of every leasable format: `None` where the setting
/// says `none` (nothing reserved, no leases of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseRanges {
    ranges: [Option<NodeRange>; 4],
}

impl Default for LeaseRanges {
    fn default() -> Self {
        LeaseRanges {
            ranges: LEASE_FORMATS.map(|f| Some(f.default_range())),
        }
    }
}

fn bad_setting(message: String) -> Error {
    Error::InvalidParameter { message }
}

/// A node number of the setting, checked against the format's field.
fn parse_node(format: LeaseFormat, text: &str) -> Result<u32> {
    let text = text.trim();
    let valid = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let node = if valid {
        text.parse::<u64>().ok()
    } else {
        None
    };
    match node {
        Some(node) if node <= u64::from(format.node_max()) => Ok(node as u32),
        Some(_) => Err(bad_setting(format!(
            "node {text} is outside the node field of {} (0 to {})",
            format.name(),
            format.node_max()
        ))),
        None => Err(bad_setting(format!(
            "\"{}\" is not a node number of {} (0 to {})",
            text.escape_default(),
            format.name(),
            format.node_max()
        ))),
    }
}

impl LeaseRanges {
    /// Parses `pg_flake.lease_nodes`: comma-separated entries
    /// `format=first-last`, `format=n` or `format=none`; formats not named
    /// keep their default range; `''` is every default. A format named
    /// twice, an unknown or unleasable format, a node outside the format's
    /// field and first > last are errors (22023, at `SET`).
    pub fn parse(text: &str) -> Result<LeaseRanges> {
        let mut ranges = LeaseRanges::default();
        let mut named = [false; 4];
        if text.trim().is_empty() {
            return Ok(ranges);
        }
        for entry in text.split(',') {
            let entry = entry.trim();
            let Some((name, value)) = entry.split_once('=') else {
                return Err(bad_setting(format!(
                    "entry \"{}\" is not format=first-last, format=n or format=none",
                    entry.escape_default()
                )));
            };
            let format = LeaseFormat::parse(name.trim())?;
            if std::mem::replace(&mut named[format.index()], true) {
                return Err(bad_setting(format!("{} is named twice", format.name())));
            }
            let value = value.trim();
            let range = if value.eq_ignore_ascii_case("none") {
                None
            } else if let Some((first, last)) = value.split_once('-') {
                let (first, last) = (parse_node(format, first)?, parse_node(format, last)?);
                if first > last {
                    return Err(bad_setting(format!(
                        "{}'s range {first}-{last} is empty (first > last)",
                        format.name()
                    )));
                }
                Some(NodeRange { first, last })
            } else {
                let node = parse_node(format, value)?;
                Some(NodeRange {
                    first: node,
                    last: node,
                })
            };
            ranges.ranges[format.index()] = range;
        }
        Ok(ranges)
    }

    /// The nodes reserved for `format`, if any.
    pub fn range(&self, format: LeaseFormat) -> Option<NodeRange> {
        self.ranges[format.index()]
    }

    /// Whether `node` of `format` is reserved for applications.
    pub fn reserved(&self, format: LeaseFormat, node: u32) -> bool {
        self.range(format).is_some_and(|r| r.contains(node))
    }
}

/// The error of a server whose own node for `format` is reserved for
/// leases (55000): generation and `pg_flake_lease` both refuse.
pub fn server_node_reserved(format: LeaseFormat, node: u32, source: &str) -> Error {
    Error::NotReady {
        message: format!(
            "node {node} (from {source}) is reserved for application leases of {} \
             (pg_flake.lease_nodes)",
            format.name()
        ),
        hint: "Give this server another node, or set pg_flake.lease_nodes to a range no \
               server uses."
            .into(),
    }
}

/// The error of a lease of a format whose range is `none` (55000).
pub fn nothing_reserved(format: LeaseFormat) -> Error {
    Error::NotReady {
        message: format!(
            "no {} nodes are reserved for leases (pg_flake.lease_nodes says {}=none)",
            format.name(),
            format.name()
        ),
        hint: format!(
            "Reserve nodes no server uses, e.g. SET pg_flake.lease_nodes = '{}={}' \
             (superuser, in postgresql.conf or ALTER SYSTEM).",
            format.name(),
            format.default_range().first
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn range(first: u32, last: u32) -> Option<NodeRange> {
        Some(NodeRange { first, last })
    }

    #[test]
    fn defaults_fit_each_field() {
        let r = LeaseRanges::parse("").unwrap();
        assert_eq!(r, LeaseRanges::default());
        assert_eq!(r.range(LeaseFormat::Sno), range(255, 255));
        assert_eq!(r.range(LeaseFormat::Siq), range(255, 255));
        assert_eq!(r.range(LeaseFormat::Snowflake), range(31, 31));
        assert_eq!(r.range(LeaseFormat::Kuid96), range(4294967040, 4294967295));
        // Above every fingerprint (< 2^28) and every pg_flake.node.
        assert!(LeaseFormat::Kuid96.default_range().first > i32::MAX as u32);
        for f in LEASE_FORMATS {
            assert!(f.default_range().last <= f.node_max());
        }
        assert_eq!(LeaseRanges::parse("  ").unwrap(), LeaseRanges::default());
    }

    #[test]
    fn units_per_format() {
        let d = |f: LeaseFormat| f.default_range().units(f);
        assert_eq!(d(LeaseFormat::Sno), 256);
        assert_eq!(d(LeaseFormat::Siq), 256);
        assert_eq!(d(LeaseFormat::Snowflake), 32);
        assert_eq!(d(LeaseFormat::Kuid96), 256);
        let r = NodeRange {
            first: 250,
            last: 255,
        };
        assert_eq!(r.nodes(), 6);
        assert_eq!(r.units(LeaseFormat::Sno), 1536);
        assert_eq!(r.unit(LeaseFormat::Sno, 0), Some((250, 0)));
        assert_eq!(r.unit(LeaseFormat::Sno, 257), Some((251, 1)));
        assert_eq!(r.unit(LeaseFormat::Sno, 1535), Some((255, 255)));
        assert_eq!(r.unit(LeaseFormat::Sno, 1536), None);
        let k = LeaseFormat::Kuid96.default_range();
        assert_eq!(k.unit(LeaseFormat::Kuid96, 255), Some((u32::MAX, 0)));
        let whole = NodeRange {
            first: 0,
            last: u32::MAX,
        };
        assert_eq!(whole.units(LeaseFormat::Kuid96), 1 << 32);
    }

    #[test]
    fn parses_entries() {
        let r = LeaseRanges::parse("snowflake=31, sno=250-255,kuid96=none").unwrap();
        assert_eq!(r.range(LeaseFormat::Snowflake), range(31, 31));
        assert_eq!(r.range(LeaseFormat::Sno), range(250, 255));
        assert_eq!(r.range(LeaseFormat::Kuid96), None);
        assert_eq!(r.range(LeaseFormat::Siq), range(255, 255));
        assert!(r.reserved(LeaseFormat::Sno, 250));
        assert!(!r.reserved(LeaseFormat::Sno, 249));
        assert!(!r.reserved(LeaseFormat::Kuid96, u32::MAX));
        let r = LeaseRanges::parse("siq = 0 - 3 , snowflake=NONE").unwrap();
        assert_eq!(r.range(LeaseFormat::Siq), range(0, 3));
        assert_eq!(r.range(LeaseFormat::Snowflake), None);
        let r = LeaseRanges::parse("kuid96=4294967295").unwrap();
        assert_eq!(r.range(LeaseFormat::Kuid96), range(u32::MAX, u32::MAX));
    }

    #[test]
    fn rejects_bad_settings() {
        for bad in [
            "sno",
            "sno=",
            "sno=-1",
            "sno=1-",
            "sno=256",
            "sno=0-256",
            "snowflake=32",
            "kuid96=4294967296",
            "sno=5-4",
            "sno=1,sno=2",
            "kuid64=1",
            "flaxid=1",
            "bogus=1",
            "sno=a",
            "sno=+1",
            "sno=1,",
            ",",
            "sno=1-2-3",
        ] {
            let e = LeaseRanges::parse(bad).expect_err(bad);
            assert_eq!(e.kind(), ErrorKind::InvalidParameter, "{bad}");
        }
        let e = LeaseRanges::parse("sno=5-4").unwrap_err();
        assert!(e.to_string().contains("first > last"), "{e}");
        let e = LeaseRanges::parse("snowflake=40").unwrap_err();
        assert!(e.to_string().contains("0 to 31"), "{e}");
    }

    #[test]
    fn formats() {
        for f in LEASE_FORMATS {
            assert_eq!(LeaseFormat::parse(f.name()), Ok(f));
            assert_eq!(LEASE_FORMATS[f.index()], f);
        }
        for bad in ["kuid64", "flaxid", "distributed_id", "SNO", ""] {
            assert_eq!(
                LeaseFormat::parse(bad).unwrap_err().kind(),
                ErrorKind::InvalidParameter
            );
        }
        assert!(LeaseFormat::parse("kuid64")
            .unwrap_err()
            .to_string()
            .contains("kuid96"));
        let e = server_node_reserved(LeaseFormat::Sno, 255, "pg_flake.node");
        assert_eq!(e.kind(), ErrorKind::NotReady);
        assert_eq!(
            e.to_string(),
            "node 255 (from pg_flake.node) is reserved for application leases of sno \
             (pg_flake.lease_nodes)"
        );
        assert_eq!(
            nothing_reserved(LeaseFormat::Siq).kind(),
            ErrorKind::NotReady
        );
    }
}
