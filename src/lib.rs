//! pg_flake: the flake family of distributed, time-sortable identifiers as
//! native PostgreSQL types. This crate is the thin SQL layer over
//! `flake-core`: a top and five folders below it, whose imports run one way,
//! down, with no circle (docs/development.md "Layout and tests"):
//! - the top: this file (`_PG_init`), `state` (the SQL functions that report
//!   on every generator and node), `stats` (the statistics an operator
//!   scrapes) and `lease` (the lease functions);
//! - `formats`: one module per format, with the same names as the core's,
//!   and the registry that lists them;
//! - `generation`: the coordination-based generators as a server runs them;
//! - `node`: which node this server is, for every format;
//! - `marks`: the durable marks, in files and in the WAL;
//! - `plumbing`: what every floor stands on and which knows no format (C
//!   functions, native types, errors, settings, shared memory).

use pgrx::prelude::*;

mod lease;
mod state;
mod stats;

mod formats;
mod generation;
mod marks;
mod node;
mod plumbing;

::pgrx::pg_module_magic!();

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    plumbing::settings::note_preloading();
    generation::define_settings();
    node::define_settings();
    lease::define_settings();
    for format in formats::FORMATS {
        (format.init)();
    }
    plumbing::settings::reserve_prefix();
    // Preloaded: shared mode (docs/operations.md "Shared mode") and marks in the WAL.
    if plumbing::settings::preloaded() {
        marks::wal::register(generation::learn);
    }
    generation::register(formats::generators());
}

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
