//! The `postgres::Client` part of leased generators (feature `lease`):
//! take a lease with `pg_flake_lease`, generate in its window renewing with
//! `pg_flake_renew` when due, release with `pg_flake_release`.

use super::{InstantMonotonic, Lease, LeaseError, LeasedFormat, LeasedGenerator};
use postgres::error::SqlState;
use postgres::{Client, Row};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const COLUMNS: &str =
    "lease_id, format, node, process, not_before, expires, server_time, epoch_ms, kuid_interval";

fn micros(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_micros()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_micros()).unwrap_or(i64::MAX),
    }
}

fn system_time(micros: i64) -> SystemTime {
    if micros >= 0 {
        UNIX_EPOCH + Duration::from_micros(micros as u64)
    } else {
        UNIX_EPOCH - Duration::from_micros(micros.unsigned_abs())
    }
}

impl Lease {
    /// A row of `pg_flake_lease` or `pg_flake_renew` (every column).
    pub fn from_row(row: &Row) -> Result<Lease, postgres::Error> {
        Ok(Lease {
            lease_id: row.try_get("lease_id")?,
            format: row.try_get("format")?,
            node: row.try_get("node")?,
            process: row.try_get("process")?,
            not_before: micros(row.try_get("not_before")?),
            expires: micros(row.try_get("expires")?),
            server_time: micros(row.try_get("server_time")?),
            epoch_ms: row.try_get("epoch_ms")?,
            kuid_interval: row.try_get("kuid_interval")?,
        })
    }
}

fn ttl_micros(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_micros()).unwrap_or(i64::MAX)
}

/// A leased generator of format `F` on a database connection.
///
/// `Send` and `Sync`, every method `&mut self`: threads share one behind a
/// `Mutex` (with the client it renews over, or a client per thread). It
/// belongs to the process that took the lease: in a child made by `fork()`,
/// `generate`, `renew` and `release` answer [`LeaseError::Forked`] without
/// touching the connection (which is the parent's too); the child takes a
/// lease of its own over a connection it opens.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use flake_core::leased::{Leased, SnoLease, SnoOptions};
/// let mut client = postgres::Client::connect("host=/tmp dbname=app", postgres::NoTls)?;
/// let ttl = std::time::Duration::from_secs(30);
/// let mut ids = Leased::<SnoLease>::take(&mut client, SnoOptions::default(), "billing-1", ttl)?;
/// let id = ids.generate(&mut client)?; // LeaseError::Expired: take a new lease
/// ids.release(&mut client)?;
/// # let _ = id; Ok(()) }
/// ```
#[derive(Debug)]
pub struct Leased<F: LeasedFormat> {
    generator: LeasedGenerator<F, InstantMonotonic>,
    ttl: Duration,
}

impl<F: LeasedFormat> Leased<F> {
    /// Takes a lease of `F` for `holder` (`pg_flake_lease`).
    pub fn take(
        client: &mut Client,
        options: F::Options,
        holder: &str,
        ttl: Duration,
    ) -> Result<Self, LeaseError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM pg_flake_lease($1, $2, $3::bigint * interval '1 microsecond')"
        );
        let row = client
            .query_one(&sql, &[&F::NAME, &holder, &ttl_micros(ttl)])
            .map_err(LeaseError::Database)?;
        let lease = Lease::from_row(&row).map_err(LeaseError::Database)?;
        // The clock starts now that the answer has arrived; server_time was
        // read just before the server sent it, so the estimate runs behind
        // the database by the reply's latency (the safety margin covers it).
        let lease_id = lease.lease_id;
        match LeasedGenerator::new(lease, &options, ttl, InstantMonotonic::default()) {
            Ok(generator) => Ok(Leased { generator, ttl }),
            Err(e) => {
                // A row this generator cannot use (another format, a field
                // outside the format's): hand the unit back at once, unused.
                let _ = client.execute(
                    "SELECT pg_flake_release($1, NULL::timestamptz)",
                    &[&lease_id],
                );
                Err(e)
            }
        }
    }

    pub fn lease(&self) -> &Lease {
        self.generator.lease()
    }

    pub fn generator(&mut self) -> &mut LeasedGenerator<F, InstantMonotonic> {
        &mut self.generator
    }

    /// Renews now (`pg_flake_renew`). A refusal (the lease expired, was
    /// released or superseded) stops further attempts; other failures are
    /// retried later. Either way generation goes on to the window's end.
    pub fn renew(&mut self, client: &mut Client) -> Result<(), LeaseError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM pg_flake_renew($1, $2::bigint * interval '1 microsecond')"
        );
        self.generator.check_process()?;
        let lease_id = self.generator.lease().lease_id;
        match client.query_one(&sql, &[&lease_id, &ttl_micros(self.ttl)]) {
            Ok(row) => {
                // A row that does not fit (a server without this lease's
                // columns, another lease) will not get better by retrying.
                let renewed = Lease::from_row(&row)
                    .map_err(LeaseError::Database)
                    .and_then(|lease| self.generator.renewed(lease));
                if renewed.is_err() {
                    self.generator.renewal_failed(false);
                }
                renewed
            }
            Err(e) => {
                let gone = matches!(
                    e.code(),
                    Some(c) if *c == SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
                        || *c == SqlState::INVALID_PARAMETER_VALUE
                );
                self.generator.renewal_failed(!gone);
                Err(LeaseError::Database(e))
            }
        }
    }

    /// The next ID, renewing first when due. A failed renewal is not an
    /// error here: IDs keep coming until the window ends, then
    /// [`LeaseError::Expired`] — never an ID outside the window.
    /// [`LeaseError::Forked`] in a child made by `fork()`.
    pub fn generate(&mut self, client: &mut Client) -> Result<F::Id, LeaseError> {
        // Before a renewal could use the connection in a forked child.
        self.generator.check_process()?;
        loop {
            if self.generator.renewal_due() {
                let _ = self.renew(client);
            }
            match self.generator.try_generate()? {
                super::Attempt::Issued(id) => return Ok(id),
                super::Attempt::WaitUntil(t) => self.generator.wait(t),
            }
        }
    }

    /// Releases the lease (`pg_flake_release`), reporting the start of the
    /// last unit used so that the unit's next holder may start soon after.
    /// `false`: it had already expired or been released. In a child made by
    /// `fork()`: [`LeaseError::Forked`], and the parent's lease is left held.
    pub fn release(self, client: &mut Client) -> Result<bool, LeaseError> {
        self.generator.check_process()?;
        let last_used = self.generator.last_used().map(system_time);
        let lease_id = self.generator.lease().lease_id;
        client
            .query_one(
                "SELECT pg_flake_release($1, $2::timestamptz)",
                &[&lease_id, &last_used],
            )
            .and_then(|row| row.try_get(0))
            .map_err(LeaseError::Database)
    }
}

// Shared between threads behind a lock, like the generator it wraps.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Leased<super::SnoLease>>();
    send_sync::<Leased<super::SnowflakeLease>>();
    send_sync::<Leased<super::Kuid96Lease>>();
    send_sync::<Leased<super::SiqLease>>();
};
