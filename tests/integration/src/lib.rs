//! Shared helpers for the integration tests, which run against a real server
//! started by `make test` (connection string in `PG_FLAKE_TEST_DSN`).

use postgres::{Client, NoTls};
use serde_json::Value;

pub fn dsn() -> String {
    std::env::var("PG_FLAKE_TEST_DSN").unwrap_or_else(|_| {
        panic!("PG_FLAKE_TEST_DSN is not set: run these tests through `make test`")
    })
}

pub fn connect() -> Client {
    let mut client = Client::connect(&dsn(), NoTls).expect("connect to the test server");
    client
        .batch_execute("CREATE EXTENSION IF NOT EXISTS pg_flake; SET timezone = 'UTC'")
        .expect("pg_flake is installed");
    client
}

pub fn vectors(file: &str) -> Vec<Value> {
    let path = format!("{}/../vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON"))
        .collect()
}

pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The SQLSTATE of a failed statement.
pub fn sqlstate(result: Result<impl Sized, postgres::Error>) -> String {
    match result {
        Ok(_) => "ok".to_string(),
        Err(e) => e
            .code()
            .map(|c| c.code().to_string())
            .unwrap_or_else(|| format!("{e}")),
    }
}

/// Whether a vector's `sqlstate` (one code or a list) accepts `actual`.
pub fn accepts(expected: &Value, actual: &str) -> bool {
    match expected {
        Value::String(s) => s == actual,
        Value::Array(a) => a.iter().any(|v| v.as_str() == Some(actual)),
        _ => false,
    }
}

/// An integer given as a JSON number or, above 2^53, as a decimal string.
pub fn as_i64(v: &Value) -> i64 {
    match v {
        Value::String(s) => s.parse().unwrap(),
        other => other.as_i64().unwrap(),
    }
}

/// What `assert_concurrent_generation` checks about the IDs of one connection.
#[derive(Debug, Clone, Copy)]
pub enum Order {
    /// They strictly increase.
    Increasing,
    /// The SQL function named here (e.g. a timestamp) never decreases: for
    /// formats ordered by time unit only, random within it.
    NonDecreasing(&'static str),
}

/// `connections` concurrent connections each insert `rows` rows whose key is
/// the column default `default_expr` (of SQL type `sql_type`) into one table
/// with a primary key. Asserts: no error (so no duplicate key), every row
/// distinct, and within each connection the keys follow `order`.
pub fn assert_concurrent_generation(
    sql_type: &str,
    default_expr: &str,
    connections: i32,
    rows: i32,
    order: Order,
) {
    const BATCH: i32 = 5_000;
    let name: String = default_expr
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let table = format!("concurrency_{name}");
    let mut db = connect();
    db.batch_execute(&format!(
        "DROP TABLE IF EXISTS {table};
         CREATE TABLE {table} (id {sql_type} PRIMARY KEY DEFAULT {default_expr}, conn int, n int)"
    ))
    .unwrap();
    let insert = format!(
        "INSERT INTO {table} (conn, n) SELECT $1::int, g FROM generate_series($2::int, $3::int) g"
    );
    let started = std::time::Instant::now();
    let workers: Vec<_> = (0..connections)
        .map(|conn| {
            let insert = insert.clone();
            std::thread::spawn(move || {
                let mut db = connect();
                for start in (0..rows).step_by(BATCH as usize) {
                    let end = (start + BATCH).min(rows) - 1;
                    db.execute(&insert, &[&conn, &start, &end])
                        .unwrap_or_else(|e| panic!("connection {conn}: {e}"));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker finished without error");
    }
    let elapsed = started.elapsed();
    let row = db
        .query_one(
            &format!("SELECT count(*), count(DISTINCT id) FROM {table}"),
            &[],
        )
        .unwrap();
    let total = connections as i64 * rows as i64;
    assert_eq!(row.get::<_, i64>(0), total);
    assert_eq!(row.get::<_, i64>(1), total);
    let (key, out_of_order, described) = match order {
        Order::Increasing => ("id".to_string(), "<=", "strictly increasing".to_string()),
        Order::NonDecreasing(f) => (format!("{f}(id)"), "<", format!("{f} non-decreasing")),
    };
    let disordered: i64 = db
        .query_one(
            &format!(
                "SELECT count(*) FROM (SELECT {key} AS k, lag({key}) OVER (PARTITION BY conn ORDER BY n) AS prev
                                       FROM {table}) s WHERE k {out_of_order} prev"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(disordered, 0, "IDs of one connection: {described}");
    println!(
        "{default_expr} concurrency: {connections} connections x {rows} rows = {total} distinct IDs, \
         0 errors, per-connection {described} ({:.1} s)",
        elapsed.as_secs_f64()
    );
    db.batch_execute(&format!("DROP TABLE {table}")).unwrap();
}
