//! What a role without superuser rights can and cannot do with pg_flake:
//! use every type and call every function; not set the settings that
//! identify a server, nor read `pg_flake.public_id_key` (whose functions it
//! can still use); and, the extension being trusted, install it in a
//! database where it may create objects.

use flake_core::distributed_id::DistributedId;
use flake_core::flaxid::FlaxId;
use flake_core::kuid::Kuid96;
use flake_core::siq::Siq;
use flake_core::sno::Sno;
use pg_flake_integration::catalog::{drop_role, extension_functions, KEY};
use pg_flake_integration::*;
use postgres::Client;
use std::collections::BTreeMap;

/// The functions of leases (docs/sql-reference.md "Leases") and the statistics'
/// reset ("Statistics"): EXECUTE is revoked from PUBLIC, a superuser grants
/// it to the application's or monitoring role (the helpers the lease
/// functions call are granted to no one).
const GRANTED_ONLY: [&str; 7] = [
    "pg_flake_lease",
    "pg_flake_lease_promise",
    "pg_flake_lease_range",
    "pg_flake_lease_role",
    "pg_flake_release",
    "pg_flake_renew",
    "pg_flake_stats_reset",
];

/// The settings only a superuser may set (docs/sql-reference.md "Settings"). A change
/// here is a change of the security model: update the documentation with it.
const SUPERUSER_ONLY: [&str; 13] = [
    "pg_flake.kuid_interval",
    "pg_flake.kuid_node",
    "pg_flake.lease_max_per_role",
    "pg_flake.lease_nodes",
    "pg_flake.max_clock_jump",
    "pg_flake.max_clock_lag",
    "pg_flake.node",
    "pg_flake.public_id_key",
    "pg_flake.siq_domain",
    "pg_flake.siq_node",
    "pg_flake.sno_node",
    "pg_flake.snowflake_epoch",
    "pg_flake.snowflake_worker",
];

/// A fresh LOGIN role (trust authentication) with a schema of its own, and
/// a connection as it whose search path puts that schema first.
fn ordinary_role(admin: &mut Client, role: &str) -> Client {
    drop_role(admin, role);
    admin
        .batch_execute(&format!(
            "CREATE ROLE {role} LOGIN; CREATE SCHEMA {role} AUTHORIZATION {role}"
        ))
        .expect("create the role");
    let mut db = try_connect(None, Some(role)).expect("connect as the role");
    let superuser: bool = db
        .query_one(
            "SELECT rolsuper FROM pg_roles WHERE rolname = current_user",
            &[],
        )
        .expect("role")
        .get(0);
    assert!(!superuser);
    db.batch_execute(&format!(
        "SET search_path = {role}, public; SET timezone = 'UTC'"
    ))
    .expect("search path");
    db
}

/// Sets `pg_flake.public_id_key` server-wide until dropped, so that there
/// is something to hide, and waits until new sessions have it.
struct ServerKey;

