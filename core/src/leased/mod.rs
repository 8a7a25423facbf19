//! Generators in the application, coordinated by the database: leased units
//! and time windows (issue 23; docs/applications.md "The Rust library").
//!
//! A lease (a row of `pg_flake_lease`) gives one holder a *unit* — a node
//! value and, where the format has one, a process value from the range that
//! `pg_flake.lease_nodes` reserves for applications — and a time window
//! `[not_before, expires)`. Successive holders of one unit get disjoint
//! windows, and servers never generate with a reserved node, so an ID that
//! carries the lease's node and process and a time unit lying wholly inside
//! the window collides with no ID made elsewhere. That is the whole
//! guarantee, and it rests on the units, not on any clock: this generator
//! never issues a unit that does not lie wholly inside the window (the
//! window's first unit is the sequencer's floor, its last usable unit the
//! sequencer's mark), whatever the clocks do.
//!
//! The clock only decides *which* unit inside the window an ID gets, so that
//! IDs sort by time with the database's own: [`LeaseClock`] is the
//! database's time (`server_time` of the last response) advanced by the
//! monotonic clock, never the wall clock of the application's machine.
//!
//! The database-free part ([`LeasedGenerator`], generic over the four
//! formats through [`LeasedFormat`]) is here; the `postgres::Client` part
//! ([`client::Leased`]) is behind the feature `lease`. Each format's part is
//! named as the format it leases (`core/src/formats/`): that format under a lease.

use crate::clock::{Clock, PAUSE};
use crate::error::Error;
use crate::sequencer::{Limits, Regression, Sequencer, Step, Timeline, DEFAULT_MAX_LEAD};
use crate::slot::SequenceRange;
use std::fmt;
use std::time::{Duration, Instant};

mod fork;
mod kuid96;
mod siq;
mod sno;
mod snowflake;

#[cfg(feature = "lease")]
pub mod client;

pub use kuid96::Kuid96Lease;
pub use siq::{SiqLease, SiqOptions};
pub use sno::{SnoLease, SnoOptions};
pub use snowflake::SnowflakeLease;

#[cfg(feature = "lease")]
pub use client::Leased;

/// A lease as `pg_flake_lease` / `pg_flake_renew` return it; times in
/// microseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub lease_id: i64,
    pub format: String,
    pub node: i64,
    pub process: i32,
    pub not_before: i64,
    pub expires: i64,
    /// The database's `clock_timestamp()` just before it answered.
    pub server_time: i64,
    /// snowflake: the epoch in milliseconds since the Unix epoch.
    pub epoch_ms: Option<i64>,
    /// kuid96: the neighborhood interval.
    pub kuid_interval: Option<i32>,
}

/// What can go wrong with a leased generator.
#[derive(Debug)]
#[non_exhaustive]
pub enum LeaseError {
    /// The lease's window has ended (or its last usable unit is used up)
    /// and it was not renewed: take a new lease. Never an ID outside it.
    Expired { lease_id: i64 },
    /// The generator was made in another process, and this one is a child
    /// made by `fork()`: the lease and its unit are the parent's, so the
    /// child makes no ID, renewal or release with it. Take a new lease in
    /// the child over a connection of its own.
    Forked {
        lease_id: i64,
        owner_pid: u32,
        pid: u32,
    },
    /// The database refused or failed (taking, renewing, releasing).
    #[cfg(feature = "lease")]
    Database(postgres::Error),
    /// A lease row that does not fit the format, or a format error.
    Format(Error),
}

impl fmt::Display for LeaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaseError::Expired { lease_id } => write!(
                f,
                "lease {lease_id} has expired; take a new lease with pg_flake_lease"
            ),
            LeaseError::Forked {
                lease_id,
                owner_pid,
                pid,
            } => write!(
                f,
                "lease {lease_id} belongs to process {owner_pid}, and this is process {pid}, a \
                 child made by fork(): IDs made here would share the parent's unit and duplicate \
                 its IDs; take a new lease in the child over a connection opened there"
            ),
            #[cfg(feature = "lease")]
            LeaseError::Database(e) => write!(f, "lease: {e}"),
            LeaseError::Format(e) => write!(f, "lease: {e}"),
        }
    }
}

impl std::error::Error for LeaseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LeaseError::Expired { .. } | LeaseError::Forked { .. } => None,
            #[cfg(feature = "lease")]
            LeaseError::Database(e) => Some(e),
            LeaseError::Format(e) => Some(e),
        }
    }
}

impl From<Error> for LeaseError {
    fn from(e: Error) -> Self {
        LeaseError::Format(e)
    }
}

