//! What the registry (`src/formats/mod.rs`) knows of each format module, so
//! that `_PG_init`, shared memory, `pg_flake_generator_state()` and the tests
//! can go through every format without naming any.

use crate::generation::ServerGenerator;
use crate::node::NodeField;


// `name` and `generate` are read by the tests (and `name` by error messages
// that must say which format failed).
#[allow(dead_code)]
pub struct Format {
    pub name: &'static str,
    /// Defines the format's settings and hooks; `_PG_init` calls it once.
    pub init: fn(),
    /// Its coordination-based generators (docs/guarantees.md "Guarantees").
    pub generators: &'static [&'static dyn ServerGenerator],
    /// Their node fields (docs/operations.md "Several servers").
    pub nodes: &'static [&'static NodeField],
    /// SQL expressions that generate an ID of the format, for tests that
    /// must run every generator.
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
