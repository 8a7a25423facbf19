//! A backend killed with SIGKILL while four connections insert generated
//! keys: the postmaster restarts every backend, every committed row is
//! intact, and generation continues without a duplicate key.
//!
//! This restarts every backend of the server, so it must not run beside
//! other tests (`scripts/test-sql.sh` runs one test at a time).

use pg_flake_integration::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Coordination-based formats: (table suffix, SQL type, generator).
const FORMATS: [(&str, &str, &str); 5] = [
    ("sno", "sno", "sno_generate()"),
    ("siq", "siq", "siq_generate('message')"),
    ("snowflake", "bigint", "snowflake_generate()"),
    ("kuid64", "bigint", "kuid64_generate()"),
    ("kuid96", "kuid96", "kuid96_generate()"),
];
const CONNECTIONS: usize = 4;
const BATCH: i32 = 200;
/// Batches per connection that must have committed before the kill.
const BEFORE_KILL: usize = 10;
/// Batches per connection (spread over the formats) after recovery.
const AFTER: i32 = 25;

fn insert_sql(format: usize) -> String {
    format!(
        "INSERT INTO crash_{} (conn, batch, n) SELECT $1, $2, g FROM generate_series(1, $3) g
         RETURNING id::text",
        FORMATS[format].0
    )
}

/// What one connection did: the keys of every batch the server confirmed,
/// and the batch in flight when the connection broke (with the error).
#[derive(Default)]
struct Work {
    committed: Vec<(usize, i32, Vec<String>)>,
    broken: Option<(usize, i32, String)>,
}

