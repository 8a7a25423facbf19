//! Snowflake under a lease: worker = node, the lease's process, the epoch
//! from the lease row.

use super::{misfit, Lease, LeasedFormat};
use crate::error::Error;
use crate::formats::snowflake::{
    check_epoch, from_parts, SnowflakeTimeline, MAX_PROCESS, MAX_WORKER, SLOT_RULE,
};
use crate::slot::SequenceRange;

#[derive(Debug, Clone, Copy)]
pub struct SnowflakeLease {
    timeline: SnowflakeTimeline,
    epoch_ms: i64,
    worker: i64,
    process: i64,
}

impl LeasedFormat for SnowflakeLease {
    /// The `bigint`.
    type Id = i64;
    type Options = ();
    type Timeline = SnowflakeTimeline;
    const NAME: &'static str = "snowflake";

    fn new(lease: &Lease, _: &()) -> Result<Self, Error> {
        let epoch_ms = check_epoch(lease.epoch_ms.ok_or_else(|| {
            misfit(format!(
                "snowflake lease {} has no epoch_ms",
                lease.lease_id
            ))
        })?)?;
        let process = i64::from(lease.process);
        if !(0..=MAX_WORKER).contains(&lease.node) || !(0..=MAX_PROCESS).contains(&process) {
            return Err(misfit(format!(
                "lease {}: snowflake worker {} or process {} is outside 0 to 31",
                lease.lease_id, lease.node, lease.process
            )));
        }
        Ok(SnowflakeLease {
            timeline: SnowflakeTimeline {
                epoch_ms: Some(epoch_ms),
            },
            epoch_ms,
            worker: lease.node,
            process,
        })
    }

    fn timeline(&self) -> &SnowflakeTimeline {
        &self.timeline
    }

    fn range(&self) -> SequenceRange {
        SequenceRange::whole(SLOT_RULE.sequence_bits)
    }

    /// The timeline's unit is the Unix millisecond.
    fn decoded_micros(&self, unit: u64) -> i64 {
        (unit as i64).saturating_mul(1000)
    }

    fn assemble(&self, unit: u64, sequence: u32) -> Result<i64, Error> {
        from_parts(
            unit as i64,
            self.worker,
            self.process,
            sequence as i64,
            self.epoch_ms,
        )
    }
}
