//! Reading the vectors in `tests/vectors/` (copied unchanged from the originals, see tests/vectors/README.md):
//! the shared readers of `flake-test-support`, and what needs the core; and
//! one face for every coordination-based generator ([`generators`]).
#![allow(dead_code, unused_imports)]

pub mod generators;
pub mod reference_generator;

pub use flake_test_support::{base64, hex, int, name, of_kind, to_hex, vectors, STD64};

use serde_json::Value;

pub fn time_nanos(v: &Value) -> i128 {
    flake_core::time::parse_rfc3339_nanos(v.as_str().unwrap()).unwrap()
}
