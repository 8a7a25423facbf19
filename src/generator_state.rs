//! What this server's generators are doing and which node they are, for an
//! operator, over every format of the registry:
//! - `pg_flake_generator_state()`: one row per sequencer of the
//!   coordination-based generators (docs/sql-reference.md "Generator state"): the
//!   server's generators (slot 0 of 1, mode `shared`: the column stays for
//!   the queries of earlier versions, whose generators were per backend on
//!   15 and 16 without preloading), with server-wide counts.
//! - `pg_flake_node()`: one row per coordination-based format, the node
//!   number it generates with and where that comes from (docs/operations.md "Several
//!   servers").
//! - `pg_flake_set_mark(format, mark)`: a superuser moves a format's mark
//!   deliberately (docs/guarantees.md "Restarts, crashes and the clock").
//!
//! Their SQL is `sql/state.sql`; the partition functions' (`sql/partitions.sql`)
//! are included here too, after the lease functions they require.

use crate::formats;
use crate::node::replication;
use crate::plumbing::fmgr::c_function::sql_file;
use crate::plumbing::fmgr::timestamptz;
use flake_core::ErrorKind;
use pgrx::datum::Interval;
use pgrx::prelude::*;

sql_file!("../sql/state.sql", name = "state", requires = ["public_id"]);
sql_file!(
    "../sql/partitions.sql",
    name = "partitions",
    requires = ["lease_functions"]
);

/// The state of every generator in use, as the rows of
/// `pg_flake_generator_state()` (without its last three columns in 0.1.0).
fn state_rows() -> impl Iterator<Item = StateRow> {
    formats::generators()
        .flat_map(|generator| generator.state_rows())
        .map(|r| {
            let (assignment, state) = (r.sequencer.assignment, r.sequencer.state);
            StateRow {
                format: r.format.to_string(),
                kind: r.sequencer.kind.map(str::to_string),
                mode: "shared".to_string(),
                slot: r.slot as i32,
                nslots: r.nslots as i32,
                process: assignment.process as i32,
                range_first: state.range.first as i32,
                range_last: state.range.last as i32,
                last_unit: state.unit as i64,
                last_sequence: state.last_sequence.map(|s| s as i32),
                tick_tock: state.tick_tock,
                safe_unit: state.safe_unit as i64,
                issued: state.issued as i64,
                mark_unit: r.mark as i64,
                mark_time: i64::try_from(r.mark_nanos.div_euclid(1000))
                    .ok()
                    .and_then(timestamptz::timestamp_checked),
                clock_lead: Interval::from_micros(state.lead / 1000),
            }
        })
}

struct StateRow {
    format: String,
    kind: Option<String>,
    mode: String,
    slot: i32,
    nslots: i32,
    process: i32,
    range_first: i32,
    range_last: i32,
    last_unit: i64,
    last_sequence: Option<i32>,
    tick_tock: bool,
    safe_unit: i64,
    issued: i64,
    mark_unit: i64,
    mark_time: Option<TimestampWithTimeZone>,
    clock_lead: Interval,
}

// pgrx reads the column names from the tuple in the signature itself, so
// the row type cannot be a type alias.
#[allow(clippy::type_complexity)]
#[doc(alias = "generator_state_wrapper")]
#[pg_extern(sql = false)]
fn generator_state() -> TableIterator<
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
        name!(mark_unit, i64),
        name!(mark_time, Option<TimestampWithTimeZone>),
        name!(clock_lead, Interval),
    ),
> {
    TableIterator::new(state_rows().map(|r| {
        (
            r.format,
            r.kind,
            r.mode,
            r.slot,
            r.nslots,
            r.process,
            r.range_first,
            r.range_last,
            r.last_unit,
            r.last_sequence,
            r.tick_tock,
            r.safe_unit,
            r.issued,
            r.mark_unit,
            r.mark_time,
            r.clock_lead,
        )
    }))
}

/// 0.1.0's `pg_flake_generator_state()`, whose catalog entry names this
/// symbol with 13 OUT columns: a database made at 0.1.0 keeps it until
/// `ALTER EXTENSION pg_flake UPDATE` (docs/operations.md "Versions").
#[allow(clippy::type_complexity)]
#[doc(alias = "pg_flake_generator_state_wrapper")]
#[pg_extern(sql = false)]
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
    TableIterator::new(state_rows().map(|r| {
        (
            r.format,
            r.kind,
            r.mode,
            r.slot,
            r.nslots,
            r.process,
            r.range_first,
            r.range_last,
            r.last_unit,
            r.last_sequence,
            r.tick_tock,
            r.safe_unit,
            r.issued,
        )
    }))
}

#[doc(alias = "pg_flake_node_wrapper")]
#[pg_extern(sql = false)]
fn pg_flake_node() -> TableIterator<
    'static,
    (
        name!(format, String),
        name!(node, Option<i64>),
        name!(source, String),
        name!(problem, Option<String>),
    ),
