//! Leased generators against a real server with pg_flake 0.3.0 (issue 23):
//! skipped unless `PG_FLAKE_LEASE_DSN` names a database where the extension
//! is installed and the connecting role may call `pg_flake_lease`.
#![cfg(feature = "lease")]

use flake_core::leased::{
    Kuid96Lease, Lease, LeaseError, Leased, LeasedFormat, SiqLease, SiqOptions, SnoLease,
    SnoOptions, SnowflakeLease,
};
use postgres::{Client, NoTls};
use std::time::{Duration, Instant};

fn client() -> Option<Client> {
    let dsn = std::env::var("PG_FLAKE_LEASE_DSN").ok()?;
    Some(Client::connect(&dsn, NoTls).expect("connect to PG_FLAKE_LEASE_DSN"))
}

/// SQL expressions of `id` giving its node, process and time.
struct Decoders {
    sql_type: &'static str,
    node: String,
    process: String,
    time: String,
}

fn decoders(format: &str, lease: &Lease) -> Decoders {
    match format {
        "sno" => Decoders {
            sql_type: "sno",
            node: "sno_partition(id) >> 8".into(),
            process: "sno_partition(id) & 255".into(),
            time: "sno_timestamp(id)".into(),
        },
        "snowflake" => {
            let epoch = lease.epoch_ms.expect("snowflake lease has epoch_ms");
            Decoders {
                sql_type: "bigint",
                node: format!("(snowflake_parts(id, {epoch})).worker"),
                process: format!("(snowflake_parts(id, {epoch})).process"),
                time: format!("(snowflake_parts(id, {epoch})).time"),
            }
        }
        "kuid96" => {
            let interval = lease.kuid_interval.expect("kuid96 lease has kuid_interval");
            Decoders {
                sql_type: "kuid96",
                node: format!("kuid96_node(id, {interval})"),
                process: "0".into(),
                time: format!("kuid96_timestamp(id, {interval})"),
            }
        }
        "siq" => Decoders {
            sql_type: "siq",
            node: "siq_domain_hash(id) >> 24".into(),
            process: "siq_shard(id)".into(),
            time: "siq_timestamp(id)".into(),
        },
        other => panic!("no decoders for {other}"),
    }
}

/// Inserts `texts` (canonical text forms) into a fresh temporary table and
/// answers (count, distinct, decoding to the lease inside its window).
fn check_in_sql(client: &mut Client, lease: &Lease, texts: &[String]) -> (i64, i64, i64) {
    let d = decoders(&lease.format, lease);
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS leased_ids; CREATE TEMP TABLE leased_ids (id {})",
            d.sql_type
        ))
        .unwrap();
    client
        .execute(
            &format!(
                "INSERT INTO leased_ids SELECT t::{} FROM unnest($1::text[]) t",
                d.sql_type
            ),
            &[&texts],
        )
        .unwrap();
    let row = client
        .query_one(
            &format!(
                "SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE {} = l.node \
                 AND {} = l.process AND {t} >= l.not_before AND {t} < l.expires) \
                 FROM leased_ids, pg_flake_leases l WHERE l.lease_id = $1",
                d.node,
                d.process,
                t = d.time
            ),
            &[&lease.lease_id],
        )
        .unwrap();
    (row.get(0), row.get(1), row.get(2))
}

fn ten_thousand<F: LeasedFormat>(
    client: &mut Client,
    options: F::Options,
    text: impl Fn(&F::Id) -> String,
) {
    let mut leased =
        Leased::<F>::take(client, options, "leased_pg", Duration::from_secs(30)).unwrap();
    let lease = leased.lease().clone();
    assert_eq!(lease.format, F::NAME);
    let texts: Vec<String> = (0..10_000)
        .map(|_| text(&leased.generate(client).unwrap()))
        .collect();
    let last_used = leased.generator().last_used();
    assert_eq!(
        check_in_sql(client, &lease, &texts),
        (10_000, 10_000, 10_000),
        "{} lease {lease:?}",
        F::NAME
    );
    assert!(leased.release(client).unwrap());
    // The release recorded the start of the last unit used.
    let recorded: Option<std::time::SystemTime> = client
        .query_one(
            "SELECT last_used FROM pg_flake_leases WHERE lease_id = $1 AND state = 'released'",
            &[&lease.lease_id],
        )
        .unwrap()
        .get(0);
    let micros = |t: std::time::SystemTime| {
        t.duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as i64
    };
    assert_eq!(recorded.map(micros), last_used, "{}", F::NAME);
}

#[test]
fn ten_thousand_ids_per_format_decode_to_their_lease() {
    let Some(mut client) = client() else {
        eprintln!("PG_FLAKE_LEASE_DSN not set: skipped");
        return;
    };
    ten_thousand::<SnoLease>(&mut client, SnoOptions::default(), |id| id.to_string());
    ten_thousand::<SnowflakeLease>(&mut client, (), |id| id.to_string());
    ten_thousand::<Kuid96Lease>(&mut client, (), |id| id.to_string());
    ten_thousand::<SiqLease>(&mut client, SiqOptions::default(), |id| id.to_string());
}

#[test]
fn renewals_extend_the_window_and_a_refused_one_ends_it() {
    let Some(mut client) = client() else {
        eprintln!("PG_FLAKE_LEASE_DSN not set: skipped");
        return;
    };
    // TTL 1 s: renewals every ~0.45 s; 2.5 s of IDs outlive the first window.
    let ttl = Duration::from_secs(1);
    let mut leased =
        Leased::<SnoLease>::take(&mut client, SnoOptions::default(), "leased_pg-renew", ttl)
            .unwrap();
    let lease = leased.lease().clone();
    let start = Instant::now();
    let mut texts = Vec::new();
    while start.elapsed() < Duration::from_millis(2500) {
        texts.push(leased.generate(&mut client).unwrap().to_string());
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(leased.lease().expires > lease.expires + 1_000_000);
    let n = texts.len() as i64;
    assert_eq!(check_in_sql(&mut client, &lease, &texts), (n, n, n));

    // Released behind the holder's back: the next renewal is refused, IDs
    // keep coming until the window ends, then Expired, nothing outside it.
    let mut other = client_again();
    other
        .execute("SELECT pg_flake_release($1)", &[&lease.lease_id])
        .unwrap();
    let mut texts = Vec::new();
    let err = loop {
        match leased.generate(&mut client) {
            Ok(id) => texts.push(id.to_string()),
            Err(e) => break e,
        }
        std::thread::sleep(Duration::from_millis(1));
        assert!(start.elapsed() < Duration::from_secs(10), "never expired");
    };
    assert!(
        matches!(err, LeaseError::Expired { lease_id } if lease_id == lease.lease_id),
        "{err}"
    );
    let n = texts.len() as i64;
    assert!(n > 0);
    assert_eq!(check_in_sql(&mut client, &lease, &texts), (n, n, n));
}

fn client_again() -> Client {
    client().expect("PG_FLAKE_LEASE_DSN")
}
