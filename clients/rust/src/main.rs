//! pg_flake from tokio-postgres with flake-core's `postgres` feature, as a
//! test: every check prints what it showed and the program exits non-zero if
//! one fails. Run against a database where pg_flake may be dropped and
//! created again (it does both):
//!
//! ```sh
//! PG_FLAKE_TEST_DSN='host=127.0.0.1 port=5432 user=postgres dbname=flake_clients' cargo run
//! ```

use std::collections::BTreeMap;
use std::error::Error;
use std::future::Future;

use flake_core::clock::SystemClock;
use flake_core::distributed_id::DistributedId;
use flake_core::flaxid::FlaxId;
use flake_core::kuid::Kuid96;
use flake_core::siq::Siq;
use flake_core::sno::{Sno, SnoGenerator, SLOT_RULE};
use futures_util::{pin_mut, StreamExt};
use tokio_postgres::binary_copy::{BinaryCopyInWriter, BinaryCopyOutStream};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, NoTls};

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

/// One value of each native type, from the examples of docs/sql-reference.md.
const SNO: &str = "brpk4q72xwf2m63l";
const SIQ: &str = "crxckuyagku7racaaacmgzymuoabo";
const DISTRIBUTED_ID: &str = "1088824355131185736905670087";
const FLAXID: &str = "17cQYV3E6XowHpdd";
const KUID96: &str = ".5.tXa0xODNvPN.0";

const TYPE_NAMES: [&str; 5] = ["sno", "siq", "distributed_id", "flaxid", "kuid96"];

/// The OIDs this database gave pg_flake's types at CREATE EXTENSION time.
const TYPE_OIDS: &str = "SELECT t.typname::text, t.oid FROM pg_type t \
    JOIN pg_extension e ON e.extnamespace = t.typnamespace \
    WHERE e.extname = 'pg_flake' AND t.typname = ANY ($1)";

/// The pg_flake types as tokio-postgres knows them on this client: a
/// prepared statement's column types, looked up by the client (and cached
/// by OID) when it prepared the statement.
async fn flake_types(client: &Client) -> Result<Vec<Type>> {
    let statement = client
        .prepare("SELECT NULL::sno, NULL::siq, NULL::distributed_id, NULL::flaxid, NULL::kuid96")
        .await?;
    Ok(statement
        .columns()
        .iter()
        .map(|c| c.type_().clone())
        .collect())
}

async fn type_oids(client: &Client) -> Result<BTreeMap<String, u32>> {
    let names: Vec<&str> = TYPE_NAMES.to_vec();
    let rows = client.query(TYPE_OIDS, &[&names]).await?;
    let oids: BTreeMap<String, u32> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    ensure(
        oids.len() == TYPE_NAMES.len(),
        "pg_flake types found (CREATE EXTENSION pg_flake first)",
    )?;
    Ok(oids)
}

fn ensure(condition: bool, what: &str) -> Result<()> {
    if condition {
        Ok(())
    } else {
        Err(format!("check failed: {what}").into())
    }
}

fn ensure_eq<T: PartialEq + std::fmt::Debug>(expected: T, actual: T, what: &str) -> Result<()> {
    if expected == actual {
        Ok(())
    } else {
        Err(format!("{what}: expected {expected:?}, got {actual:?}").into())
    }
}

/// The SQLSTATE of a failed statement.
fn sql_state<T: std::fmt::Debug>(
    result: std::result::Result<T, tokio_postgres::Error>,
) -> Result<SqlState> {
    match result {
        Ok(value) => Err(format!("expected an error, got {value:?}").into()),
        Err(e) => e
            .code()
            .cloned()
            .ok_or_else(|| format!("expected a server error, got {e}").into()),
    }
}

struct Checks {
    passed: usize,
    failed: usize,
}

impl Checks {
    async fn check<F: Future<Output = Result<String>>>(&mut self, name: &str, body: F) {
        match body.await {
            Ok(shown) => {
                self.passed += 1;
                println!(
                    "ok   {name}{}",
                    if shown.is_empty() {
                        String::new()
                    } else {
                        format!(": {shown}")
                    }
                );
            }
            Err(e) => {
                self.failed += 1;
                println!("FAIL {name}: {e}");
            }
        }
    }
}

