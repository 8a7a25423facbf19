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
mod registry;
mod state;

mod alphanumeric;
mod distributed_id;
mod distributed_id128;
mod flaxid;
mod kuid;
mod public_id;
mod siq;
mod sno;
mod snowflake;

mod backend_local;
mod c_function;
mod clock;
#[cfg(named_dsm)]
mod dsm_claim;
mod errors;
mod ffi;
mod format;
mod generator;
mod lineage;
mod marks;
mod native_type;
mod node;
mod numeric;
mod primary;
mod random;
mod record;
mod settings;
mod shared_memory;
mod spinlock;
mod time;
mod wal;

#[cfg(any(test, feature = "pg_test"))]
mod pg_test_support;

::pgrx::pg_module_magic!();

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    settings::note_preloading();
    generator::define_settings();
    node::define_settings();
    for format in registry::FORMATS {
        (format.init)();
    }
    settings::reserve_prefix();
    // Preloaded: shared mode (docs/operations.md "Shared mode") and marks in the WAL.
    if settings::preloaded() {
        wal::register(generator::learn);
    }
    generator::register(registry::generators());
}

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
