//! A database with a table per type survives `pg_dump` (plain and custom
//! formats) and a restore into a new database: the same rows in the same
//! order, every btree index passing amcheck, hash and BRIN indexes giving
//! the answers of a sequential scan, and the generators still working.

use pg_flake_integration::*;
use postgres::Client;
use std::path::Path;
use std::time::Instant;

const SOURCE: &str = "flake_dump_source";
const ROWS: i32 = 3_000;

/// One table: a type, its generator, and an `IMMUTABLE` function of a value
/// (`{}` is the column) for a generated column and an expression index.
struct Table {
    name: &'static str,
    sql_type: &'static str,
    generate: &'static str,
    timestamp: &'static str,
}

const TABLES: [Table; 8] = [
    Table {
        name: "sno",
        sql_type: "sno",
        generate: "sno_generate()",
        timestamp: "sno_timestamp({})",
    },
    Table {
        name: "siq",
        sql_type: "siq",
        generate: "siq_generate('event')",
        timestamp: "siq_timestamp({})",
    },
    Table {
        name: "flaxid",
        sql_type: "flaxid",
        generate: "flaxid_generate()",
        timestamp: "flaxid_timestamp({})",
    },
    Table {
        name: "kuid96",
        sql_type: "kuid96",
        generate: "kuid96_generate()",
        timestamp: "kuid96_timestamp({}, 8)",
    },
    Table {
        name: "distributed_id",
        sql_type: "distributed_id",
        generate: "distributed_id_generate()",
        timestamp: "distributed_id_timestamp({})",
    },
    Table {
        name: "snowflake",
        sql_type: "bigint",
        generate: "snowflake_generate()",
        timestamp: "snowflake_timestamp({}, 1420070400000)",
    },
    Table {
        name: "kuid64",
        sql_type: "bigint",
        generate: "kuid64_generate()",
        timestamp: "kuid64_timestamp({})",
    },
    Table {
        name: "distributed_id128",
        sql_type: "uuid",
        generate: "distributed_id128_generate()",
        timestamp: "distributed_id128_timestamp({})",
    },
];

impl Table {
    fn table(&self) -> String {
        format!("dump_{}", self.name)
    }

    fn timestamp_of(&self, column: &str) -> String {
        self.timestamp.replace("{}", column)
    }

