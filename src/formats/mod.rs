//! The registry of formats: the one place that lists them (docs/development.md "Layout
//! and tests"). `_PG_init` defines their settings and gives their generators
//! shared memory, `pg_flake_generator_state()` reports the generators, and
//! the tests run every generator, all by going through this list. Each
//! module has the name of the core's format it maps to SQL
//! (`core/src/formats/`), and of its SQL file (`sql/<format>.sql`). A new
//! format is more than a module and a line here: docs/development.md
//! "Adding a format" lists every place it touches.

use crate::generation::ServerGenerator;
pub use format::Format;

pub mod alphanumeric;
pub mod distributed_id;
pub mod distributed_id128;
pub mod flaxid;
mod format;
pub mod kuid;
pub mod public_id;
pub mod siq;
pub mod sno;
pub mod snowflake;

pub static FORMATS: [&Format; 9] = [
    &sno::FORMAT,
    &siq::FORMAT,
    &distributed_id::FORMAT,
    &distributed_id128::FORMAT,
    &alphanumeric::FORMAT,
    &public_id::FORMAT,
    &flaxid::FORMAT,
    &kuid::FORMAT,
    &snowflake::FORMAT,
];

/// Every coordination-based generator, in registry order.
pub fn generators() -> impl Iterator<Item = &'static dyn ServerGenerator> {
    FORMATS
        .iter()
        .flat_map(|format| format.generators.iter().copied())
}
