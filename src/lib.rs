//! pg_flake: the flake family of distributed, time-sortable identifiers as
//! native PostgreSQL types. This crate is the thin SQL layer over
//! `flake-core`: a top and five folders below it, whose imports run one way,
//! down, with no circle (docs/development.md "Layout and tests"):
//! - the top: this file (`_PG_init`), `generator_state` (the SQL functions
//!   that report on every generator and node, and move a mark), `stats` (the
//!   statistics an operator scrapes) and `leases` (what the lease functions
//!   call);
//! - `formats`: one module per format, each with the name of the core's
//!   module it maps to SQL (`core/src/formats/`), and the registry that
//!   lists them;
//! - `generation`: the coordination-based generators as a server runs them;
//! - `node`: which node this server is, for every format;
//! - `marks`: the durable marks, in files and in the WAL;
//! - `plumbing`: what every floor stands on and which knows no format: the
//!   calling convention and native types, shared memory, settings, and the
//!   backend's own (errors, clock, CSPRNG).

use pgrx::prelude::*;

mod generator_state;
mod leases;
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
    leases::define_settings();
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
