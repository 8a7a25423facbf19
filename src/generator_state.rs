//! `pg_flake_generator_state()`: one row per generator this backend has used.

use crate::backend;
use flake_core::kuid::{Kuid64Generator, Kuid96Generator};
use flake_core::sequencer::SequencerState;
use flake_core::slot::SlotAssignment;
use flake_core::sno::SnoGenerator;
use flake_core::snowflake::SnowflakeGenerator;
use pgrx::prelude::*;
use std::cell::RefCell;
use std::thread::LocalKey;

/// A coordination-based generator: one slot's assignment and a sequencer.
pub trait SlotGenerator {
    fn assignment(&self) -> SlotAssignment;
    fn state(&self) -> SequencerState;
}

macro_rules! slot_generators {
    ($($generator:ty),*) => {$(
        impl SlotGenerator for $generator {
            fn assignment(&self) -> SlotAssignment {
                <$generator>::assignment(self)
            }
            fn state(&self) -> SequencerState {
                <$generator>::state(self)
            }
        }
    )*};
}

slot_generators!(
    SnoGenerator,
    Kuid64Generator,
    Kuid96Generator,
    SnowflakeGenerator
);

/// The row of the generator in `cell`, if this backend has used it.
pub fn rows<G: SlotGenerator>(
    format: &'static str,
    cell: &'static LocalKey<RefCell<Option<G>>>,
) -> Vec<StateRow> {
    cell.with_borrow(|g| {
        g.iter()
            .map(|g| StateRow::new(format, None, g.assignment(), g.state()))
            .collect()
    })
}

pub struct StateRow {
    format: &'static str,
    kind: Option<String>,
    assignment: SlotAssignment,
    state: SequencerState,
}

impl StateRow {
    pub fn new(
        format: &'static str,
        kind: Option<String>,
        assignment: SlotAssignment,
        state: SequencerState,
    ) -> Self {
        StateRow {
            format,
            kind,
            assignment,
            state,
        }
    }
}

// pgrx reads the column names from the tuple in the signature itself, so
// the row type cannot be a type alias.
#[allow(clippy::type_complexity)]
#[pg_extern(volatile, parallel_safe)]
fn pg_flake_generator_state() -> TableIterator<
    'static,
    (
        name!(format, String),
        name!(kind, Option<String>),
        name!(mode, String),
        name!(slot, i32),
        name!(nslots, i32),
        name!(process, i32),
        name!(range_first, i32),
        name!(range_last, i32),
        name!(last_unit, i64),
        name!(last_sequence, Option<i32>),
        name!(tick_tock, bool),
        name!(safe_unit, i64),
        name!(issued, i64),
    ),
> {
    let (slot, nslots) = backend::slot();
    let rows: Vec<_> = crate::sno::generator_states()
        .into_iter()
        .chain(crate::siq::generator_states())
        .chain(crate::kuid::generator_states())
        .chain(crate::snowflake::generator_states())
        .map(|r| {
            (
                r.format.to_string(),
                r.kind,
                "backend".to_string(),
                slot as i32,
                nslots as i32,
                r.assignment.process as i32,
                r.state.range.first as i32,
                r.state.range.last as i32,
                r.state.unit as i64,
                r.state.last_sequence.map(|s| s as i32),
                r.state.tick_tock,
                r.state.safe_unit as i64,
                r.state.issued as i64,
            )
        })
        .collect();
    TableIterator::new(rows)
}