/// Inserts batches round-robin over the formats until the connection
/// breaks or `stop` is set; reports its backend's pid first.
fn insert_until_broken(
    conn: i32,
    pid: std::sync::mpsc::Sender<i32>,
    done: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> Work {
    let mut db = connect();
    let backend: i32 = db
        .query_one("SELECT pg_backend_pid()", &[])
        .expect("backend pid")
        .get(0);
    pid.send(backend).expect("report the pid");
    let mut work = Work::default();
    for batch in 0.. {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let format = batch as usize % FORMATS.len();
        match db.query(&insert_sql(format), &[&conn, &batch, &BATCH]) {
            Ok(rows) => {
                work.committed
                    .push((format, batch, rows.iter().map(|r| r.get(0)).collect()));
                done.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                let state = e
                    .code()
                    .map_or_else(|| "connection closed".to_string(), |c| c.code().into());
                work.broken = Some((format, batch, state));
                break;
            }
        }
    }
    work
}

/// Connects again and again until the server answers; returns the client.
fn reconnect(deadline: Duration) -> postgres::Client {
    let started = Instant::now();
    loop {
        match try_connect(None, None).and_then(|mut db| db.simple_query("SELECT 1").map(|_| db)) {
            Ok(db) => return db,
            Err(_) if started.elapsed() < deadline => thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("the server did not recover within {deadline:?}: {e:?}"),
        }
    }
}

#[test]
fn killed_backend_loses_no_committed_row() {
    let mut db = connect();
    for (name, sql_type, generate) in FORMATS {
        db.batch_execute(&format!(
            "DROP TABLE IF EXISTS crash_{name};
             CREATE TABLE crash_{name} (id {sql_type} PRIMARY KEY DEFAULT {generate},
                                        conn int, batch int, n int)"
        ))
        .unwrap_or_else(|e| panic!("crash_{name}: {e:?}"));
    }
    let started_before = postmaster_start_time(&mut db);
    let log_offset = std::env::var("PG_FLAKE_TEST_LOG")
        .ok()
        .map(|path| std::fs::metadata(&path).map_or(0, |m| m.len()));
    // The other tests' evidence of "no crash" must see this one.
    let watch = ServerWatch::start(&mut db);
    drop(db);

    let stop = Arc::new(AtomicBool::new(false));
    let (pid_tx, pid_rx) = std::sync::mpsc::channel();
    let counters: Vec<Arc<AtomicUsize>> = (0..CONNECTIONS).map(|_| Arc::default()).collect();
    let workers: Vec<_> = counters
        .iter()
        .enumerate()
        .map(|(conn, done)| {
            let (pid_tx, done, stop) = (pid_tx.clone(), done.clone(), stop.clone());
            thread::spawn(move || insert_until_broken(conn as i32, pid_tx, done, stop))
        })
        .collect();
    let pids: Vec<i32> = (0..CONNECTIONS)
        .map(|_| pid_rx.recv().expect("a worker's pid"))
        .collect();
    let waited = Instant::now();
    while counters
        .iter()
        .any(|c| c.load(Ordering::Relaxed) < BEFORE_KILL)
    {
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "the workers do not commit"
        );
        thread::sleep(Duration::from_millis(5));
    }
    let victim = pids[0];
    let status = std::process::Command::new("kill")
        .args(["-9", &victim.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -9 {victim}: {status}");
    let killed = Instant::now();
    // A worker whose backend somehow survives must not insert forever.
    thread::spawn(move || {
        thread::sleep(Duration::from_secs(30));
        stop.store(true, Ordering::Relaxed);
    });
    let work: Vec<Work> = workers
        .into_iter()
        .map(|w| w.join().expect("worker"))
        .collect();
    let mut db = reconnect(Duration::from_secs(120));
    let recovery = killed.elapsed();
    let broken: Vec<String> = work
        .iter()
        .map(|w| match &w.broken {
            Some((_, _, state)) => state.clone(),
            None => panic!("a connection outlived the crash of its server"),
        })
        .collect();
    let started_after = postmaster_start_time(&mut db);
    let noticed = watch
        .check(&mut db)
        .expect_err("the crash watch notices a killed backend");
    if let (Ok(path), Some(offset)) = (std::env::var("PG_FLAKE_TEST_LOG"), log_offset) {
        let log = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let written = String::from_utf8_lossy(&log[offset as usize..]);
        // The postmaster names the dead child: PostgreSQL 18 by its type,
        // earlier versions as a "server process".
        let killed = if server_version_num(&mut db) >= 180_000 {
            "client backend"
        } else {
            "server process"
        };
        for mark in [
            format!("{killed} (PID {victim}) was terminated by signal 9"),
            "all server processes terminated; reinitializing".to_string(),
        ] {
            assert!(written.contains(&mark), "the server log lacks {mark:?}");
        }
    }

    // Every confirmed batch is there, whole; the only other rows are whole
    // batches that were in flight (committed, unconfirmed).
    let mut committed_rows = 0;
    let mut unconfirmed = 0;
    let mut in_table = 0;
    for (format, (name, _, _)) in FORMATS.iter().enumerate() {
        let mut rows: HashMap<String, (i32, i32)> = db
            .query(
                &format!("SELECT id::text, conn, batch FROM crash_{name}"),
                &[],
            )
            .expect("read the table")
            .iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2))))
            .collect();
        in_table += rows.len();
        for (conn, w) in work.iter().enumerate() {
            for (_, batch, ids) in w.committed.iter().filter(|(f, _, _)| *f == format) {
                for id in ids {
                    assert_eq!(
                        rows.remove(id),
                        Some((conn as i32, *batch)),
                        "crash_{name}: committed row {id} of connection {conn}, batch {batch}"
                    );
                }
                committed_rows += ids.len();
            }
        }
        let mut extra: HashMap<(i32, i32), i32> = HashMap::new();
        for key in rows.into_values() {
            *extra.entry(key).or_default() += 1;
        }
        for ((conn, batch), count) in extra {
            assert!(
                matches!(work[conn as usize].broken, Some((f, b, _)) if f == format && b == batch),
                "crash_{name}: {count} rows of connection {conn}, batch {batch}, which was not in flight"
            );
            assert_eq!(count, BATCH, "crash_{name}: a partial batch survived");
            unconfirmed += count as usize;
        }
    }
    println!(
        "crash: {CONNECTIONS} connections inserting {BATCH}-row batches into {} tables; \
         killed backend {victim} after {committed_rows} committed rows; connections broke with {broken:?}; \
         recovered in {:.2} s (postmaster start time {started_before} -> {started_after}); \
         {in_table} rows in the tables: all {committed_rows} committed rows intact, \
         {unconfirmed} more from batches in flight (committed, unconfirmed); \
         the crash watch noticed: {noticed}",
        FORMATS.len(),
        recovery.as_secs_f64()
    );

    // Generation continues after the restart, from new connections, without
    // repeating a key the server made before the crash.
    let clock = Instant::now();
    let workers: Vec<_> = (0..CONNECTIONS as i32)
        .map(|conn| {
            thread::spawn(move || {
                let mut db = connect();
                for batch in 0..AFTER {
                    let format = batch as usize % FORMATS.len();
                    db.query(&insert_sql(format), &[&(conn + 100), &batch, &BATCH])
                        .unwrap_or_else(|e| panic!("after recovery, connection {conn}: {e:?}"));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("insert after recovery");
    }
    let mut total = 0;
    for (name, _, _) in FORMATS {
        let row = db
            .query_one(
                &format!("SELECT count(*), count(*) FILTER (WHERE conn >= 100) FROM crash_{name}"),
                &[],
            )
            .expect("count");
        let after: i64 = row.get(1);
        assert_eq!(
            after,
            (CONNECTIONS as i32 * AFTER / FORMATS.len() as i32 * BATCH) as i64
        );
        total += row.get::<_, i64>(0);
        db.batch_execute(&format!("DROP TABLE crash_{name}"))
            .expect("drop");
    }
    println!(
        "crash: after recovery {CONNECTIONS} new connections inserted {} rows in {:.2} s, \
         no duplicate key; {total} rows in all",
        CONNECTIONS as i32 * AFTER * BATCH,
        clock.elapsed().as_secs_f64()
    );
}