async fn connect(dsn: &str) -> Result<Client> {
    let (client, connection) = tokio_postgres::connect(dsn, NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("connection error: {e}");
        }
    });
    Ok(client)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let dsn = std::env::var("PG_FLAKE_TEST_DSN")
        .unwrap_or_else(|_| "host=127.0.0.1 port=5432 user=postgres dbname=flake_clients".into());
    let client = connect(&dsn).await?;
    println!("tokio-postgres 0.7 with flake-core (this repository's core/)");
    client
        .batch_execute(
            "CREATE EXTENSION IF NOT EXISTS pg_flake;
             DROP TABLE IF EXISTS rust_recipe, rust_recipe_copy;
             CREATE TABLE rust_recipe (sno sno, siq siq, distributed_id distributed_id,
                                       flaxid flaxid, kuid96 kuid96);
             CREATE TABLE rust_recipe_copy (LIKE rust_recipe);",
        )
        .await?;
    let sno: Sno = SNO.parse()?;
    let siq: Siq = SIQ.parse()?;
    let distributed_id: DistributedId = DISTRIBUTED_ID.parse()?;
    let flaxid: FlaxId = FLAXID.parse()?;
    let kuid96: Kuid96 = KUID96.parse()?;
    let mut checks = Checks {
        passed: 0,
        failed: 0,
    };
    let mut oids = BTreeMap::new();
    let mut types = Vec::new();

    checks
        .check(
            "types looked up: the client's Type for each, and its OID",
            async {
                oids = type_oids(&client).await?;
                types = flake_types(&client).await?;
                for ty in &types {
                    ensure_eq(Some(&ty.oid()), oids.get(ty.name()), ty.name())?;
                }
                Ok(format!("{oids:?}"))
            },
        )
        .await;

    checks
        .check(
            "binary round trip of every native type (parameters and results)",
            async {
                let row = client
                    .query_one(
                        "SELECT $1::sno, $2::siq, $3::distributed_id, $4::flaxid, $5::kuid96",
                        &[&sno, &siq, &distributed_id, &flaxid, &kuid96],
                    )
                    .await?;
                ensure_eq(sno, row.get(0), "sno")?;
                ensure_eq(siq, row.get(1), "siq")?;
                ensure_eq(distributed_id, row.get(2), "distributed_id")?;
                ensure_eq(flaxid, row.get(3), "flaxid")?;
                ensure_eq(kuid96, row.get(4), "kuid96")?;
                client
                    .execute(
                        "INSERT INTO rust_recipe VALUES ($1, $2, $3, $4, $5)",
                        &[&sno, &siq, &distributed_id, &flaxid, &kuid96],
                    )
                    .await?;
                let stored = client
                    .query_one("SELECT * FROM rust_recipe WHERE sno = $1", &[&sno])
                    .await?;
                ensure_eq(kuid96, stored.get("kuid96"), "kuid96 stored")?;
                Ok(format!("{sno} {siq} {distributed_id} {flaxid} {kuid96}"))
            },
        )
        .await;

    checks
        .check("the server's text and decoders agree with flake-core", async {
            let row = client
                .query_one(
                    "SELECT $1::sno::text, (extract(epoch FROM sno_timestamp($1)) * 1000000)::bigint,
                            sno_partition($1), siq_kind($2), siq_serial($2), siq_to_hex($2)",
                    &[&sno, &siq],
                )
                .await?;
            ensure_eq(SNO, row.get::<_, &str>(0), "sno text")?;
            ensure_eq(sno.unix_micros(), row.get(1), "sno_timestamp")?;
            ensure_eq(sno.partition() as i32, row.get(2), "sno_partition")?;
            ensure_eq(siq.kind().map(|k| k.to_string()), row.get(3), "siq_kind")?;
            ensure_eq(siq.serial() as i32, row.get(4), "siq_serial")?;
            ensure_eq(siq.to_hex(), row.get(5), "siq_to_hex")?;
            Ok(format!("sno_timestamp = {} µs, siq kind {:?}", sno.unix_micros(), row.get::<_, Option<&str>>(3)))
        })
        .await;

    checks
        .check(
            "IDs made in Rust and IDs made by the server go both ways",
            async {
                let mut clock = SystemClock;
                let mut generator =
                    SnoGenerator::starting_now(SLOT_RULE.assign(0, 1)?, &mut clock)?;
                let ours: Vec<Sno> = (0..100)
                    .map(|_| generator.generate(&mut clock, 7, 42))
                    .collect::<flake_core::Result<_>>()?;
                let row = client
                    .query_one(
                        "SELECT bool_and(sno_meta(id) = 42 AND sno_partition(id) >> 8 = 7),
                            array_agg(id ORDER BY id) = $1, count(*), array_agg(id ORDER BY id DESC)
                     FROM unnest($1::sno[]) id",
                        &[&ours],
                    )
                    .await?;
                ensure_eq(
                    (true, true, 100i64),
                    (row.get(0), row.get(1), row.get(2)),
                    "our IDs in SQL",
                )?;
                let reversed: Vec<Sno> = row.get(3);
                ensure(
                    reversed.iter().rev().eq(ours.iter()),
                    "sno[] back in reverse",
                )?;
                let theirs: Vec<Sno> = client
                    .query("SELECT sno_generate() FROM generate_series(1, 100)", &[])
                    .await?
                    .iter()
                    .map(|r| r.get(0))
                    .collect();
                ensure(
                    theirs.windows(2).all(|w| w[0] < w[1]),
                    "server IDs increase",
                )?;
                Ok(format!(
                    "100 of ours as sno[] in and out, 100 of the server's, e.g. {} and {}",
                    ours[0], theirs[0]
                ))
            },
        )
        .await;

    checks
        .check(
            "text: a &str needs $1::text::sno (a $1::sno parameter is binary)",
            async {
                let wrong = client.query_one("SELECT $1::sno", &[&SNO]).await;
                let message = match wrong {
                    Ok(_) => return Err("a &str was accepted as sno".into()),
                    Err(e) => match e.source() {
                        Some(source) => format!("{e}: {source}"),
                        None => e.to_string(),
                    },
                };
                ensure(
                    message.contains("cannot convert"),
                    &format!("the client refuses &str for sno: {message}"),
                )?;
                let row = client
                    .query_one("SELECT $1::text::sno, $1::text::sno::text", &[&SNO])
                    .await?;
                ensure_eq(sno, row.get(0), "sno from text")?;
                ensure_eq(SNO, row.get::<_, &str>(1), "text")?;
                let messages = client.simple_query(&format!("SELECT '{SNO}'::sno")).await?;
                let text = messages
                    .iter()
                    .find_map(|m| match m {
                        tokio_postgres::SimpleQueryMessage::Row(row) => {
                            row.get(0).map(str::to_owned)
                        }
                        _ => None,
                    })
                    .ok_or("no row")?;
                ensure_eq(sno, text.parse::<Sno>()?, "simple query text parses")?;
                Ok(format!(
                    "&str for $1::sno: \"{message}\"; $1::text::sno and simple_query work"
                ))
            },
        )
        .await;

    checks
        .check("COPY BINARY out and in, typed by the looked-up Types", async {
            client
                .execute(
                    "INSERT INTO rust_recipe SELECT sno_generate(), siq_generate('event'),
                        distributed_id_generate(), flaxid_generate(), kuid96_generate()
                     FROM generate_series(1, 999)",
                    &[],
                )
                .await?;
            let out = client.copy_out("COPY rust_recipe TO STDOUT (FORMAT binary)").await?;
            let rows = BinaryCopyOutStream::new(out, &types);
            pin_mut!(rows);
            let mut copied: Vec<(Sno, Siq, DistributedId, FlaxId, Kuid96)> = Vec::new();
            while let Some(row) = rows.next().await {
                let row = row?;
                copied.push((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?, row.try_get(3)?, row.try_get(4)?));
            }
            ensure_eq(1000, copied.len(), "rows out")?;
            let sink = client.copy_in("COPY rust_recipe_copy FROM STDIN (FORMAT binary)").await?;
            let writer = BinaryCopyInWriter::new(sink, &types);
            pin_mut!(writer);
            for (a, b, c, d, e) in &copied {
                let values: [&(dyn ToSql + Sync); 5] = [a, b, c, d, e];
                writer.as_mut().write(&values).await?;
            }
            let written = writer.finish().await?;
            ensure_eq(1000, written, "rows in")?;
            let differences: i64 = client
                .query_one(
                    "SELECT count(*) FROM (SELECT * FROM rust_recipe EXCEPT ALL SELECT * FROM rust_recipe_copy
                     UNION ALL SELECT * FROM rust_recipe_copy EXCEPT ALL SELECT * FROM rust_recipe) d",
                    &[],
                )
                .await?
                .get(0);
            ensure_eq(0, differences, "rows that differ after the copy")?;
            Ok(format!("{} rows out as flake-core values and back in, identical", copied.len()))
        })
        .await;

    checks
        .check("bad input: clear errors with SQLSTATE", async {
            let state = sql_state(
                client
                    .query_one("SELECT $1::text::sno", &[&"not-a-sno"])
                    .await,
            )?;
            ensure_eq(SqlState::INVALID_TEXT_REPRESENTATION, state, "bad text")?;
            let state = sql_state(
                client
                    .query_one("SELECT $1::bytea::sno", &[&vec![0u8; 9]])
                    .await,
            )?;
            ensure_eq(SqlState::INVALID_BINARY_REPRESENTATION, state, "9 bytes")?;
            ensure(
                "BRPK4Q72XWF2M63L".parse::<Sno>().is_err(),
                "flake-core is strict too",
            )?;
            Ok("22P02 for bad text, 22P03 for 9 bytes".into())
        })
        .await;

    checks
        .check(
            "after DROP/CREATE EXTENSION: re-prepare (or a new client)",
            async {
                let before = client.prepare("SELECT $1::sno").await?;
                ensure_eq(
                    sno,
                    client.query_one(&before, &[&sno]).await?.get(0),
                    "before",
                )?;
                client
                    .batch_execute("DROP TABLE rust_recipe, rust_recipe_copy")
                    .await?;
                let other = connect(&dsn).await?;
                other
                    .batch_execute("DROP EXTENSION pg_flake; CREATE EXTENSION pg_flake")
                    .await?;
                let fresh = type_oids(&client).await?;
                ensure(fresh["sno"] != oids["sno"], "new OIDs")?;
                // A statement prepared before still names the old type.
                let stale = client.query_one(&before, &[&sno]).await;
                let stale_shown = match &stale {
                    Ok(_) => "still works".to_string(),
                    Err(e) => match e.as_db_error() {
                        Some(db) => format!("{} {}", db.code().code(), db.message()),
                        None => e.to_string(),
                    },
                };
                ensure(stale.is_err(), "the old statement fails")?;
                // Preparing again asks the server, and the client looks up the
                // new OIDs (its type cache is keyed by OID).
                let again = client.prepare("SELECT $1::sno").await?;
                ensure_eq(fresh["sno"], again.params()[0].oid(), "re-prepared")?;
                ensure_eq(
                    sno,
                    client.query_one(&again, &[&sno]).await?.get(0),
                    "re-prepared",
                )?;
                let renewed = connect(&dsn).await?;
                ensure_eq(
                    sno,
                    renewed.query_one("SELECT $1::sno", &[&sno]).await?.get(0),
                    "new client",
                )?;
                Ok(format!(
                    "sno {} -> {}; old statement: {stale_shown}; re-prepared and a new client work",
                    oids["sno"], fresh["sno"]
                ))
            },
        )
        .await;

    println!(
        "rust: {} of {} checks passed",
        checks.passed,
        checks.passed + checks.failed
    );
    std::process::exit(if checks.failed == 0 { 0 } else { 1 });
}