    /// The key is the primary key (btree) with the generator as default;
    /// `other` is nullable (every fifth row NULL) with a hash, a BRIN and an
    /// expression btree index; `created` is generated from the key; `pair`
    /// is an array of the type.
    fn create(&self, db: &mut Client) {
        let (table, t, generate) = (self.table(), self.sql_type, self.generate);
        db.batch_execute(&format!(
            "CREATE TABLE {table} (
                 id {t} PRIMARY KEY DEFAULT {generate},
                 other {t},
                 created timestamptz GENERATED ALWAYS AS ({created}) STORED,
                 pair {t}[],
                 n int NOT NULL);
             CREATE INDEX {table}_other_hash ON {table} USING hash (other);
             CREATE INDEX {table}_other_brin ON {table} USING brin (other) WITH (pages_per_range = 2);
             CREATE INDEX {table}_other_time ON {table} (({other_time}) DESC NULLS FIRST);
             INSERT INTO {table} (other, n)
                 SELECT CASE WHEN g % 5 <> 0 THEN {generate} END, g FROM generate_series(1, {ROWS}) g;
             UPDATE {table} SET pair = ARRAY[id, other];",
            created = self.timestamp_of("id"),
            other_time = self.timestamp_of("other"),
        ))
        .unwrap_or_else(|e| panic!("{table}: {e:?}"));
    }

    /// Every row as text, in key order.
    fn rows(&self, db: &mut Client) -> Vec<String> {
        db.query(
            &format!("SELECT t::text FROM {} t ORDER BY id", self.table()),
            &[],
        )
        .expect("read the rows")
        .iter()
        .map(|row| row.get(0))
        .collect()
    }

    /// Answers through the hash index (equality on `other`) and the BRIN
    /// index (a range of `other`) must be those of a sequential scan, and the
    /// plans must use those indexes. Returns the number of lookups.
    fn check_hash_and_brin(&self, db: &mut Client) -> usize {
        let table = self.table();
        let t = self.sql_type;
        // 25 values spread over the column, in the type's order.
        let probes: Vec<String> = db
            .query(
                &format!(
                    "SELECT other::text FROM (SELECT other, row_number() OVER (ORDER BY other) AS r
                                              FROM {table} WHERE other IS NOT NULL) s
                     WHERE r % 97 = 1 ORDER BY other"
                ),
                &[],
            )
            .expect("pick probe values")
            .iter()
            .map(|row| row.get(0))
            .collect();
        let equal = format!("SELECT count(*) FROM {table} WHERE other = $1::text::{t}");
        let range = format!(
            "SELECT count(*) FROM {table} WHERE other >= $1::text::{t} AND other <= $2::text::{t}"
        );
        let mut lookups = 0;
        for pair in probes.windows(2) {
            let (low, high) = (&pair[0], &pair[1]);
            for (sql, params, index) in [
                (&equal, vec![low], "other_hash"),
                (&range, vec![low, high], "other_brin"),
            ] {
                let params: Vec<&(dyn postgres::types::ToSql + Sync)> = params
                    .iter()
                    .map(|p| *p as &(dyn postgres::types::ToSql + Sync))
                    .collect();
                let count = |db: &mut Client, settings: &str| -> i64 {
                    let mut tx = db.transaction().expect("begin");
                    tx.batch_execute(settings).expect("planner settings");
                    let plan: Vec<String> = tx
                        .query(&format!("EXPLAIN (COSTS OFF) {sql}"), &params)
                        .expect("explain")
                        .iter()
                        .map(|row| row.get(0))
                        .collect();
                    let uses_index = plan.iter().any(|l| l.contains(&format!("{table}_{index}")));
                    assert_eq!(
                        uses_index,
                        settings.contains("enable_seqscan = off"),
                        "{table}: plan under {settings:?}:\n{}",
                        plan.join("\n")
                    );
                    let n = tx.query_one(sql.as_str(), &params).expect("count").get(0);
                    tx.rollback().expect("rollback");
                    n
                };
                let through_index = count(db, "SET LOCAL enable_seqscan = off");
                let sequential = count(
                    db,
                    "SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off",
                );
                assert_eq!(through_index, sequential, "{table}: {sql} with {params:?}");
                lookups += 1;
            }
        }
        lookups
    }
}

/// Every btree index of the database passes `bt_index_check` with the
/// heap check, and no index is invalid. Returns the number checked: 0 where
/// the server has no amcheck (PostgreSQL 16 from PyPI ships no contrib
/// modules; docs/operations.md "Versions"), whose rows and lookups are still compared.
fn check_btrees(db: &mut Client) -> i64 {
    let available: bool = db
        .query_one(
            "SELECT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'amcheck')",
            &[],
        )
        .expect("pg_available_extensions")
        .get(0);
    if !available {
        println!("dump and restore: amcheck is not installed here: btree checks skipped");
        return 0;
    }
    db.batch_execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        .expect("amcheck is available");
    let invalid: i64 = db
        .query_one(
            "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE c.relname LIKE 'dump\\_%' AND NOT (i.indisvalid AND i.indisready)",
            &[],
        )
        .expect("index states")
        .get(0);
    assert_eq!(invalid, 0, "invalid indexes");
    db.query_one(
        "SELECT count(bt_index_check(c.oid, true))
         FROM pg_class c JOIN pg_am a ON a.oid = c.relam
         WHERE c.relkind = 'i' AND a.amname = 'btree' AND c.relname LIKE 'dump\\_%'",
        &[],
    )
    .expect("bt_index_check")
    .get(0)
}

fn recreate_database(admin: &mut Client, name: &str) {
    // Two statements: neither may run inside a transaction block.
    for sql in [
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        format!("CREATE DATABASE {name} TEMPLATE template0"),
    ] {
        admin
            .batch_execute(&sql)
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    }
}

fn connect_to(dbname: &str) -> Client {
    try_connect(Some(dbname), None).unwrap_or_else(|e| panic!("connect to {dbname}: {e:?}"))
}

