//! `pg_flake_generator_state()`: one row per sequencer of the
//! coordination-based generators of the registry (README "Generator
//! state"). Per backend: the generators this backend has used. In shared
//! mode: the server's generators (slot 0 of 1) that any backend has used
//! since the server started, with server-wide counts.

use crate::registry;
use pgrx::prelude::*;

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
    let rows: Vec<_> = registry::generators()
        .flat_map(|generator| generator.state_rows())
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

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use crate::pg_test_support::text_of;
    use crate::registry;
    use pgrx::prelude::*;

    // This test server does not preload pg_flake: per-backend generators.
    #[pg_test]
    fn generators_run_per_backend_without_preloading() {
        Spi::run("SELECT sno_generate(), siq_generate('user'), kuid64_generate()").unwrap();
        let modes =
            text_of("SELECT string_agg(DISTINCT mode, ',') FROM pg_flake_generator_state()");
        assert_eq!(modes.as_deref(), Some("backend"));
    }

    /// Every generator of the registry makes distinct IDs, and every
    /// coordination-based one then has its rows in the state function.
    #[pg_test]
    fn every_registered_generator_generates_and_reports() {
        for format in registry::FORMATS {
            for generate in format.generate {
                let distinct = Spi::get_one::<i64>(&format!(
                    "SELECT count(DISTINCT id) FROM (SELECT {generate} AS id \
                     FROM generate_series(1, 1000)) s"
                ));
                assert_eq!(distinct.unwrap(), Some(1000), "{generate}");
            }
        }
        for generator in registry::generators() {
            let rows = Spi::get_one::<i64>(&format!(
                "SELECT count(*) FROM pg_flake_generator_state() WHERE format = '{}'",
                generator.format()
            ));
            assert!(rows.unwrap().unwrap_or(0) > 0, "{}", generator.format());
        }
    }
}
