//! sno under a lease: partition = node << 8 | process, tick-tock 0.

use super::{misfit, Lease, LeasedFormat};
use crate::error::Error;
use crate::formats::sno::{Sno, SnoTimeline, EPOCH_NANOS, SLOT_RULE, UNIT_NANOS};
use crate::slot::SequenceRange;

/// What the application chooses for its sno IDs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SnoOptions {
    /// The metabyte (0 by default).
    pub meta: u8,
}

#[derive(Debug, Clone, Copy)]
pub struct SnoLease {
    partition: u16,
    meta: u8,
}

impl LeasedFormat for SnoLease {
    type Id = Sno;
    type Options = SnoOptions;
    type Timeline = SnoTimeline;
    const NAME: &'static str = "sno";

    fn new(lease: &Lease, options: &SnoOptions) -> Result<Self, Error> {
        let (Ok(node), Ok(process)) = (u8::try_from(lease.node), u8::try_from(lease.process))
        else {
            return Err(misfit(format!(
                "lease {}: sno node {} or process {} is outside 0 to 255",
                lease.lease_id, lease.node, lease.process
            )));
        };
        Ok(SnoLease {
            partition: (node as u16) << 8 | process as u16,
            meta: options.meta,
        })
    }

    fn timeline(&self) -> &SnoTimeline {
        &SnoTimeline
    }

    fn range(&self) -> SequenceRange {
        SequenceRange::whole(SLOT_RULE.sequence_bits)
    }

    fn decoded_micros(&self, unit: u64) -> i64 {
        ((EPOCH_NANOS + unit as i128 * UNIT_NANOS) / 1000) as i64
    }

    fn assemble(&self, unit: u64, sequence: u32) -> Result<Sno, Error> {
        Sno::from_parts(unit, false, self.meta, self.partition, sequence as u16)
    }
}
