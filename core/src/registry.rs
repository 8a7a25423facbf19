//! The registries of the core (docs/development.md "Layout and tests"): the
//! one place that names every native type and every coordination-based
//! generator, for code that does something for each of them. They stand
//! above the formats they name; `lib.rs`, which every format imports, names
//! none.

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
