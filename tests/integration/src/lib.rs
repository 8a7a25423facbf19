//! Shared helpers for the integration tests, which run against a real server
//! started by `make test` (connection string in `PG_FLAKE_TEST_DSN`).

use postgres::{Client, NoTls};
use serde_json::Value;

pub mod catalog;

/// The vectors and their encodings, read as flake-core's tests read them.
pub use flake_test_support::{as_i64, hex, vectors};

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

/// What `assert_concurrent_generation` checks about the IDs of one connection.
#[derive(Debug, Clone, Copy)]
pub enum Order {
    /// They strictly increase.
    Increasing,
    /// They strictly increase among the IDs with the same value of the SQL
    /// expression of `id` named here (e.g. the SIQ kind).
    IncreasingPer(&'static str),
    /// The SQL function named here (e.g. a timestamp) never decreases: for
    /// formats ordered by time unit only, random within it.
    NonDecreasing(&'static str),
}

/// How the IDs of a coordination-based format show the counter that made
/// them: SQL expressions of `id`.
#[derive(Debug, Clone, Copy)]
pub struct Counter {
    /// The time unit (SIQ: with the kind, each kind having its own counter).
    pub unit: &'static str,
    /// The sequence value within the unit.
    pub sequence: &'static str,
    /// The process field, for formats that have one.
    pub process: Option<&'static str>,
}

/// The mode pg_flake runs in on the test server (docs/guarantees.md "Guarantees", docs/operations.md "Shared mode"):
/// The mode of the server's generators: `shared`, preloaded or not, on
/// every version (0.4.0; earlier versions gave each backend its own
/// generators on 15 and 16 without preloading). `PG_FLAKE_TEST_MODE`, set
/// by `scripts/test-sql.sh`, must say the same. The concurrency tests check
/// that `pg_flake_generator_state()` reports it.
pub fn mode() -> &'static str {
    match std::env::var("PG_FLAKE_TEST_MODE").as_deref() {
        Ok("shared") | Err(_) => "shared",
        Ok(other) => panic!("PG_FLAKE_TEST_MODE is {other:?}: every server runs shared mode"),
    }
}

fn table_for(expr: &str) -> String {
    let name: String = expr
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    format!("concurrency_{name}")
}

/// `connections` concurrent connections each insert `rows` rows whose key is
/// the column default `default_expr` (of SQL type `sql_type`) into one table
/// with a primary key. Asserts: no error (so no duplicate key), every row
/// distinct, every generator reporting the expected [`mode`], and within each
/// connection the keys follow `order`. For a coordination-based format
/// (`counter` given), in shared mode: every ID has process field 0 and within
/// each time unit the sequence values are exactly 0, 1, 2, … (one counter for
/// the whole server); in backend mode: each connection has its own slot, and
/// with it a (process field, sequence range) pair of its own, which all its
/// IDs carry.
pub fn assert_concurrent_generation(
    sql_type: &str,
    default_expr: &str,
    connections: i32,
    rows: i32,
    order: Order,
    counter: Option<Counter>,
) {
    const BATCH: i32 = 5_000;
    let mode = mode();
    let table = table_for(default_expr);
    let mut db = connect();
    db.batch_execute(&format!(
        "DROP TABLE IF EXISTS {table}, {table}_slots;
         CREATE TABLE {table} (id {sql_type} PRIMARY KEY DEFAULT {default_expr}, conn int, n int);
         CREATE TABLE {table}_slots (conn int, kind text, slot int, process int, range_first int, range_last int)"
    ))
    .unwrap();
    let insert = format!(
        "INSERT INTO {table} (conn, n) SELECT $1::int, g FROM generate_series($2::int, $3::int) g"
    );
    let record_slot = format!(
        "INSERT INTO {table}_slots SELECT $1::int, kind, slot, process, range_first, range_last
         FROM pg_flake_generator_state()"
    );
    let started = std::time::Instant::now();
    let workers: Vec<_> = (0..connections)
        .map(|conn| {
            let (insert, record_slot) = (insert.clone(), record_slot.clone());
            std::thread::spawn(move || {
                let mut db = connect();
                for start in (0..rows).step_by(BATCH as usize) {
                    let end = (start + BATCH).min(rows) - 1;
                    db.execute(&insert, &[&conn, &start, &end])
                        .unwrap_or_else(|e| panic!("connection {conn}: {e:?}"));
                }
                let other_modes: i64 = db
                    .query_one(
                        "SELECT count(*) FROM pg_flake_generator_state() WHERE mode <> $1",
                        &[&mode],
                    )
                    .unwrap()
                    .get(0);
                assert_eq!(
                    other_modes, 0,
                    "connection {conn}: generators in {mode} mode"
                );
                db.execute(&record_slot, &[&conn]).unwrap();
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
    let (key, partition, out_of_order, described) = match order {
        Order::Increasing => (
            "id".to_string(),
            "conn".to_string(),
            "<=",
            "strictly increasing".to_string(),
        ),
        Order::IncreasingPer(per) => (
            "id".to_string(),
            format!("conn, {per}"),
            "<=",
            format!("strictly increasing per {per}"),
        ),
        Order::NonDecreasing(f) => (
            format!("{f}(id)"),
            "conn".to_string(),
            "<",
            format!("{f} non-decreasing"),
        ),
    };
    let disordered: i64 = db
        .query_one(
            &format!(
                "SELECT count(*) FROM (SELECT {key} AS k, lag({key}) OVER (PARTITION BY {partition} ORDER BY n) AS prev
                                       FROM {table}) s WHERE k {out_of_order} prev"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(disordered, 0, "IDs of one connection: {described}");
    let counted = match (counter, mode) {
        (Some(counter), "shared") => assert_one_counter(&mut db, &table, counter),
        (Some(counter), _) => assert_own_slot_per_connection(&mut db, &table, counter),
        (None, _) => String::new(),
    };
    println!(
        "{default_expr} concurrency ({mode} mode): {connections} connections x {rows} rows = {total} distinct IDs, \
         0 errors, per-connection {described}{counted} ({:.1} s)",
        elapsed.as_secs_f64()
    );
    db.batch_execute(&format!("DROP TABLE {table}, {table}_slots"))
        .unwrap();
}

/// Shared mode: process field 0 everywhere, and within each unit the
/// sequence values used are exactly 0, 1, 2, …: one counter for the server.
fn assert_one_counter(db: &mut Client, table: &str, counter: Counter) -> String {
    let Counter {
        unit,
        sequence,
        process,
    } = counter;
    if let Some(process) = process {
        let nonzero: i64 = db
            .query_one(
                &format!("SELECT count(*) FROM {table} WHERE {process} <> 0"),
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(nonzero, 0, "shared mode: process field 0");
    }
    // Contiguous in every unit, and from 0 but in the table's first unit:
    // the server's counter may have begun that one before the test (IDs of
    // an earlier test, or issued just after a restart, ahead of the clock).
    let row = db
        .query_one(
            &format!(
                "SELECT count(*),
                        count(*) FILTER (WHERE (lo <> 0 AND u <> first) OR hi <> lo + n - 1 OR d <> n),
                        max(n)
                 FROM (SELECT *, min(u) OVER () AS first
                       FROM (SELECT {unit} AS u, count(*) AS n, min({sequence}) AS lo,
                                    max({sequence}) AS hi, count(DISTINCT {sequence}) AS d
                             FROM {table} GROUP BY 1) g) s"
            ),
            &[],
        )
        .unwrap();
    let (units, broken, busiest): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(
        broken, 0,
        "shared mode: in each unit the sequence values are contiguous (from 0 after the first unit)"
    );
    format!(
        ", one server-wide counter ({units} units, each contiguous, from 0 after the first, up to {busiest} IDs in one)"
    )
}

/// Backend mode: each connection runs in its own slot, which gives it a
/// process field value and a sequence range (`SlotRule`, docs/guarantees.md
/// "Guarantees"); no two connections share both, and every ID of a
/// connection carries its process field and a sequence value in its range.
/// Each connection reports its slot from `pg_flake_generator_state()`
/// (`{table}_slots`). The slot is `MyBackendId - 1`, the lowest free one, so
/// a few connections happen to take the first slots and to differ in a 5-bit
/// process field as well; the test asks only what the rule promises, which
/// also holds where slots are handed out otherwise (`MyProcNumber`, first-in
/// first-out, from PostgreSQL 17, which however runs shared mode without
/// preloading too).
fn assert_own_slot_per_connection(db: &mut Client, table: &str, counter: Counter) -> String {
    let row = db
        .query_one(
            &format!(
                "SELECT count(DISTINCT conn), count(DISTINCT slot), count(DISTINCT (conn, slot)),
                        (SELECT string_agg(slot::text, ', ' ORDER BY slot)
                         FROM (SELECT DISTINCT slot FROM {table}_slots) d)
                 FROM {table}_slots"
            ),
            &[],
        )
        .unwrap();
    let (conns, slots, pairs, listed): (i64, i64, i64, String) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    let connections: i64 = db
        .query_one(&format!("SELECT count(DISTINCT conn) FROM {table}"), &[])
        .unwrap()
        .get(0);
    assert_eq!(
        (conns, slots, pairs),
        (connections, connections, connections),
        "backend mode: every connection reports one slot of its own (slots {listed})"
    );
    let shared: i64 = db
        .query_one(
            &format!(
                "SELECT count(*) FROM {table}_slots a JOIN {table}_slots b
                   ON a.conn < b.conn AND a.kind IS NOT DISTINCT FROM b.kind AND a.process = b.process
                  AND a.range_first <= b.range_last AND b.range_first <= a.range_last"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        shared, 0,
        "backend mode: no two connections share a process field value and sequence range"
    );
    let process = counter
        .process
        .map_or("true".to_string(), |p| format!("{p} = s.process"));
    let outside: i64 = db
        .query_one(
            &format!(
                "SELECT count(*) FROM {table} t WHERE NOT EXISTS (
                    SELECT FROM {table}_slots s WHERE s.conn = t.conn AND {process}
                        AND {sequence} BETWEEN s.range_first AND s.range_last)",
                sequence = counter.sequence
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        outside, 0,
        "backend mode: every ID carries its connection's process field and a sequence in its range"
    );
    format!(
        ", one slot per connection (slots {listed}), each ID in its connection's \
         process field and sequence range"
    )
}

/// Shared mode: `connections` connections take turns, each generating one
/// ID with `expr` after the previous one returned, `rounds` times. The IDs,
/// in that order, must strictly increase: one generator for the server.
pub fn assert_increasing_across_connections(
    sql_type: &str,
    expr: &str,
    connections: usize,
    rounds: usize,
) {
    assert_eq!(
        mode(),
        "shared",
        "only shared mode orders IDs across backends"
    );
    let table = format!("{}_turns", table_for(expr));
    let mut db = connect();
    db.batch_execute(&format!(
        "DROP TABLE IF EXISTS {table};
         CREATE TABLE {table} (id {sql_type} PRIMARY KEY, n int)"
    ))
    .unwrap();
    let mut clients: Vec<Client> = (0..connections).map(|_| connect()).collect();
    let insert = format!("INSERT INTO {table} (id, n) VALUES ({expr}, $1)");
    for n in 0..(connections * rounds) as i32 {
        clients[n as usize % connections]
            .execute(&insert, &[&n])
            .unwrap();
    }
    let disordered: i64 = db
        .query_one(
            &format!(
                "SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM {table}) s
                 WHERE id <= prev"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        disordered, 0,
        "{expr}: strictly increasing across connections"
    );
    println!(
        "{expr}: {connections} connections taking turns, {} IDs strictly increasing across them",
        connections * rounds
    );
    db.batch_execute(&format!("DROP TABLE {table}")).unwrap();
}

/// The server's version as a number (`SHOW server_version_num`: 150014,
/// 180001, …), for what PostgreSQL itself does differently across versions.
pub fn server_version_num(db: &mut Client) -> i32 {
    let text: String = db
        .query_one("SHOW server_version_num", &[])
        .expect("read server_version_num")
        .get(0);
    text.parse()
        .unwrap_or_else(|e| panic!("server_version_num {text:?}: {e}"))
}

/// The test server's connection settings (`PG_FLAKE_TEST_DSN`).
pub fn config() -> postgres::Config {
    dsn()
        .parse()
        .expect("PG_FLAKE_TEST_DSN is a valid connection string")
}

/// A connection to `dbname` as `user` (each defaulting to the DSN's), which,
/// unlike [`connect`], neither creates the extension nor retries: for other
/// databases and roles, and for waiting on a recovering server.
pub fn try_connect(dbname: Option<&str>, user: Option<&str>) -> Result<Client, postgres::Error> {
    let mut config = config();
    if let Some(dbname) = dbname {
        config.dbname(dbname);
    }
    if let Some(user) = user {
        config.user(user);
    }
    config.connect(NoTls)
}

/// A PostgreSQL client program (`pg_dump`, `psql`, …) from `PG_BIN`
/// (default PostgreSQL 15's), pointed at the test server's host, port and
/// user; the caller adds the database.
pub fn pg_tool(program: &str) -> std::process::Command {
    let bin = std::env::var("PG_BIN").unwrap_or_else(|_| "/usr/lib/postgresql/15/bin".into());
    let config = config();
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(host)) => host.clone(),
        #[cfg(unix)]
        Some(postgres::config::Host::Unix(dir)) => dir.display().to_string(),
        None => "127.0.0.1".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let mut command = std::process::Command::new(format!("{bin}/{program}"));
    command
        .args(["-h", &host, "-p", &port.to_string(), "-U"])
        .arg(config.get_user().unwrap_or("postgres"));
    command
}

/// Runs `command`, panicking with its output unless it succeeds; returns
/// its standard error (warnings a caller may want to check).
pub fn run_tool(command: &mut std::process::Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{stderr}",
        output.status
    );
    stderr
}

/// What shows that the server neither crashed nor restarted while a test
/// ran: a connection of its own that must survive (a crashing backend makes
/// the postmaster end every other one), the server log
/// (`PG_FLAKE_TEST_LOG`) written since the watch began, and the postmaster's
/// start time (which a crash restart does not change: the crash test shows
/// it, so it only catches a full restart).
pub struct ServerWatch {
    sentinel: Client,
    sentinel_pid: i32,
    started: String,
    log: Option<(String, u64)>,
}

/// Server log lines that only a crashed backend or postmaster writes.
const CRASH_MARKS: [&str; 3] = ["terminated by signal", "server process", "PANIC"];

impl ServerWatch {
    pub fn start(db: &mut Client) -> ServerWatch {
        let log = std::env::var("PG_FLAKE_TEST_LOG").ok().map(|path| {
            let len = std::fs::metadata(&path)
                .unwrap_or_else(|e| panic!("PG_FLAKE_TEST_LOG {path}: {e}"))
                .len();
            (path, len)
        });
        let mut sentinel = try_connect(None, None).expect("connect the watch's sentinel");
        ServerWatch {
            sentinel_pid: backend_pid(&mut sentinel).expect("the sentinel's backend"),
            sentinel,
            started: postmaster_start_time(db),
            log,
        }
    }

    /// Panics if a backend crashed or the postmaster restarted since
    /// [`ServerWatch::start`]; says what was checked.
    pub fn assert_no_crash(self, db: &mut Client) -> String {
        self.check(db).unwrap_or_else(|crash| panic!("{crash}"))
    }

    /// What was checked, or the evidence of a crash or restart.
    pub fn check(mut self, db: &mut Client) -> Result<String, String> {
        let sentinel = backend_pid(&mut self.sentinel);
        if !matches!(sentinel, Ok(pid) if pid == self.sentinel_pid) {
            return Err(format!(
                "the watch's connection did not survive: {sentinel:?}"
            ));
        }
        let now = postmaster_start_time(db);
        if now != self.started {
            return Err(format!(
                "the postmaster restarted: started {} then {now}",
                self.started
            ));
        }
        let Some((path, offset)) = &self.log else {
            return Ok(
                "an idle connection survived (PG_FLAKE_TEST_LOG unset: log not checked)".into(),
            );
        };
        let log = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let written = String::from_utf8_lossy(&log[(*offset as usize).min(log.len())..]);
        let crashes: Vec<&str> = written
            .lines()
            .filter(|line| CRASH_MARKS.iter().any(|mark| line.contains(mark)))
            .collect();
        if !crashes.is_empty() {
            return Err(format!(
                "the server log reports a crash:\n{}",
                crashes.join("\n")
            ));
        }
        Ok(format!(
            "an idle connection survived, postmaster start time {} unchanged, \
             no crash in {} bytes of server log",
            self.started,
            written.len()
        ))
    }
}

fn backend_pid(db: &mut Client) -> Result<i32, postgres::Error> {
    db.query_one("SELECT pg_backend_pid()", &[])
        .map(|r| r.get(0))
}

pub fn postmaster_start_time(db: &mut Client) -> String {
    db.query_one("SELECT pg_postmaster_start_time()::text", &[])
        .expect("read the postmaster start time")
        .get(0)
}

/// A count per SQLSTATE, printed as `22P02 × 12, 22P03 × 3`.
pub fn by_sqlstate(states: &std::collections::BTreeMap<String, usize>) -> String {
    if states.is_empty() {
        return "none".to_string();
    }
    states
        .iter()
        .map(|(state, n)| format!("{state} × {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}
