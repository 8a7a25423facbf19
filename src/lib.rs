//! pg_flake: the flake family of distributed, time-sortable identifiers as
//! native PostgreSQL types. This crate is the thin SQL layer over
//! `flake-core`: one module per format, with the same names as the core's.

use pgrx::prelude::*;

mod backend;
mod errors;
mod fixed_type;
mod generator_state;
mod settings;

mod siq;
mod sno;

::pgrx::pg_module_magic!();

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    settings::define();
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    #[pg_test]
    fn sno_text_round_trip() {
        let text = Spi::get_one::<String>("SELECT 'brpk4q72xwf2m63l'::sno::text").unwrap();
        assert_eq!(text.as_deref(), Some("brpk4q72xwf2m63l"));
    }

    #[pg_test]
    fn sno_generate_is_increasing_within_a_backend() {
        let ok = Spi::get_one::<bool>(
            "SELECT bool_and(a < b) FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b \
             FROM (SELECT n, sno_generate() AS id FROM generate_series(1, 1000) n) s) t \
             WHERE b IS NOT NULL",
        )
        .unwrap();
        assert_eq!(ok, Some(true));
    }

    #[pg_test(error = "invalid input syntax for type sno: \"abc\"")]
    fn sno_rejects_bad_text() {
        Spi::run("SELECT 'abc'::sno").unwrap();
    }
}

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