/// A lease row that does not fit the generator (22023).
pub(crate) fn misfit(message: String) -> Error {
    Error::InvalidParameter { message }
}

/// A clock nobody sets, and a way to wait on it.
pub trait Monotonic {
    /// Nanoseconds from an arbitrary start.
    fn monotonic_nanos(&mut self) -> i64;
    /// Waits `nanos` nanoseconds (at least).
    fn sleep(&mut self, nanos: i64);
}

/// The process's monotonic clock (`std::time::Instant`).
#[derive(Debug, Clone, Copy)]
pub struct InstantMonotonic {
    start: Instant,
}

impl Default for InstantMonotonic {
    fn default() -> Self {
        InstantMonotonic {
            start: Instant::now(),
        }
    }
}

impl Monotonic for InstantMonotonic {
    fn monotonic_nanos(&mut self) -> i64 {
        i64::try_from(self.start.elapsed().as_nanos()).unwrap_or(i64::MAX)
    }
    fn sleep(&mut self, nanos: i64) {
        std::thread::sleep(Duration::from_nanos(nanos.max(0) as u64));
    }
}

/// The database's time: `server_time` of the last response plus the
/// monotonic time elapsed since that response arrived (issue 23 spec,
/// "Application generators"). The application's wall clock plays no part,
/// so setting it (or a libfaketime offset) cannot move IDs in the window.
#[derive(Debug, Clone)]
pub struct LeaseClock<M> {
    source: M,
    server_nanos: i64,
    at: i64,
}

impl<M: Monotonic> LeaseClock<M> {
    /// A clock reading `server_time_micros` now: make it right after the
    /// response that carried the time arrived.
    pub fn new(mut source: M, server_time_micros: i64) -> Self {
        let at = source.monotonic_nanos();
        LeaseClock {
            source,
            server_nanos: server_time_micros.saturating_mul(1000),
            at,
        }
    }

    /// A newer response's `server_time` (a renewal).
    pub fn refresh(&mut self, server_time_micros: i64) {
        self.at = self.source.monotonic_nanos();
        self.server_nanos = server_time_micros.saturating_mul(1000);
    }

    /// The database's time now, in nanoseconds since the Unix epoch.
    pub fn db_nanos(&mut self) -> i64 {
        let elapsed = self.source.monotonic_nanos().saturating_sub(self.at);
        self.server_nanos.saturating_add(elapsed)
    }

    /// Waits until the database's time is `db_nanos`, at most `cap` ns.
    pub fn sleep_until(&mut self, db_nanos: i64, cap: i64) {
        let left = db_nanos.saturating_sub(self.db_nanos());
        self.source.sleep(left.clamp(1, cap.max(1)));
    }

    pub fn source_mut(&mut self) -> &mut M {
        &mut self.source
    }
}

impl<M: Monotonic> Clock for LeaseClock<M> {
    fn now_nanos(&mut self) -> i64 {
        self.db_nanos()
    }
    fn pause(&mut self) {
        self.source.sleep(PAUSE.as_nanos() as i64);
    }
    fn monotonic_nanos(&mut self) -> Option<i64> {
        Some(self.source.monotonic_nanos())
    }
}

/// What a format needs to generate under a lease: its time units (the
/// core's timeline), its sequence space, and its assembly of an ID from the
/// lease's node and process (the core's `from_parts`).
pub trait LeasedFormat: Sized {
    /// The IDs it makes.
    type Id: Copy + fmt::Debug;
    /// What the application chooses (sno's meta byte, SIQ's domain and kind).
    type Options: Clone;
    type Timeline: Timeline;
    /// The format's name, as in `pg_flake_lease(format, …)`.
    const NAME: &'static str;
    /// The format's part of a lease: checks that the row fits the format.
    fn new(lease: &Lease, options: &Self::Options) -> Result<Self, Error>;
    fn timeline(&self) -> &Self::Timeline;
    /// The sequence values of one unit.
    fn range(&self) -> SequenceRange;
    /// The time an ID of `unit` decodes to (the database's decoders), in
    /// microseconds since the Unix epoch: the start of the unit, rounded down.
    fn decoded_micros(&self, unit: u64) -> i64;
    /// The ID of `unit` and `sequence` with the lease's node and process.
    fn assemble(&self, unit: u64, sequence: u32) -> Result<Self::Id, Error>;
}

/// One attempt of [`LeasedGenerator::try_generate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt<T> {
    Issued(T),
    /// Nothing before the database's time reaches this (nanoseconds): the
    /// window's start, or the next unit when this one's sequence is used up.
    WaitUntil(i64),
}

/// Longest single sleep of a blocking wait, so that a caller's loop gets to
/// renew while waiting for a far `not_before`.
const MAX_SLEEP_NANOS: i64 = 100_000_000;

