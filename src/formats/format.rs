//! What the registry (`src/formats/mod.rs`) knows of each format module, so
//! that `_PG_init`, shared memory, `pg_flake_generator_state()` and the tests
//! can go through every format without naming any.

use crate::generation::ServerGenerator;
use crate::node::NodeField;

pub struct Format {
    /// The module's format (`kuid` for kuid64 and kuid96): what the tests
    /// name when one of its generators fails.
    #[cfg_attr(not(any(test, feature = "pg_test")), allow(dead_code))]
    pub name: &'static str,
    /// Defines the format's settings and hooks; `_PG_init` calls it once.
    pub init: fn(),
    /// Its coordination-based generators (docs/guarantees.md "Guarantees").
    pub generators: &'static [&'static dyn ServerGenerator],
    /// Their node fields (docs/operations.md "Several servers").
    pub nodes: &'static [&'static NodeField],
    /// SQL expressions that generate an ID of the format, for tests that
    /// must run every generator.
    #[cfg_attr(not(any(test, feature = "pg_test")), allow(dead_code))]
    pub generate: &'static [&'static str],
}

impl Format {
    /// A format with nothing to set up and nothing to generate (an encoding).
    pub const fn named(name: &'static str) -> Format {
        Format {
            name,
            init: || {},
            generators: &[],
            nodes: &[],
            generate: &[],
        }
    }
}
