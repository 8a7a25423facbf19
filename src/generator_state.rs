//! `pg_flake_generator_state()`: one row per sequencer of the
//! coordination-based generators. Per backend: the generators this backend
//! has used. In shared mode: the server's generators (slot 0 of 1) that any
//! backend has used since the server started, with server-wide counts.

use crate::backend::{Generator, Mode};
use flake_core::generator::{SequencerRow, SlotGenerator};
use pgrx::prelude::*;

/// One row of `pg_flake_generator_state()`.
pub struct StateRow {
    format: &'static str,
    mode: Mode,
    slot: u32,
    nslots: u32,
    sequencer: SequencerRow,
}

/// The rows of `generator`: none until it has been used.
pub fn rows<G: SlotGenerator>(
    format: &'static str,
    generator: &'static Generator<G>,
) -> Vec<StateRow> {
    let Some((mode, (slot, nslots), generator)) = generator.snapshot() else {
        return Vec::new();
    };
    generator
        .sequencers()
        .into_iter()
        // A shared generator exists from server start: show it once used.
        .filter(|s| mode == Mode::Backend || s.state.issued > 0)
        .map(|sequencer| StateRow {
            format,
            mode,
            slot,
            nslots,
            sequencer,
        })
        .collect()
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
    let rows: Vec<_> = crate::sno::generator_states()
        .into_iter()
        .chain(crate::siq::generator_states())
        .chain(crate::kuid::generator_states())
        .chain(crate::snowflake::generator_states())
        .map(|r| {
            let (assignment, state) = (r.sequencer.assignment, r.sequencer.state);
            (
                r.format.to_string(),
                r.sequencer.kind.map(str::to_string),
                r.mode.name().to_string(),
                r.slot as i32,
                r.nslots as i32,
                assignment.process as i32,
                state.range.first as i32,
                state.range.last as i32,
                state.unit as i64,
                state.last_sequence.map(|s| s as i32),
                state.tick_tock,
                state.safe_unit as i64,
                state.issued as i64,
            )
        })
        .collect();
    TableIterator::new(rows)
}