/// A generator that makes IDs only in units wholly inside its lease's
/// window. Database-free: the caller renews when
/// [`renewal_due`](Self::renewal_due) says so and reports the outcome.
///
/// Threads: it is `Send` and `Sync` and has no interior mutability; every
/// method that makes an ID takes `&mut self`, so threads share one behind a
/// lock (`Mutex<LeasedGenerator<…>>`), which makes each ID's (unit,
/// sequence) one critical section. Processes: it belongs to the process
/// that made it; in a child made by `fork()` it answers
/// [`LeaseError::Forked`] (see [`check_process`](Self::check_process)).
#[derive(Debug)]
pub struct LeasedGenerator<F: LeasedFormat, M: Monotonic = InstantMonotonic> {
    /// The process the lease belongs to.
    owner: fork::Owner,
    format: F,
    lease: Lease,
    clock: LeaseClock<M>,
    sequencer: Sequencer,
    ttl_nanos: i64,
    /// The window's first unit and its start (nanoseconds).
    first: u64,
    first_start: i128,
    /// The last unit that ends by `limit` (the sequencer's mark).
    mark: u64,
    /// `expires` minus the safety margin, nanoseconds.
    limit: i64,
    /// When to renew (database time); `None`: no more attempts.
    renew_at: Option<i64>,
    last_unit: Option<u64>,
}

impl<F: LeasedFormat, M: Monotonic> LeasedGenerator<F, M> {
    /// A generator for `lease`, taken with `ttl`; `source` is read at once
    /// as the moment `lease.server_time` arrived.
    pub fn new(
        lease: Lease,
        options: &F::Options,
        ttl: Duration,
        source: M,
    ) -> Result<Self, LeaseError> {
        if lease.format != F::NAME {
            return Err(misfit(format!(
                "lease {} is a lease of {}, not of {}",
                lease.lease_id,
                lease.format,
                F::NAME
            ))
            .into());
        }
        if lease.expires <= lease.not_before {
            return Err(misfit(format!("lease {} has an empty window", lease.lease_id)).into());
        }
        let format = F::new(&lease, options)?;
        let timeline = format.timeline();
        // The first unit whose IDs decode to a time at or after not_before.
        let nb_nanos = lease.not_before.saturating_mul(1000);
        let mut first = timeline.unit_at(nb_nanos)?;
        while format.decoded_micros(first) < lease.not_before {
            first = timeline.after(first)?;
        }
        let first_start = timeline.start_of(first);
        let sequencer =
            Sequencer::new(Regression::Logical, format.range(), first.saturating_sub(1));
        let clock = LeaseClock::new(source, lease.server_time);
        let ttl_nanos = i64::try_from(ttl.as_nanos()).unwrap_or(i64::MAX);
        let mut generator = LeasedGenerator {
            owner: fork::Owner::current(),
            format,
            lease,
            clock,
            sequencer,
            ttl_nanos,
            first,
            first_start,
            mark: 0,
            limit: 0,
            renew_at: None,
            last_unit: None,
        };
        generator.set_window()?;
        Ok(generator)
    }

    /// The end of generation and the next renewal, from `expires`: units
    /// must end by `expires - safety` (safety: 1 s or a tenth of the TTL,
    /// the smaller), and a renewal is due halfway from now (or not_before)
    /// to that limit.
    fn set_window(&mut self) -> Result<(), LeaseError> {
        let safety = (self.ttl_nanos / 10).min(1_000_000_000);
        self.limit = self
            .lease
            .expires
            .saturating_mul(1000)
            .saturating_sub(safety);
        let timeline = self.format.timeline();
        let last = timeline.unit_at(self.limit.saturating_sub(1))?;
        let end = match timeline.after(last) {
            Ok(next) => timeline.start_of(next),
            Err(_) => i128::MAX,
        };
        self.mark = if end <= self.limit as i128 {
            last
        } else {
            last.saturating_sub(1)
        };
        let from = self
            .clock
            .db_nanos()
            .max(self.lease.not_before.saturating_mul(1000));
        self.renew_at = Some(from + (self.limit - from).max(0) / 2);
        Ok(())
    }

    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    /// `Ok` in the process that made the generator; [`LeaseError::Forked`]
    /// in a child made by `fork()`, where no ID may be made with it and its
    /// lease must be neither renewed nor released (it is the parent's).
    /// [`try_generate`](Self::try_generate) checks it itself; a client
    /// checks it before renewing or releasing.
    #[inline]
    pub fn check_process(&self) -> Result<(), LeaseError> {
        self.owner.check(self.lease.lease_id)
    }