impl ServerKey {
    fn set(admin: &mut Client) -> ServerKey {
        configure(admin, &format!("SET pg_flake.public_id_key = '{KEY}'"));
        for _ in 0..500 {
            let key: String = connect()
                .query_one("SHOW pg_flake.public_id_key", &[])
                .expect("a superuser reads the key")
                .get(0);
            if key == KEY {
                return ServerKey;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("the reloaded key never reached new sessions");
    }
}

impl Drop for ServerKey {
    fn drop(&mut self) {
        configure(&mut connect(), "RESET pg_flake.public_id_key");
    }
}

/// `ALTER SYSTEM {change}` and a reload (two statements: ALTER SYSTEM may
/// not run in the implicit transaction of a multi-statement query).
fn configure(admin: &mut Client, change: &str) {
    for sql in [
        format!("ALTER SYSTEM {change}"),
        "SELECT pg_reload_conf()".into(),
    ] {
        admin
            .batch_execute(&sql)
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    }
}

#[test]
fn non_superuser_uses_every_type_and_function() {
    const ROLE: &str = "flake_user";
    let mut admin = connect();
    let _key = ServerKey::set(&mut admin);
    let mut db = ordinary_role(&mut admin, ROLE);

    // Tables with every type, generated keys and every index kind.
    db.batch_execute(
        "CREATE TABLE ids (
             sno sno PRIMARY KEY DEFAULT sno_generate(),
             siq siq DEFAULT siq_generate('user'),
             flaxid flaxid DEFAULT flaxid_generate(),
             kuid96 kuid96 DEFAULT kuid96_generate(),
             did distributed_id DEFAULT distributed_id_generate(),
             snowflake bigint DEFAULT snowflake_generate(),
             kuid64 bigint DEFAULT kuid64_generate(),
             did128 uuid DEFAULT distributed_id128_generate(),
             n int);
         CREATE INDEX ON ids (siq); CREATE INDEX ON ids USING hash (flaxid);
         CREATE INDEX ON ids USING brin (kuid96); CREATE INDEX ON ids (did DESC);
         CREATE INDEX ON ids USING hash (sno); CREATE INDEX ON ids USING brin (siq);
         INSERT INTO ids (n) SELECT g FROM generate_series(1, 1000) g;
         CREATE TABLE partitioned_ids (id sno PRIMARY KEY) PARTITION BY RANGE (id);",
    )
    .expect("a non-superuser creates tables with every type");
    let distinct: i64 = db
        .query_one(
            "SELECT count(DISTINCT (sno, siq, flaxid, kuid96, did, snowflake, kuid64, did128))
             FROM (SELECT * FROM ids ORDER BY sno, siq, flaxid, kuid96, did) s",
            &[],
        )
        .expect("read them")
        .get(0);
    assert_eq!(distinct, 1000);

    // Binary parameters and results: every type's receive and send.
    let sno: Sno = "brpk4q72xwf2m63l".parse().expect("sno");
    let siq: Siq = "crxckuyagku7racaaacmgzymuoabo".parse().expect("siq");
    let flaxid: FlaxId = "17cQYV3E6XowHpdd".parse().expect("flaxid");
    let kuid96: Kuid96 = ".5.tXa0xODNvPN.0".parse().expect("kuid96");
    let did: DistributedId = "1088824355131185736905670087".parse().expect("did");
    let row = db
        .query_one(
            "SELECT $1::sno, $2::siq, $3::flaxid, $4::kuid96, $5::distributed_id",
            &[&sno, &siq, &flaxid, &kuid96, &did],
        )
        .expect("binary input and output");
    assert_eq!(
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4)),
        (sno, siq, flaxid, kuid96, did)
    );

    // Every type and function: USAGE and EXECUTE, and a call of each.
    let unusable: Vec<String> = db
        .query(
            "SELECT t.oid::regtype::text FROM pg_depend d JOIN pg_type t ON t.oid = d.objid
             WHERE d.classid = 'pg_type'::regclass AND d.deptype = 'e'
               AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_flake')
               AND NOT has_type_privilege(t.oid, 'USAGE')",
            &[],
        )
        .expect("type privileges")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(unusable.is_empty(), "types without USAGE: {unusable:?}");
    let functions = extension_functions(&mut db);
    let mut called = 0;
    let mut internal = Vec::new();
    let mut failed = Vec::new();
    for f in &functions {
        let executable: bool = db
            .query_one(
                "SELECT has_function_privilege($1::text::regprocedure, 'EXECUTE')",
                &[&f.signature],
            )
            .expect("function privilege")
            .get(0);
        if GRANTED_ONLY.contains(&f.name.as_str()) {
            // Leases and the statistics' reset: only a role a superuser
            // granted them to.
            assert!(!executable, "PUBLIC has EXECUTE on {}", f.signature);
            let sql = f.call().expect("a lease function takes no internal");
            assert_eq!(state(&mut db, &sql), "42501", "{sql}");
            called += 1;
            continue;
        }
        assert!(executable, "no EXECUTE on {}", f.signature);
        match f.call() {
            // The one function only a superuser may run (it moves a
            // durable mark, docs/guarantees.md "Restarts, crashes and the clock"): it
            // refuses with 42501.
            Some(sql) if f.name == "pg_flake_set_mark" => {
                assert_eq!(state(&mut db, &sql), "42501", "{sql}");
                called += 1;
            }
            Some(sql) => match db.batch_execute(&sql) {
                Ok(()) => called += 1,
                Err(e) => failed.push(format!("{sql}: {e:?}")),
            },
            None => internal.push(f.name.clone()),
        }
    }
    assert!(
        failed.is_empty(),
        "calls that failed:\n{}",
        failed.join("\n")
    );
    let generators = functions
        .iter()
        .filter(|f| f.name.ends_with("_generate"))
        .count();
    assert_eq!(generators, 8, "every generator is among the calls");
    println!(
        "privileges: a non-superuser created a table with every type, 6 indexes (btree, hash, BRIN) \
         and 1000 generated rows; has USAGE on every type and EXECUTE on the {} functions but the leases'; called {called} \
         (all {generators} generators included) without error but pg_flake_set_mark (42501, superuser \
         only) and the {} lease and reset functions (42501 without a grant); the other {} take `internal` \
         ({}), exercised by binary parameters, ORDER BY and the indexes",
        functions.len(),
        GRANTED_ONLY.len(),
        internal.len(),
        internal.join(", ")
    );
    drop(db);
    drop_role(&mut admin, ROLE);
}

