//! pg_flake: the flake family of distributed, time-sortable identifiers as
//! native PostgreSQL types. This crate is the thin SQL layer over
//! `flake-core`, in three layers whose imports run one way, downwards
//! (docs/development.md "Layout and tests"):
//! - the top: this file, `registry` (the list of formats) and `state`
//!   (the SQL functions that report on every generator and node);
//! - the formats, one module each, with the same names as the core's;
//! - the mechanisms they use, which know no format.

use pgrx::prelude::*;

mod lease;
mod state;

mod formats;
mod generation;
mod node;
mod marks;
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
