//! One leased generator's IDs per second, the reference of `make bench`'s
//! holders part (scripts/benchlib/measure_holders.py; each language's holder
//! bench has this command line):
//!
//! `lease_bench --dsn DSN --format sno|snowflake|kuid96|siq --seconds S`
//!
//! Takes a lease (TTL 30 s), calls `Leased::generate` in a loop for S
//! seconds (which renews when due; no I/O otherwise), releases the lease and
//! prints one JSON line: `{"language": "rust", "format": …, "threads": 1,
//! "ids": …, "seconds": …, "ids_per_second": …}`.

use flake_core::leased::{Kuid96Lease, Leased, LeasedFormat, SiqLease, SnoLease, SnowflakeLease};
use postgres::{Client, NoTls};
use std::process::exit;
use std::time::{Duration, Instant};

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("lease_bench: {message}");
    exit(1)
}

fn measure<F: LeasedFormat>(client: &mut Client, options: F::Options, seconds: f64) -> (u64, f64) {
    let ttl = Duration::from_secs(30);
    let mut leased = Leased::<F>::take(client, options, "bench", ttl).unwrap_or_else(|e| fail(e));
    let began = Instant::now();
    let end = began + Duration::from_secs_f64(seconds);
    let mut ids = 0u64;
    // The clock is read once per 1024 IDs: the loop measures generate.
    while Instant::now() < end {
        for _ in 0..1024 {
            std::hint::black_box(leased.generate(client).unwrap_or_else(|e| fail(e)));
        }
        ids += 1024;
    }
    let elapsed = began.elapsed().as_secs_f64();
    leased.release(client).unwrap_or_else(|e| fail(e));
    (ids, elapsed)
}

fn main() {
    let mut map = std::collections::HashMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(key) = it.next() {
        let value = it
            .next()
            .unwrap_or_else(|| fail(format!("{key} needs a value")));
        map.insert(key.trim_start_matches("--").to_owned(), value);
    }
    let dsn = map
        .remove("dsn")
        .unwrap_or_else(|| fail("--dsn is required"));
    let format = map.remove("format").unwrap_or_else(|| "sno".to_owned());
    let seconds: f64 = map
        .remove("seconds")
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| fail("--seconds must be a number"))
        })
        .unwrap_or(2.0);
    let mut client = Client::connect(&dsn, NoTls).unwrap_or_else(|e| fail(e));
    let (ids, elapsed) = match format.as_str() {
        "sno" => measure::<SnoLease>(&mut client, Default::default(), seconds),
        "snowflake" => measure::<SnowflakeLease>(&mut client, (), seconds),
        "kuid96" => measure::<Kuid96Lease>(&mut client, (), seconds),
        "siq" => measure::<SiqLease>(&mut client, Default::default(), seconds),
        other => fail(format!(
            "--format {other}: one of sno, snowflake, kuid96, siq"
        )),
    };
    println!(
        "{{\"language\":\"rust\",\"format\":\"{format}\",\"threads\":1,\"ids\":{ids},\"seconds\":{elapsed:.3},\"ids_per_second\":{:.0}}}",
        ids as f64 / elapsed
    );
}
