//! Every public-identity vector through SQL, round trips against the core
//! for each key size, and the key setting as an ordinary role sees it.

use flake_core::distributed_id::DistributedId;
use flake_core::public_id::PublicIdKey;
use pg_flake_integration::*;
use postgres::{Client, NoTls, SimpleQueryMessage};
use serde_json::Value;

fn text<'a>(v: &'a Value, field: &str) -> &'a str {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("{}: no {field}", v["name"]))
}

/// The three decryptions of `public_id` under a base64 key, as text (NULL: None).
fn decryptions(db: &mut Client, public_id: &str, key: &str) -> [Option<String>; 3] {
    let row = db
        .query_one(
            "SELECT public_id_decrypt_bigint(p, k)::text, public_id_decrypt_distributed_id(p, k)::text,
                    public_id_decrypt_uuid(p, k)::text
             FROM (SELECT $1::text::uuid AS p, decode($2, 'base64') AS k) s",
            &[&public_id, &key],
        )
        .unwrap();
    [row.get(0), row.get(1), row.get(2)]
}

fn expected_decryptions(v: &Value) -> [Option<String>; 3] {
    ["bigint", "distributed_id", "uuid"].map(|t| match &v["decrypt"][t] {
        Value::Null => None,
        other => Some(
            other
                .as_str()
                .map(str::to_owned)
                .unwrap_or(other.to_string()),
        ),
    })
}

