//! kuid96 under a lease: the lease's 32-bit node and interval, process 0.

use super::{misfit, Lease, LeasedFormat};
use crate::error::Error;
use crate::formats::kuid::{
    check_interval, ErlangTime, Kuid96, KuidTimeline, KUID96_TIMELINE, SLOT_RULE,
};
use crate::slot::SequenceRange;

#[derive(Debug, Clone, Copy)]
pub struct Kuid96Lease {
    node: u32,
    interval: u32,
}

impl Kuid96Lease {
    pub fn interval(&self) -> u32 {
        self.interval
    }
}

impl LeasedFormat for Kuid96Lease {
    type Id = Kuid96;
    type Options = ();
    type Timeline = KuidTimeline;
    const NAME: &'static str = "kuid96";

    fn new(lease: &Lease, _: &()) -> Result<Self, Error> {
        let interval = check_interval(lease.kuid_interval.ok_or_else(|| {
            misfit(format!(
                "kuid96 lease {} has no kuid_interval",
                lease.lease_id
            ))
        })?)?;
        let node = u32::try_from(lease.node)
            .ok()
            .filter(|_| lease.process == 0);
        let Some(node) = node else {
            return Err(misfit(format!(
                "lease {}: kuid96 node {} is outside 0 to 4294967295 or process {} is not 0",
                lease.lease_id, lease.node, lease.process
            )));
        };
        Ok(Kuid96Lease { node, interval })
    }

    fn timeline(&self) -> &KuidTimeline {
        &KUID96_TIMELINE
    }

    fn range(&self) -> SequenceRange {
        SequenceRange::whole(SLOT_RULE.sequence_bits)
    }

    fn decoded_micros(&self, unit: u64) -> i64 {
        ErlangTime::from_monotonic_unit(unit).unix_micros()
    }

    fn assemble(&self, unit: u64, sequence: u32) -> Result<Kuid96, Error> {
        Kuid96::from_parts(
            self.decoded_micros(unit),
            self.node,
            sequence as i64,
            self.interval,
        )
    }
}
