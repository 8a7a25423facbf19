//! pg_flake: the flake family of distributed, time-sortable identifiers as
//! native PostgreSQL types. This crate is the thin SQL layer over
//! `flake-core`: one module per format, with the same names as the core's.

use pgrx::prelude::*;

mod backend;
mod errors;
mod fixed_type;
mod generator_state;
mod numeric;
mod settings;

mod alphanumeric;
mod distributed_id;
mod distributed_id128;
mod flaxid;
mod kuid;
mod public_id;
mod siq;
mod sno;
mod snowflake;

::pgrx::pg_module_magic!();

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    settings::define();
    public_id::install_log_filter();
    if settings::preloaded() {
        request_shared_generators();
    }
}

/// Shared mode (`sql-api.md` §5): preloaded, pg_flake keeps one generator per
/// format (SIQ: one sequencer per kind inside it) in shared memory, each
/// started when the server's shared memory is set up.
fn request_shared_generators() {
    use backend::Shared;
    use kuid::{KUID64, KUID96};
    use siq::GENERATOR as SIQ;
    use sno::GENERATOR as SNO;
    use snowflake::GENERATOR as SNOWFLAKE;
    pgrx::pg_shmem_init!(SNO = Shared::starting_now());
    pgrx::pg_shmem_init!(SIQ = Shared::starting_now());
    pgrx::pg_shmem_init!(SNOWFLAKE = Shared::starting_now());
    pgrx::pg_shmem_init!(KUID64 = Shared::starting_now());
    pgrx::pg_shmem_init!(KUID96 = Shared::starting_now());
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    /// The text a one-value query returns.
    fn text_of(query: &str) -> Option<String> {
        Spi::get_one::<String>(query).unwrap()
    }

    /// Whether 1000 calls of `generate` in one statement strictly increase.
    fn increases_within_a_statement(generate: &str) -> bool {
        Spi::get_one::<bool>(&format!(
            "SELECT bool_and(a < b) FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b \
             FROM (SELECT n, {generate} AS id FROM generate_series(1, 1000) n) s) t \
             WHERE b IS NOT NULL"
        ))
        .unwrap()
            == Some(true)
    }

    #[pg_test]
    fn sno_text_round_trip() {
        assert_eq!(
            text_of("SELECT 'brpk4q72xwf2m63l'::sno::text").as_deref(),
            Some("brpk4q72xwf2m63l")
        );
    }

    #[pg_test]
    fn sno_generate_is_increasing_within_a_backend() {
        assert!(increases_within_a_statement("sno_generate()"));
    }

    // This test server does not preload pg_flake: per-backend generators.
    #[pg_test]
    fn generators_run_per_backend_without_preloading() {
        Spi::run("SELECT sno_generate(), siq_generate('user'), kuid64_generate()").unwrap();
        let modes =
            text_of("SELECT string_agg(DISTINCT mode, ',') FROM pg_flake_generator_state()");
        assert_eq!(modes.as_deref(), Some("backend"));
    }

    #[pg_test]
    fn flaxid_text_round_trip() {
        assert_eq!(
            text_of("SELECT '0RdKJcxqVBiAiQr0'::flaxid::text").as_deref(),
            Some("0RdKJcxqVBiAiQr0")
        );
    }

    #[pg_test]
    fn kuid96_readme_example() {
        let text = text_of(
            "SELECT kuid96_globalize(27084864703004673, kuid_node_fingerprint('uid@127.0.0.1'), 5)::text",
        );
        assert_eq!(text.as_deref(), Some(".5.tXa0xODNvPN.0"));
    }

    #[pg_test]
    fn snowflake_discord_example() {
        let worker = Spi::get_one::<i32>("SELECT worker FROM snowflake_parts(175928847299117063)");
        assert_eq!(worker.unwrap(), Some(1));
    }

    #[pg_test(error = "kuid interval 4 is outside 5 to 10")]
    fn kuid96_rejects_a_bad_interval() {
        Spi::run("SELECT kuid96_timestamp('.5.tXa0xODNvPN.0', 4)").unwrap();
    }

    #[pg_test]
    fn public_id_readme_example() {
        let text = text_of(
            "SELECT alphanumeric_encode(public_id_encrypt('1088824355131185736905670087'::distributed_id, \
             decode('k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=', 'base64')))",
        );
        assert_eq!(text.as_deref(), Some("48XoooHHCe1CiOHrghM7Dl"));
    }

    #[pg_test]
    fn distributed_id_generate_is_increasing_within_a_backend() {
        assert!(increases_within_a_statement("distributed_id_generate()"));
    }

    // This test server does not preload pg_flake: the key setting would not
    // be hidden, so the functions refuse to use it.
    #[pg_test(
        error = "pg_flake.public_id_key is used only when pg_flake is in shared_preload_libraries"
    )]
    fn public_id_key_requires_preloading() {
        Spi::run("SET pg_flake.public_id_key = 'k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc='")
            .unwrap();
        Spi::run("SELECT public_id_encrypt(1::bigint)").unwrap();
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
