//! An application process that makes its own IDs under leases and inserts
//! them (the multi-process lease test, issue 23):
//!
//! `lease_writer --dsn DSN --format sno|snowflake|kuid96|siq --holder NAME
//!  --ttl-ms N --table T --seconds S`
//!
//! For S seconds: generate an ID, `INSERT INTO T (id, lease_id) VALUES ($1,
//! $2)`. One JSON line per lease taken on stdout; `expired <lease_id>` on
//! stderr when a lease ends (a new one is taken, the old one never used
//! again). Exit 3 on a unique violation, 1 on any other error, 0 at the end
//! (after releasing the lease). With `--ids FILE` it also appends `<id>
//! <lease_id>` to FILE for every ID it makes, written before the insert (the
//! nemesis's checker reads them: tests/servers/nemesis).

use flake_core::leased::{
    Kuid96Lease, LeaseError, Leased, LeasedFormat, SiqLease, SiqOptions, SnoLease, SnoOptions,
    SnowflakeLease,
};
use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, NoTls};
use std::io::Write;
use std::process::exit;
use std::time::{Duration, Instant};

struct Args {
    dsn: String,
    format: String,
    holder: String,
    ttl: Duration,
    table: String,
    seconds: u64,
    ids: Option<std::fs::File>,
}

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("lease_writer: {message}");
    exit(1)
}

/// An error with its causes (a database error's SQLSTATE and message are
/// in its source, not in its Display).
fn fail_with(error: &dyn std::error::Error) -> ! {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    fail(message)
}

fn args() -> Args {
    let mut map = std::collections::HashMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(key) = it.next() {
        let value = it
            .next()
            .unwrap_or_else(|| fail(format!("{key} needs a value")));
        map.insert(key.trim_start_matches("--").to_owned(), value);
    }
    // Opened for appending; each line is one write, so a kill -9 loses none.
    let ids = map.remove("ids").map(|path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| fail(format!("--ids {path}: {e}")))
    });
    let mut get = |k: &str| {
        map.remove(k)
            .unwrap_or_else(|| fail(format!("--{k} is required")))
    };
    let number = |k: &str, v: String| -> u64 {
        v.parse()
            .unwrap_or_else(|_| fail(format!("--{k} must be a number")))
    };
    Args {
        dsn: get("dsn"),
        format: get("format"),
        holder: get("holder"),
        ttl: Duration::from_millis(number("ttl-ms", get("ttl-ms"))),
        table: get("table"),
        seconds: number("seconds", get("seconds")),
        ids,
    }
}

fn take<F: LeasedFormat>(
    client: &mut Client,
    options: &F::Options,
    a: &Args,
    end: Instant,
) -> Option<Leased<F>> {
    loop {
        match Leased::<F>::take(client, options.clone(), &a.holder, a.ttl) {
            Ok(leased) => {
                let l = leased.lease();
                println!(
                    "{{\"lease_id\":{},\"node\":{},\"process\":{}}}",
                    l.lease_id, l.node, l.process
                );
                let _ = std::io::stdout().flush();
                return Some(leased);
            }
            // Every unit held: wait for an expiry while there is time.
            Err(LeaseError::Database(e))
                if e.code() == Some(&SqlState::CONFIGURATION_LIMIT_EXCEEDED)
                    && Instant::now() < end =>
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(_) if Instant::now() >= end => return None,
            Err(e) => fail_with(&e),
        }
    }
}

fn run<F: LeasedFormat>(client: &mut Client, options: F::Options, a: &Args)
where
    F::Id: ToSql + Sync + std::fmt::Display,
{
    let end = Instant::now() + Duration::from_secs(a.seconds);
    let insert = format!("INSERT INTO {} (id, lease_id) VALUES ($1, $2)", a.table);
    let insert = client.prepare(&insert).unwrap_or_else(|e| fail_with(&e));
    let mut leased = take::<F>(client, &options, a, end);
    while let Some(current) = leased.as_mut() {
        if Instant::now() >= end {
            break;
        }
        let id = match current.generate(client) {
            Ok(id) => id,
            Err(LeaseError::Expired { lease_id }) => {
                eprintln!("expired {lease_id}");
                leased = take::<F>(client, &options, a, end);
                continue;
            }
            Err(e) => fail_with(&e),
        };
        let lease_id = current.lease().lease_id;
        if let Some(mut file) = a.ids.as_ref() {
            if let Err(e) = file.write_all(format!("{id} {lease_id}\n").as_bytes()) {
                fail(format!("--ids: {e}"));
            }
        }
        if let Err(e) = client.execute(&insert, &[&id, &lease_id]) {
            if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                eprintln!("lease_writer: duplicate {id:?} of lease {lease_id}: {e}");
                exit(3);
            }
            fail_with(&e);
        }
    }
    if let Some(current) = leased {
        current.release(client).unwrap_or_else(|e| fail_with(&e));
    }
}

fn main() {
    let a = args();
    let mut client = Client::connect(&a.dsn, NoTls).unwrap_or_else(|e| fail_with(&e));
    match a.format.as_str() {
        "sno" => run::<SnoLease>(&mut client, SnoOptions::default(), &a),
        "snowflake" => run::<SnowflakeLease>(&mut client, (), &a),
        "kuid96" => run::<Kuid96Lease>(&mut client, (), &a),
        "siq" => run::<SiqLease>(&mut client, SiqOptions::default(), &a),
        other => fail(format!(
            "unknown format {other}: sno, snowflake, kuid96 or siq"
        )),
    }
}