/// The SQLSTATE of a statement, "ok" when it succeeds.
fn state(db: &mut Client, sql: &str) -> String {
    sqlstate(db.batch_execute(sql))
}

#[test]
fn non_superuser_cannot_set_node_settings_or_read_the_key() {
    const ROLE: &str = "flake_settings_user";
    let mut admin = connect();
    assert_eq!(
        mode(),
        "shared",
        "the key is hidden only with pg_flake preloaded"
    );
    let _key = ServerKey::set(&mut admin);
    // The superuser-only settings are exactly those docs/sql-reference.md names: what
    // pg_settings says, plus the key, which it never lists.
    let settings: BTreeMap<String, (String, String)> = admin
        .query(
            "SELECT name, context, boot_val FROM pg_settings WHERE name LIKE 'pg_flake.%'",
            &[],
        )
        .expect("pg_settings")
        .iter()
        .map(|r| {
            (
                r.get(0),
                (r.get(1), r.get::<_, Option<String>>(2).unwrap_or_default()),
            )
        })
        .collect();
    assert!(!settings.contains_key("pg_flake.public_id_key"));
    let mut superuser_only: Vec<&str> = settings
        .iter()
        .filter(|(_, (context, _))| context == "superuser")
        .map(|(name, _)| name.as_str())
        .chain(["pg_flake.public_id_key"])
        .collect();
    superuser_only.sort_unstable();
    assert_eq!(superuser_only, SUPERUSER_ONLY);

    let mut db = ordinary_role(&mut admin, ROLE);
    let mut refused = BTreeMap::new();
    for name in SUPERUSER_ONLY {
        // A value the setting's own check accepts: only the privilege fails.
        let value = settings.get(name).map_or(KEY, |(_, boot)| boot.as_str());
        for sql in [
            format!("SET {name} = '{value}'"),
            format!("SET LOCAL {name} = '{value}'"),
            format!("SELECT set_config('{name}', '{value}', false)"),
            format!("ALTER SYSTEM SET {name} = '{value}'"),
            format!("ALTER ROLE {ROLE} SET {name} = '{value}'"),
        ] {
            let got = state(&mut db, &sql);
            assert_eq!(got, "42501", "{sql}");
            *refused.entry(got).or_insert(0) += 1;
        }
    }
    // The others are the user's own.
    let mut user_settable = 0;
    for (name, (context, boot)) in settings.iter().filter(|(_, (c, _))| c == "user") {
        assert_eq!(
            state(&mut db, &format!("SET {name} = '{boot}'")),
            "ok",
            "{name} ({context})"
        );
        user_settable += 1;
    }

    // The key: not readable in any way, yet usable.
    let key = "pg_flake.public_id_key";
    for sql in [
        format!("SHOW {key}"),
        format!("SELECT current_setting('{key}')"),
        format!("SELECT current_setting('{key}', true)"),
    ] {
        assert_eq!(state(&mut db, &sql), "42501", "{sql}");
    }
    let listed: i64 = db
        .query_one(
            "SELECT (SELECT count(*) FROM pg_settings WHERE name = $1)
                  + (SELECT count(*) FROM pg_show_all_settings() WHERE name = $1)",
            &[&key],
        )
        .expect("pg_settings")
        .get(0);
    assert_eq!(listed, 0, "pg_settings lists the key");
    let show_all = db.simple_query("SHOW ALL").expect("SHOW ALL");
    let shown = show_all.iter().any(|m| match m {
        postgres::SimpleQueryMessage::Row(r) => r.get(0) == Some(key) || r.get(1) == Some(KEY),
        _ => false,
    });
    assert!(!shown, "SHOW ALL shows the key");
    let encrypted: String = db
        .query_one("SELECT public_id_encrypt(42::bigint)::text", &[])
        .expect("the role uses the key")
        .get(0);
    let expected: String = admin
        .query_one(
            &format!("SELECT public_id_encrypt(42::bigint, decode('{KEY}', 'base64'))::text"),
            &[],
        )
        .expect("encrypt with the key")
        .get(0);
    assert_eq!(encrypted, expected);
    println!(
        "privileges: a non-superuser is refused {} (5 ways each: SET, SET LOCAL, set_config, \
         ALTER SYSTEM, ALTER ROLE … SET) for {}, sets the {user_settable} others; \
         cannot read pg_flake.public_id_key (SHOW, current_setting with and without missing_ok: 42501; \
         not in pg_settings, pg_show_all_settings() or SHOW ALL) yet public_id_encrypt(42::bigint) \
         uses it",
        by_sqlstate(&refused),
        SUPERUSER_ONLY.join(", ")
    );
    drop(db);
    drop_role(&mut admin, ROLE);
}