> {
    // Read once: whether this database replicates both ways.
    let both_ways = replication::both_ways();
    let rows: Vec<_> = formats::FORMATS
        .iter()
        .flat_map(|format| format.nodes.iter())
        .map(|field| match field.identity() {
            Ok(_) if field.bits == 0 => (field.format.to_string(), None, "none".to_string(), None),
            Ok(identity) => (
                field.format.to_string(),
                Some(identity.node as i64),
                identity.source.name().to_string(),
                both_ways
                    .then(|| replication::shared_default_node(field.format, identity))
                    .flatten(),
            ),
            Err(refusal) => {
                let source = field.source();
                (
                    field.format.to_string(),
                    source.map(|i| i.node as i64),
                    source.map_or("none", |i| i.source.name()).to_string(),
                    Some(format!(
                        "{refusal} ({})",
                        refusal.hint().unwrap_or_default()
                    )),
                )
            }
        })
        .collect();
    TableIterator::new(rows)
}

/// A superuser sets `format`'s durable mark to the time unit that holds
/// `mark`, up or down, in place of whatever the marks file holds (a
/// damaged or missing file, a mark a clock set years ahead carried along):
/// the operator's deliberate step of docs/guarantees.md "Restarts, crashes and the
/// clock". Logged as a WARNING with the old and new marks and the user.
/// Returns the start of the new mark's unit.
#[doc(alias = "pg_flake_set_mark_wrapper")]
#[pg_extern(sql = false)]
fn pg_flake_set_mark(format: &str, mark: TimestampWithTimeZone) -> TimestampWithTimeZone {
    // SAFETY: reads the current user's role attributes.
    if !unsafe { pg_sys::superuser() } {
        crate::plumbing::backend::errors::raise(flake_core::Error::refused(
            ErrorKind::InsufficientPrivilege,
            "permission denied to set a pg_flake mark",
            "Only a superuser may move a mark: a mark set too low lets IDs repeat.",
        ));
    }
    let unix_micros = timestamptz::unix_micros(mark, "timestamptz", "finite times");
    // A timestamptz names a whole microsecond, and an ID's time decoded to
    // one is rounded down (a SIQ tick is 1/65536 s, so its start lies
    // inside the microsecond its decoded time names, or the tick before
    // overlaps it): the mark is the last unit that begins within that
    // microsecond, so that marking "the highest stored ID's time" marks
    // that ID's unit (docs/sql-reference.md "Generator state").
    let last_nanos_of_micro = unix_micros.saturating_mul(1000).saturating_add(999);
    let Some((old, new, start_nanos)) = crate::generation::set_mark(format, last_nanos_of_micro)
    else {
        crate::plumbing::backend::errors::raise(flake_core::Error::InvalidParameter {
            message: format!(
                "pg_flake_set_mark: \"{format}\" is not a coordination-based format; accepted: {}",
                formats::generators()
                    .map(|g| g.format())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    };
    let new_time = timestamptz::timestamp((start_nanos.div_euclid(1000)) as i64);
    crate::plumbing::backend::errors::warn(
        format!(
            "pg_flake: the {format} mark was set to unit {new} ({new_time}) by {}, deliberately; it was {}",
            current_user(),
            old.map_or("unreadable".to_string(), |o| format!("unit {o}")),
        ),
        format!(
            "{format} IDs above the new mark that were issued before it may be issued again if it lies below them."
        ),
    );
    new_time
}

fn current_user() -> String {
    // SAFETY: the name of the current user, a palloc'd C string.
    unsafe {
        let name = pg_sys::GetUserNameFromId(pg_sys::GetUserId(), true);
        if name.is_null() {
            return "an unknown role".into();
        }
        std::ffi::CStr::from_ptr(name)
            .to_string_lossy()
            .into_owned()
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use crate::formats;
    use crate::plumbing::pg_test_support::text_of;
    use pgrx::prelude::*;

    // This test server does not preload pg_flake: shared mode all the same
    // (a named DSM segment on 17+, a pinned one on 15 and 16).
    #[pg_test]
    fn generators_are_shared_without_preloading() {
        Spi::run("SELECT sno_generate(), siq_generate('user'), kuid64_generate()").unwrap();
        let modes =
            text_of("SELECT string_agg(DISTINCT mode, ',') FROM pg_flake_generator_state()");
        assert_eq!(modes.as_deref(), Some("shared"));
    }

    /// Every generator of the registry makes distinct IDs, and every
    /// coordination-based one then has its rows in the state function.
    #[pg_test]
    fn every_registered_generator_generates_and_reports() {
        for format in formats::FORMATS {
            for generate in format.generate {
                let distinct = Spi::get_one::<i64>(&format!(
                    "SELECT count(DISTINCT id) FROM (SELECT {generate} AS id \
                     FROM generate_series(1, 1000)) s"
                ));
                assert_eq!(distinct.unwrap(), Some(1000), "{}: {generate}", format.name);
            }
        }
        for generator in formats::generators() {
            let rows = Spi::get_one::<i64>(&format!(
                "SELECT count(*) FROM pg_flake_generator_state() WHERE format = '{}'",
                generator.format()
            ));
            assert!(rows.unwrap().unwrap_or(0) > 0, "{}", generator.format());
        }
    }

    /// Every node field of the registry has its row, with the default
    /// identity on a server without settings or Citus.
    #[pg_test]
    fn every_node_field_reports_its_identity() {
        for format in formats::FORMATS {
            for field in format.nodes {
                let source = Spi::get_one::<String>(&format!(
                    "SELECT source FROM pg_flake_node() WHERE format = '{}'",
                    field.format
                ));
                let expected = if field.bits == 0 { "none" } else { "default" };
                assert_eq!(
                    source.unwrap().as_deref(),
                    Some(expected),
                    "{}",
                    field.format
                );
            }
        }
    }
}