    pub fn clock(&mut self) -> &mut LeaseClock<M> {
        &mut self.clock
    }

    /// Whether the caller should renew now.
    pub fn renewal_due(&mut self) -> bool {
        match self.renew_at {
            Some(at) => self.clock.db_nanos() >= at,
            None => false,
        }
    }

    /// A successful renewal's row: the window grows (never shrinks) and the
    /// database time is read anew. Make the call right after the response.
    pub fn renewed(&mut self, row: Lease) -> Result<(), LeaseError> {
        if row.lease_id != self.lease.lease_id
            || row.node != self.lease.node
            || row.process != self.lease.process
        {
            return Err(misfit(format!(
                "renewal row of lease {} does not match lease {}",
                row.lease_id, self.lease.lease_id
            ))
            .into());
        }
        self.clock.refresh(row.server_time);
        self.lease.expires = self.lease.expires.max(row.expires);
        self.lease.server_time = row.server_time;
        self.set_window()
    }

    /// A failed renewal: generation goes on until the window ends. With
    /// `retry`, try again halfway to the end (at least 10 ms later); without
    /// (the database said the lease is gone), never again.
    pub fn renewal_failed(&mut self, retry: bool) {
        self.renew_at = if retry {
            let now = self.clock.db_nanos();
            Some(now + ((self.limit - now) / 2).max(10_000_000))
        } else {
            None
        };
    }

    /// One attempt without waiting. `Expired` once the clock has left the
    /// usable part of the window (or its last unit is used up); `Forked` in
    /// a child made by `fork()`.
    pub fn try_generate(&mut self) -> Result<Attempt<F::Id>, LeaseError> {
        self.check_process()?;
        let now = self.clock.db_nanos();
        // Before the window: wait rather than run ahead in logical time.
        if (now as i128) < self.first_start {
            return Ok(Attempt::WaitUntil(self.first_start as i64));
        }
        let limits = Limits {
            mark: self.mark,
            max_lead: DEFAULT_MAX_LEAD,
        };
        let timeline = self.format.timeline();
        match self
            .sequencer
            .try_next(&mut self.clock, timeline, &limits)?
        {
            Step::Issued(s) => {
                let id = self.format.assemble(s.unit, s.sequence())?;
                self.last_unit = Some(self.last_unit.map_or(s.unit, |u| u.max(s.unit)));
                Ok(Attempt::Issued(id))
            }
            Step::Wait => {
                let next = timeline.after(self.sequencer.unit())?;
                Ok(Attempt::WaitUntil(
                    timeline.start_of(next).clamp(0, i64::MAX as i128) as i64,
                ))
            }
            Step::Extend(_) => {
                // The next unit lies beyond the mark: the end, unless the
                // clock is still inside the last unit (its sequence used up).
                let now = self.clock.db_nanos();
                if timeline.unit_at(now)? > self.mark || self.first > self.mark {
                    Err(LeaseError::Expired {
                        lease_id: self.lease.lease_id,
                    })
                } else {
                    let next = timeline.after(self.mark)?;
                    Ok(Attempt::WaitUntil(
                        timeline.start_of(next).clamp(0, i64::MAX as i128) as i64,
                    ))
                }
            }
        }
    }

    /// Waits for `attempt`'s time (at most 100 ms at a time).
    pub fn wait(&mut self, until: i64) {
        self.clock.sleep_until(until, MAX_SLEEP_NANOS);
    }

    /// The next ID, waiting as needed; `Expired` at the window's end. Does
    /// not renew (see [`client::Leased`] for that).
    pub fn generate(&mut self) -> Result<F::Id, LeaseError> {
        loop {
            match self.try_generate()? {
                Attempt::Issued(id) => return Ok(id),
                Attempt::WaitUntil(t) => self.wait(t),
            }
        }
    }

    /// The start of the last unit used, as its IDs decode (microseconds),
    /// for `pg_flake_release(lease_id, last_used)`; `None` before any ID.
    pub fn last_used(&self) -> Option<i64> {
        self.last_unit.map(|u| self.format.decoded_micros(u))
    }

    /// The time an ID made now would decode to is at or after this
    /// (microseconds): the window's first unit.
    pub fn first_micros(&self) -> i64 {
        self.format.decoded_micros(self.first)
    }
}

// Shared between threads only behind a lock (see LeasedGenerator): the
// generators are Send and Sync, and nothing in them is mutable through `&`.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<LeasedGenerator<SnoLease>>();
    send_sync::<LeasedGenerator<SnowflakeLease>>();
    send_sync::<LeasedGenerator<Kuid96Lease>>();
    send_sync::<LeasedGenerator<SiqLease>>();
};

#[cfg(test)]
mod tests;
