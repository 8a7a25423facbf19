//! Leased generators against a real server with pg_flake 0.3.0 (issue 23):
//! skipped unless `PG_FLAKE_LEASE_DSN` names a database where the extension
//! is installed and the connecting role may call `pg_flake_lease`.
#![cfg(feature = "lease")]

use flake_core::leased::{
    Kuid96Lease, Lease, LeaseError, Leased, LeasedFormat, SiqLease, SiqOptions, SnoLease,
    SnoOptions, SnowflakeLease,
};
use postgres::{Client, NoTls};
use std::collections::HashSet;
use std::sync::Mutex;
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

// --- one generator, many threads; a generator inherited across fork() (issue 36) --------

const THREADS: usize = 8;
const PER_WORKER: usize = 20_000;

/// 8 threads share one `Leased<F>` and its client behind a mutex (the
/// generator's methods take `&mut self`: the compiler allows no other way),
/// 20 000 IDs each, renewing on the way: no duplicate, all in the lease.
fn threads_share<F>(options: F::Options, text: impl Fn(&F::Id) -> String + Sync)
where
    F: LeasedFormat + Send,
{
    let mut client = client_again();
    let ttl = Duration::from_secs(1); // renewals every ~0.45 s while the threads run
    let leased = Leased::<F>::take(&mut client, options, "leased_pg-threads", ttl).unwrap();
    let lease = leased.lease().clone();
    let shared = Mutex::new((leased, client));
    let texts: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    (0..PER_WORKER)
                        .map(|_| {
                            let mut guard = shared.lock().unwrap();
                            let (leased, client) = &mut *guard;
                            text(&leased.generate(client).unwrap())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let (leased, mut client) = shared.into_inner().unwrap();
    // Released before the check, which may outlast the 1 s TTL.
    assert!(leased.release(&mut client).unwrap());
    let distinct: HashSet<&String> = texts.iter().collect();
    eprintln!(
        "{}: {} duplicates of {}",
        F::NAME,
        texts.len() - distinct.len(),
        texts.len()
    );
    let n = (THREADS * PER_WORKER) as i64;
    assert_eq!(
        check_in_sql(&mut client, &lease, &texts),
        (n, n, n),
        "{}",
        F::NAME
    );
}

#[test]
fn threads_sharing_one_generator_never_duplicate() {
    if client().is_none() {
        eprintln!("PG_FLAKE_LEASE_DSN not set: skipped");
        return;
    }
    threads_share::<SnoLease>(SnoOptions::default(), |id| id.to_string());
    threads_share::<SnowflakeLease>((), |id| id.to_string());
    threads_share::<Kuid96Lease>((), |id| id.to_string());
    threads_share::<SiqLease>(SiqOptions::default(), |id| id.to_string());
}

#[cfg(unix)]
/// What a forked child wrote to its pipe: its IDs, one a line, or the
/// refusal as `refused: <error>`.
fn read_child(fd: i32) -> String {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    let mut out = String::new();
    // SAFETY: the read end of a pipe this test made; the File owns it now.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    file.read_to_string(&mut out).unwrap();
    out
}

#[cfg(unix)]
/// In the child: 20 000 IDs from the inherited generator, or its refusal,
/// written to `fd`; then `_exit` (never back into the test harness, and the
/// inherited client is never dropped: that would end the parent's session).
fn child_writes<F: LeasedFormat>(
    leased: &mut Leased<F>,
    client: &mut Client,
    fd: i32,
    text: &dyn Fn(&F::Id) -> String,
) -> ! {
    let mut out = String::new();
    for _ in 0..PER_WORKER {
        match leased.generate(client) {
            Ok(id) => {
                out.push_str(&text(&id));
                out.push('\n');
            }
            Err(e) => {
                // Nor does it renew the parent's lease over the parent's connection.
                let renewal = match leased.renew(client) {
                    Err(LeaseError::Forked { .. }) => "renewal refused",
                    _ => "renewed",
                };
                out = format!("refused: {e} ({renewal})");
                break;
            }
        }
    }
    let mut bytes = out.as_bytes();
    while !bytes.is_empty() {
        // SAFETY: writes from a live buffer to the pipe's write end.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            break;
        }
        bytes = &bytes[n as usize..];
    }
    // SAFETY: ends the child at once, running no destructor or atexit hook.
    unsafe { libc::_exit(0) }
}

#[cfg(unix)]
/// A generator taken before `fork()`, used by the parent and 3 children:
/// the children refuse (`LeaseError::Forked`) and the parent's 20 000 IDs
/// are its own, in its lease, which stays held.
fn fork_children<F: LeasedFormat>(options: F::Options, text: impl Fn(&F::Id) -> String) {
    let mut client = client_again();
    let ttl = Duration::from_secs(30);
    let mut leased = Leased::<F>::take(&mut client, options, "leased_pg-fork", ttl).unwrap();
    let lease = leased.lease().clone();
    let mut texts = vec![text(&leased.generate(&mut client).unwrap())];
    let mut children = Vec::new();
    for _ in 0..3 {
        let mut fds = [0i32; 2];
        // SAFETY: a pipe into a two-element array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child only generates, writes to its pipe and _exits.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: the child's copy of the read end.
            unsafe { libc::close(fds[0]) };
            child_writes(&mut leased, &mut client, fds[1], &text);
        }
        // SAFETY: the parent's copy of the write end.
        unsafe { libc::close(fds[1]) };
        children.push((pid, fds[0]));
    }
    for _ in 0..PER_WORKER {
        texts.push(text(&leased.generate(&mut client).unwrap()));
    }
    let mut refusals = Vec::new();
    for (pid, fd) in children {
        let out = read_child(fd);
        let mut status = 0;
        // SAFETY: waits for a child of this test.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
        match out.strip_prefix("refused: ") {
            Some(message) => refusals.push(message.to_owned()),
            None => texts.extend(out.lines().map(str::to_owned)),
        }
    }
    let distinct: HashSet<&String> = texts.iter().collect();
    eprintln!(
        "{}: {} duplicates of {}; {} children refused{}",
        F::NAME,
        texts.len() - distinct.len(),
        texts.len(),
        refusals.len(),
        refusals
            .first()
            .map(|m| format!(": {m}"))
            .unwrap_or_default()
    );
    let n = texts.len() as i64;
    assert_eq!(
        check_in_sql(&mut client, &lease, &texts),
        (n, n, n),
        "{}",
        F::NAME
    );
    assert_eq!(refusals.len(), 3, "{}", F::NAME);
    for message in &refusals {
        assert!(
            message.contains("fork()")
                && message.contains(&format!("lease {}", lease.lease_id))
                && message.ends_with("(renewal refused)"),
            "{message}"
        );
    }
    // The parent goes on, and its lease is still held.
    texts.push(text(&leased.generate(&mut client).unwrap()));
    let state: String = client
        .query_one(
            "SELECT state FROM pg_flake_leases WHERE lease_id = $1",
            &[&lease.lease_id],
        )
        .unwrap()
        .get(0);
    assert_eq!(state, "held");
    assert!(leased.release(&mut client).unwrap());
}

#[cfg(unix)]
#[test]
fn a_generator_inherited_across_fork_refuses_in_the_child() {
    if client().is_none() {
        eprintln!("PG_FLAKE_LEASE_DSN not set: skipped");
        return;
    }
    fork_children::<SnoLease>(SnoOptions::default(), |id| id.to_string());
    fork_children::<SnowflakeLease>((), |id| id.to_string());
    fork_children::<Kuid96Lease>((), |id| id.to_string());
    fork_children::<SiqLease>(SiqOptions::default(), |id| id.to_string());
}
