//! The formats, and their registries (docs/development.md "Layout and tests"):
//! one module per format, each with the name its SQL functions and its
//! module in the extension (`src/formats/`) carry, and the one place that
//! names every native type and every coordination-based generator, for code
//! that does something for each of them. A new format is a module here and
//! its line in the registries below; the rest of what it touches is listed
//! in docs/development.md "Adding a format", which scripts/check-formats.py
//! checks for every module declared here.
//!
//! The formats stand on the mechanisms of the crate's root (`clock`,
//! `codec`, `error`, `generator`, `sequencer`, `slot`, …), never the
//! reverse; only `leased/` (generators in the application) names formats
//! besides this registry. Each module's public path is `flake_core::<format>`
//! (`lib.rs` re-exports them), as it was before the formats had a folder.

pub mod alphanumeric;
pub mod distributed_id;
pub mod distributed_id128;
pub mod flaxid;
pub mod kuid;
pub mod public_id;
pub mod siq;
pub mod sno;
pub mod snowflake;

/// The registry of native types: every fixed-length identifier type (each a
/// SQL type of the extension), in one place, for code that does something
/// for each of them. `for_each_native_type!(callback)` expands to
/// `callback!(flake_core::sno::Sno); callback!(flake_core::siq::Siq); …`.
/// A new native type is added here and nowhere else in the core.
#[macro_export]
macro_rules! for_each_native_type {
    ($callback:ident) => {
        $callback!($crate::sno::Sno);
        $callback!($crate::siq::Siq);
        $callback!($crate::distributed_id::DistributedId);
        $callback!($crate::flaxid::FlaxId);
        $callback!($crate::kuid::Kuid96);
    };
}

/// The registry of coordination-based generators (docs/guarantees.md "Guarantees"):
/// `for_each_slot_generator!(callback)` expands to
/// `callback!(flake_core::sno::SnoGenerator); …`, each a
/// [`SlotGenerator`](crate::generator::SlotGenerator).
#[macro_export]
macro_rules! for_each_slot_generator {
    ($callback:ident) => {
        $callback!($crate::sno::SnoGenerator);
        $callback!($crate::siq::SiqGenerator);
        $callback!($crate::snowflake::SnowflakeGenerator);
        $callback!($crate::kuid::Kuid64Generator);
        $callback!($crate::kuid::Kuid96Generator);
    };
}