#[test]
fn every_public_id_vector_through_sql() {
    let mut db = connect();
    let mut checked = 0;
    for v in vectors("publicid.jsonl") {
        let name = text(&v, "name");
        match text(&v, "kind") {
            "encrypt" => {
                let (input, key) = (text(&v, "input"), text(&v, "key_base64"));
                let input_type = text(&v, "input_type");
                let row = db
                    .query_one(
                        &format!(
                            "SELECT public_id_encrypt($1::text::{input_type}, decode($2, 'base64'))::text,
                                    alphanumeric_encode(public_id_encrypt($1::text::{input_type},
                                                                          decode($2, 'base64')))"
                        ),
                        &[&input, &key],
                    )
                    .unwrap();
                assert_eq!(row.get::<_, String>(0), text(&v, "public_id"), "{name}");
                assert_eq!(
                    row.get::<_, String>(1),
                    text(&v, "public_alphanumeric"),
                    "{name}"
                );
                assert_eq!(
                    decryptions(&mut db, text(&v, "public_id"), key),
                    expected_decryptions(&v),
                    "{name}"
                );
                // The one-argument forms with the key in pg_flake.public_id_key.
                db.batch_execute(&format!("SET pg_flake.public_id_key = '{key}'"))
                    .unwrap();
                let row = db
                    .query_one(
                        &format!(
                            "SELECT public_id_encrypt($1::text::{input_type})::text,
                                    public_id_decrypt_bigint(p)::text,
                                    public_id_decrypt_distributed_id(p)::text,
                                    public_id_decrypt_uuid(p)::text
                             FROM (SELECT $2::text::uuid AS p) s"
                        ),
                        &[&input, &text(&v, "public_id")],
                    )
                    .unwrap();
                assert_eq!(row.get::<_, String>(0), text(&v, "public_id"), "{name}");
                let configured: [Option<String>; 3] = [row.get(1), row.get(2), row.get(3)];
                assert_eq!(configured, expected_decryptions(&v), "{name}: setting");
                db.batch_execute("RESET pg_flake.public_id_key").unwrap();
            }
            "decrypt" => {
                assert_eq!(
                    decryptions(&mut db, text(&v, "public_id"), text(&v, "key_base64")),
                    expected_decryptions(&v),
                    "{name}"
                );
            }
            "out_of_range" => {
                let state = sqlstate(db.query_one(
                    "SELECT public_id_encrypt($1::text::numeric::distributed_id, decode($2, 'base64'))",
                    &[&text(&v, "input"), &text(&v, "key_base64")],
                ));
                assert!(accepts(&v["sqlstate"], &state), "{name}: got {state}");
            }
            "bad_key" => {
                let key = hex(text(&v, "key_hex"));
                for call in [
                    "public_id_encrypt(1::bigint, $1)",
                    "public_id_encrypt('1'::distributed_id, $1)",
                    "public_id_encrypt(gen_random_uuid(), $1)",
                    "public_id_decrypt_bigint(gen_random_uuid(), $1)",
                    "public_id_decrypt_distributed_id(gen_random_uuid(), $1)",
                    "public_id_decrypt_uuid(gen_random_uuid(), $1)",
                ] {
                    let state = sqlstate(db.query_one(&format!("SELECT {call}"), &[&key]));
                    assert!(
                        accepts(&v["sqlstate"], &state),
                        "{name}: {call}: got {state}"
                    );
                }
            }
            other => panic!("{name}: unknown kind {other}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 25);
}

fn uuid_bytes(row: &postgres::Row, i: usize) -> [u8; 16] {
    row.get::<_, Vec<u8>>(i).try_into().unwrap()
}

#[test]
fn random_round_trips_for_each_key_size_agree_with_the_core() {
    let mut db = connect();
    for bytes in [16, 24, 32] {
        let rows = db
            .query(
                "SELECT k, b, d, uuid_send(u),
                        uuid_send(public_id_encrypt(b, k)), uuid_send(public_id_encrypt(d, k)),
                        uuid_send(public_id_encrypt(u, k)),
                        public_id_decrypt_bigint(public_id_encrypt(b, k), k) = b,
                        public_id_decrypt_distributed_id(public_id_encrypt(d, k), k) = d,
                        public_id_decrypt_uuid(public_id_encrypt(u, k), k) = u
                 FROM (SELECT substr(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 1, $1) AS k,
                              (random() * 9.2e18)::bigint AS b,
                              (floor(random() * 1e14)::numeric * 1e14
                               + floor(random() * 1e14)::numeric)::distributed_id AS d,
                              gen_random_uuid() AS u
                       FROM generate_series(1, 300)) s",
                &[&bytes],
            )
            .unwrap();
        for row in &rows {
            let key = PublicIdKey::new(&row.get::<_, Vec<u8>>(0)).unwrap();
            assert_eq!(key.bits(), bytes as u32 * 8);
            let b: i64 = row.get(1);
            let d: DistributedId = row.get(2);
            assert_eq!(
                uuid_bytes(row, 4),
                key.encrypt_i64(b).unwrap(),
                "bigint {b}"
            );
            assert_eq!(uuid_bytes(row, 5), key.encrypt_distributed_id(&d), "{d}");
            assert_eq!(uuid_bytes(row, 6), key.encrypt_uuid(uuid_bytes(row, 3)));
            for i in 7..10 {
                assert!(
                    row.get::<_, bool>(i),
                    "round trip {i} with a {bytes}-byte key"
                );
            }
        }
        assert_eq!(rows.len(), 300);
    }
}

/// The names of the settings `SHOW ALL` lists.
fn show_all(db: &mut Client) -> Vec<String> {
    db.simple_query("SHOW ALL")
        .unwrap()
        .into_iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => r.get(0).map(str::to_owned),
            _ => None,
        })
        .collect()
}

/// Connects as `role` without creating the extension.
fn connect_as(role: &str) -> Client {
    let dsn = dsn().replace("user=postgres", &format!("user={role}"));
    let mut db = Client::connect(&dsn, NoTls).expect("connect as the test role");
    db.batch_execute("SET timezone = 'UTC'").unwrap();
    db
}

/// Runs each statement on its own (ALTER SYSTEM refuses a transaction
/// block), then gives a reload time to reach new sessions.
fn run(db: &mut Client, statements: &[&str]) {
    for statement in statements {
        db.batch_execute(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e:?}"));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
}

/// The key configured server-wide (ALTER SYSTEM, then a reload), as an
/// ordinary role sees it: usable, not readable, not changeable; and the
/// server log never shows it, even with every statement logged.
#[test]
fn an_ordinary_role_uses_the_configured_key_but_cannot_read_or_change_it() {
    let mut admin = connect();
    let row = admin
        .query_one(
            "SELECT encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 'base64'),
                    encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 'base64')",
            &[],
        )
        .unwrap();
    let (key, session_key): (String, String) = (row.get(0), row.get(1));
    run(
        &mut admin,
        &[
            "DROP ROLE IF EXISTS flake_public_reader",
            "CREATE ROLE flake_public_reader LOGIN",
            "ALTER SYSTEM SET log_statement = 'all'",
            "SELECT pg_reload_conf()",
        ],
    );
    run(
        &mut admin,
        &[
            &format!("ALTER SYSTEM SET pg_flake.public_id_key = '{key}'"),
            "SELECT pg_reload_conf()",
        ],
    );
    // Computed here: an explicit key in a statement's parameters would be
    // logged (log_statement = 'all' logs bind parameters).
    let expected = PublicIdKey::from_base64(&key)
        .unwrap()
        .encrypt_i64(42)
        .unwrap()
        .to_vec();

    let mut user = connect_as("flake_public_reader");
    // A fresh session, before any pg_flake function ran in it: the library is
    // preloaded, so the setting is hidden from the start.
    assert_eq!(
        sqlstate(user.simple_query("SHOW pg_flake.public_id_key")),
        "42501"
    );
    let row = user
        .query_one(
            "SELECT uuid_send(public_id_encrypt(42::bigint)),
                    public_id_decrypt_bigint(public_id_encrypt(42::bigint))",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, Vec<u8>>(0), expected);
    assert_eq!(row.get::<_, i64>(1), 42);
    for statement in [
        "SHOW pg_flake.public_id_key",
        "SELECT current_setting('pg_flake.public_id_key')",
        "SELECT current_setting('pg_flake.public_id_key', true)",
        "SELECT set_config('pg_flake.public_id_key', 'AAAAAAAAAAAAAAAAAAAAAA==', false)",
        "SET pg_flake.public_id_key = 'AAAAAAAAAAAAAAAAAAAAAA=='",
        "RESET pg_flake.public_id_key",
        "ALTER SYSTEM SET pg_flake.public_id_key = 'AAAAAAAAAAAAAAAAAAAAAA=='",
        "ALTER ROLE flake_public_reader SET pg_flake.public_id_key = 'AAAAAAAAAAAAAAAAAAAAAA=='",
    ] {
        assert_eq!(
            sqlstate(user.simple_query(statement)),
            "42501",
            "{statement}"
        );
    }
    assert!(!show_all(&mut user)
        .iter()
        .any(|n| n.contains("public_id_key")));
    assert!(!show_all(&mut admin)
        .iter()
        .any(|n| n.contains("public_id_key")));
    let listed: i64 = user
        .query_one(
            "SELECT count(*) FROM pg_settings WHERE name LIKE '%public_id_key%'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(listed, 0);
    // Still the same key after the failed attempts.
    let again: Vec<u8> = user
        .query_one("SELECT uuid_send(public_id_encrypt(42::bigint))", &[])
        .unwrap()
        .get(0);
    assert_eq!(again, expected);
    drop(user);

    // A key passed as a bind parameter of a statement that names the
    // setting is not logged either (log_statement logs bind parameters).
    let set: String = admin
        .query_one(
            "SELECT set_config('pg_flake.public_id_key', $1, false)",
            &[&session_key],
        )
        .unwrap()
        .get(0);
    assert_eq!(set, session_key);

    // An invalid value is refused without showing it.
    let refused = admin
        .batch_execute("ALTER SYSTEM SET pg_flake.public_id_key = 'c2VjcmV0LWJ1dC10b28tc2hvcnQ='")
        .unwrap_err();
    assert_eq!(refused.code().map(|c| c.code()), Some("22023"));
    assert!(!format!("{refused:?}").contains("c2VjcmV0"), "{refused:?}");

    run(
        &mut admin,
        &[
            "ALTER SYSTEM RESET pg_flake.public_id_key",
            "ALTER SYSTEM RESET log_statement",
            "SELECT pg_reload_conf()",
            "DROP ROLE flake_public_reader",
        ],
    );
    if let Ok(log) = std::env::var("PG_FLAKE_TEST_LOG") {
        let log = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{log}: {e}"));
        assert!(!log.contains(&key), "the server log shows the key");
        assert!(
            !log.contains(&session_key),
            "the server log shows a bound key"
        );
        assert!(
            !log.contains("c2VjcmV0"),
            "the server log shows a refused key"
        );
        assert!(log.contains("parameter \"pg_flake.public_id_key\" changed (value not shown)"));
    }
}
