//! The slot rule (docs/guarantees.md "Guarantees"): how concurrently running generators of
//! one server split a format's process field and sequence space so that they
//! can never produce the same ID, without talking to each other.

use crate::error::{Error, Result};

/// An inclusive range of sequence values owned by one generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SequenceRange {
    pub first: u32,
    pub last: u32,
}

impl SequenceRange {
    /// The whole space of a `bits`-wide sequence field.
    pub const fn whole(bits: u32) -> Self {
        SequenceRange {
            first: 0,
            last: ((1u64 << bits) - 1) as u32,
        }
    }

    pub const fn len(&self) -> u64 {
        self.last as u64 - self.first as u64 + 1
    }

    pub const fn is_empty(&self) -> bool {
        false
    }

    pub fn overlaps(&self, other: &SequenceRange) -> bool {
        self.first <= other.last && other.first <= self.last
    }
}

/// What one slot puts into a format's process field, and which part of the
/// sequence space it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SlotAssignment {
    pub process: u32,
    pub range: SequenceRange,
}

/// The width of a format's process field and of its sequence field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotRule {
    pub process_bits: u32,
    pub sequence_bits: u32,
}

impl SlotRule {
    pub const fn new(process_bits: u32, sequence_bits: u32) -> Self {
        SlotRule {
            process_bits,
            sequence_bits,
        }
    }

    /// Slot `slot` of `nslots`: the process field holds `slot mod 2^w`, and
    /// the sequence space is cut into `g = ceil(nslots / 2^w)` equal ranges of
    /// which the slot uses number `slot div 2^w`.
    pub fn assign(&self, slot: u32, nslots: u32) -> Result<SlotAssignment> {
        if nslots == 0 || slot >= nslots {
            return Err(Error::InvalidParameter {
                message: format!("backend slot {slot} is not below the number of slots {nslots}"),
            });
        }
        let per_group = 1u64 << self.process_bits;
        let groups = (nslots as u64).div_ceil(per_group);
        let size = (1u64 << self.sequence_bits) / groups;
        if size == 0 {
            return Err(Error::InvalidParameter {
                message: format!(
                    "{nslots} backend slots exceed the {}-bit sequence space of this format; \
                     lower max_connections or preload pg_flake for shared mode",
                    self.sequence_bits
                ),
            });
        }
        let group = slot as u64 / per_group;
        let first = group * size;
        Ok(SlotAssignment {
            process: (slot as u64 % per_group) as u32,
            range: SequenceRange {
                first: first as u32,
                last: (first + size - 1) as u32,
            },
        })
    }
}
