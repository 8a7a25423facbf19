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
