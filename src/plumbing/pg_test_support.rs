//! What the `#[pg_test]`s of several modules share. `cargo pgrx test` runs
//! them in a server without pg_flake preloaded: per-backend generators.

use pgrx::prelude::*;

/// The text a one-value query returns.
pub fn text_of(query: &str) -> Option<String> {
    Spi::get_one::<String>(query).unwrap()
}

/// Whether 1000 evaluations of `generate` in one statement strictly increase.
pub fn increases_within_a_statement(generate: &str) -> bool {
    Spi::get_one::<bool>(&format!(
        "SELECT bool_and(a < b) FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b \
         FROM (SELECT n, {generate} AS id FROM generate_series(1, 1000) n) s) t \
         WHERE b IS NOT NULL"
    ))
    .unwrap()
        == Some(true)
}