/// Restores a dump into a new database `name` and compares it with the
/// source: rows, indexes, then generation of new rows.
fn restore_and_compare(
    admin: &mut Client,
    name: &str,
    dump: &Path,
    format: &str,
    source_rows: &[Vec<String>],
) {
    let started = Instant::now();
    recreate_database(admin, name);
    let log = if format == "plain" {
        run_tool(
            pg_tool("psql")
                .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", name, "-f"])
                .arg(dump),
        )
    } else {
        run_tool(
            pg_tool("pg_restore")
                .args(["--exit-on-error", "-d", name])
                .arg(dump),
        )
    };
    assert!(
        !log.contains("ERROR") && !log.contains("WARNING"),
        "{format} restore:\n{log}"
    );
    let restored = started.elapsed();
    let mut db = connect_to(name);
    db.batch_execute("SET timezone = 'UTC'").expect("set UTC");
    let mut rows = 0;
    let mut lookups = 0;
    for (table, expected) in TABLES.iter().zip(source_rows) {
        let got = table.rows(&mut db);
        assert!(
            got == *expected,
            "{format} restore: {} differs ({} rows, source {})",
            table.table(),
            got.len(),
            expected.len()
        );
        rows += got.len();
        lookups += table.check_hash_and_brin(&mut db);
    }
    let btrees = check_btrees(&mut db);
    // The restored defaults still generate, after the restored keys.
    for table in &TABLES {
        let t = table.table();
        db.batch_execute(&format!(
            "INSERT INTO {t} (other, n) SELECT {generate}, g FROM generate_series(1, 100) g",
            generate = table.generate
        ))
        .unwrap_or_else(|e| panic!("{format} restore: generate into {t}: {e:?}"));
    }
    println!(
        "dump and restore ({format}): {} tables, {rows} rows identical in key order, \
         {btrees} btree indexes pass bt_index_check (heapallindexed), {lookups} hash/BRIN lookups \
         agree with sequential scans, 100 new rows per table generated; restore {:.2} s",
        TABLES.len(),
        restored.as_secs_f64()
    );
    drop(db);
    admin
        .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
        .expect("drop the restored database");
}

#[test]
fn dump_and_restore_every_type() {
    let started = Instant::now();
    let mut admin = connect();
    recreate_database(&mut admin, SOURCE);
    let mut source = connect_to(SOURCE);
    source
        .batch_execute("SET timezone = 'UTC'; CREATE EXTENSION pg_flake")
        .expect("create the extension");
    for table in &TABLES {
        table.create(&mut source);
    }
    let nulls: i64 = TABLES
        .iter()
        .map(|t| {
            source
                .query_one(
                    &format!("SELECT count(*) FROM {} WHERE other IS NULL", t.table()),
                    &[],
                )
                .expect("count NULLs")
                .get::<_, i64>(0)
        })
        .sum();
    let source_rows: Vec<Vec<String>> = TABLES.iter().map(|t| t.rows(&mut source)).collect();
    let lookups: usize = TABLES
        .iter()
        .map(|t| t.check_hash_and_brin(&mut source))
        .sum();
    let btrees = check_btrees(&mut source);
    println!(
        "dump and restore: source {SOURCE}: {} tables x {ROWS} rows ({nulls} NULLs), \
         {btrees} btree indexes pass bt_index_check, {lookups} hash/BRIN lookups agree",
        TABLES.len()
    );
    source
        .batch_execute("DROP EXTENSION IF EXISTS amcheck")
        .expect("the source's dump holds pg_flake only");
    drop(source);

    let dir = std::env::temp_dir().join(format!("pg_flake_dump_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the dump directory");
    for (format, flag, file) in [
        ("plain", "-Fp", "dump.sql"),
        ("custom", "-Fc", "dump.custom"),
    ] {
        let path = dir.join(file);
        let clock = Instant::now();
        run_tool(
            pg_tool("pg_dump")
                .args([flag, "-d", SOURCE, "-f"])
                .arg(&path),
        );
        let size = std::fs::metadata(&path).expect("the dump exists").len();
        println!(
            "dump and restore: pg_dump {flag}: {size} bytes in {:.2} s",
            clock.elapsed().as_secs_f64()
        );
        restore_and_compare(
            &mut admin,
            &format!("flake_dump_{format}"),
            &path,
            format,
            &source_rows,
        );
    }
    std::fs::remove_dir_all(&dir).expect("remove the dumps");
    admin
        .batch_execute(&format!("DROP DATABASE {SOURCE} WITH (FORCE)"))
        .expect("drop the source database");
    println!(
        "dump and restore: done in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
