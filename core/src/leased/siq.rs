//! SIQ under a lease: shard = process, the domain hash's top byte = node,
//! one kind per generator with its serial per tick.

use super::{misfit, Lease, LeasedFormat};
use crate::error::Error;
use crate::formats::siq::{domain_hash, ticks_to_micros, Kind, Siq, SiqTimeline};
use crate::slot::SequenceRange;

/// What the application chooses for its SIQ IDs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiqOptions {
    /// The domain whose hash the IDs carry (its top byte replaced by the
    /// lease's node); `""` (the default) for none.
    pub domain: String,
    pub kind: Kind,
}

impl Default for SiqOptions {
    fn default() -> Self {
        SiqOptions {
            domain: String::new(),
            kind: Kind::User,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct SiqLease {
    shard: u8,
    hash: u32,
    kind: Kind,
}

impl LeasedFormat for SiqLease {
    type Id = Siq;
    type Options = SiqOptions;
    type Timeline = SiqTimeline;
    const NAME: &'static str = "siq";

    fn new(lease: &Lease, options: &SiqOptions) -> Result<Self, Error> {
        let (Ok(node), Ok(shard)) = (u8::try_from(lease.node), u8::try_from(lease.process)) else {
            return Err(misfit(format!(
                "lease {}: siq node {} or shard {} is outside 0 to 255",
                lease.lease_id, lease.node, lease.process
            )));
        };
        // Unlike crate::formats::siq::apply_node, node 0 also replaces the top byte:
        // the node byte is the lease's unit, whatever its value.
        let hash = domain_hash(&options.domain)? & 0x00FF_FFFF | (node as u32) << 24;
        Ok(SiqLease {
            shard,
            hash,
            kind: options.kind,
        })
    }

    fn timeline(&self) -> &SiqTimeline {
        &SiqTimeline
    }

    fn range(&self) -> SequenceRange {
        SequenceRange::whole(self.kind.serial_bits())
    }

    fn decoded_micros(&self, unit: u64) -> i64 {
        ticks_to_micros(unit)
    }

    fn assemble(&self, unit: u64, sequence: u32) -> Result<Siq, Error> {
        Siq::from_parts(
            unit as i64,
            self.shard as i32,
            self.hash as i64,
            self.kind,
            sequence as i32,
        )
    }
}