/// Whether a control file says `trusted = true`.
fn trusted(control: &str) -> bool {
    control.lines().any(|line| {
        let mut kv = line.splitn(2, '=').map(str::trim);
        kv.next() == Some("trusted") && kv.next() == Some("true")
    })
}

#[test]
fn non_superuser_creates_the_extension_when_trusted() {
    const ROLE: &str = "flake_creator";
    const DATABASE: &str = "flake_trusted";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../pg_flake.control");
    let control = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let want = trusted(&control);
    let mut admin = connect();
    let installed: bool = admin
        .query_one(
            "SELECT v.trusted FROM pg_available_extension_versions v
             JOIN pg_available_extensions e ON e.name = v.name AND e.default_version = v.version
             WHERE v.name = 'pg_flake'",
            &[],
        )
        .expect("the installed control file")
        .get(0);
    assert_eq!(
        installed, want,
        "the installed pg_flake.control says trusted = {installed}, the repository's {want}: \
         reinstall the extension"
    );
    for sql in [
        format!("DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)"),
        format!("CREATE DATABASE {DATABASE}"),
    ] {
        admin.batch_execute(&sql).expect("database");
    }
    drop_role(&mut admin, ROLE);
    admin
        .batch_execute(&format!(
            "CREATE ROLE {ROLE} LOGIN; GRANT CREATE ON DATABASE {DATABASE} TO {ROLE}"
        ))
        .expect("create the role");
    let mut db = try_connect(Some(DATABASE), Some(ROLE)).expect("connect as the role");
    db.batch_execute("CREATE SCHEMA ids")
        .expect("create a schema");
    let created = state(&mut db, "CREATE EXTENSION pg_flake SCHEMA ids");
    if want {
        assert_eq!(created, "ok", "a trusted extension");
        let row = db
            .query_one(
                "SELECT e.extowner::regrole::text,
                        (SELECT count(DISTINCT p.proowner) FROM pg_proc p WHERE p.pronamespace = e.extnamespace),
                        (SELECT min(p.proowner::regrole::text) FROM pg_proc p WHERE p.pronamespace = e.extnamespace),
                        ids.sno_generate() IS NOT NULL
                 FROM pg_extension e WHERE e.extname = 'pg_flake'",
                &[],
            )
            .expect("the extension");
        let (owner, owners, objects_owner, generated): (String, i64, String, bool) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        assert_eq!(owner, ROLE, "the extension belongs to its creator");
        assert_eq!(owners, 1);
        assert_ne!(
            objects_owner, ROLE,
            "its objects belong to the bootstrap superuser"
        );
        assert!(generated);
        assert_eq!(state(&mut db, "DROP EXTENSION pg_flake"), "ok");
        println!(
            "privileges: trusted = true; a non-superuser with CREATE on a database created the \
             extension (owned by {owner}, its functions by {objects_owner}), generated an sno and \
             dropped it"
        );
    } else {
        assert_eq!(created, "42501", "an untrusted extension");
        println!(
            "privileges: trusted = false; CREATE EXTENSION by a non-superuser with CREATE on the \
             database is 42501"
        );
    }
    drop(db);
    admin
        .batch_execute(&format!("DROP DATABASE {DATABASE} WITH (FORCE)"))
        .expect("drop the database");
    drop_role(&mut admin, ROLE);
}
