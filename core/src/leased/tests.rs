//! The leased generator against a scripted monotonic clock: no database.

use super::*;
use crate::formats::kuid::Kuid96;
use crate::formats::siq::{Kind, Siq};
use crate::formats::sno::Sno;

/// A monotonic clock that moves only when slept on (or stepped by a test).
#[derive(Debug, Default)]
struct Scripted {
    now: i64,
    slept: i64,
    sleeps: u64,
}

impl Monotonic for Scripted {
    fn monotonic_nanos(&mut self) -> i64 {
        self.now
    }
    fn sleep(&mut self, nanos: i64) {
        self.now += nanos;
        self.slept += nanos;
        self.sleeps += 1;
    }
}

/// 2026-01-01 00:00:00 UTC in microseconds.
const T0: i64 = 1_767_225_600_000_000;
const SEC: i64 = 1_000_000;

fn lease(format: &str, node: i64, process: i32, ttl_s: i64) -> Lease {
    Lease {
        lease_id: 17,
        format: format.into(),
        node,
        process,
        not_before: T0,
        expires: T0 + ttl_s * SEC,
        server_time: T0,
        epoch_ms: (format == "snowflake")
            .then_some(crate::formats::snowflake::DEFAULT_EPOCH_MILLIS),
        kuid_interval: (format == "kuid96").then_some(8),
    }
}

fn ttl(s: i64) -> Duration {
    Duration::from_secs(s as u64)
}

fn new<F: LeasedFormat>(lease: Lease, options: &F::Options) -> LeasedGenerator<F, Scripted> {
    LeasedGenerator::new(lease, options, ttl(30), Scripted::default()).expect("generator")
}

fn advance<F: LeasedFormat>(g: &mut LeasedGenerator<F, Scripted>, micros: i64) {
    g.clock().source_mut().now += micros * 1000;
}

#[test]
fn sno_ids_carry_the_lease_and_a_time_in_the_window() {
    let mut g = new::<SnoLease>(lease("sno", 255, 7, 30), &SnoOptions { meta: 3 });
    let id: Sno = g.generate().unwrap();
    assert_eq!(id.partition(), 255 << 8 | 7);
    assert_eq!(id.meta(), 3);
    assert!(!id.tick_tock());
    assert_eq!(id.sequence(), 0);
    assert!(id.unix_micros() >= T0 && id.unix_micros() < T0 + 30 * SEC);
    assert_eq!(g.last_used(), Some(id.unix_micros()));
    // Byte-exact: the text form decodes to the same ID.
    assert_eq!(id.to_string().parse::<Sno>().unwrap(), id);
}

#[test]
fn snowflake_ids_carry_worker_process_and_time() {
    let mut g = new::<SnowflakeLease>(lease("snowflake", 31, 30, 30), &());
    let id = g.generate().unwrap();
    let parts =
        crate::formats::snowflake::parts(id, crate::formats::snowflake::DEFAULT_EPOCH_MILLIS)
            .unwrap();
    assert_eq!((parts.worker, parts.process, parts.sequence), (31, 30, 0));
    assert_eq!(parts.time, T0);
}

#[test]
fn kuid96_ids_carry_the_node_with_the_lease_interval() {
    let mut l = lease("kuid96", 4_294_967_295, 0, 30);
    l.kuid_interval = Some(6);
    let mut g = new::<Kuid96Lease>(l, &());
    let id: Kuid96 = g.generate().unwrap();
    let parts = id.parts(6).unwrap();
    assert_eq!((parts.node, parts.seq), (u32::MAX, 0));
    assert_eq!(parts.time, T0);
    // A process other than 0 is no kuid96 lease.
    let mut bad = lease("kuid96", 1, 1, 30);
    bad.kuid_interval = Some(8);
    assert!(
        LeasedGenerator::<Kuid96Lease, _>::new(bad, &(), ttl(30), Scripted::default()).is_err()
    );
}

#[test]
fn siq_ids_carry_shard_and_node_byte() {
    let options = SiqOptions {
        domain: "example.com".into(),
        kind: Kind::Event,
    };
    let mut g = new::<SiqLease>(lease("siq", 200, 9, 30), &options);
    let id: Siq = g.generate().unwrap();
    let hash = crate::formats::siq::domain_hash("example.com").unwrap();
    assert_eq!(id.shard(), 9);
    assert_eq!(id.domain_hash(), 200 << 24 | hash & 0x00FF_FFFF);
    assert_eq!(id.kind(), Some(Kind::Event));
    assert!(id.unix_micros() >= T0);
    // Node 0 also sets the top byte (to 0).
    let mut g0 = new::<SiqLease>(lease("siq", 0, 0, 30), &options);
    assert_eq!(g0.generate().unwrap().domain_hash() >> 24, 0);
}

#[test]
fn a_lease_of_another_format_is_refused() {
    let err = LeasedGenerator::<SnoLease, _>::new(
        lease("siq", 1, 1, 30),
        &SnoOptions::default(),
        ttl(30),
        Scripted::default(),
    )
    .unwrap_err();
    assert!(matches!(err, LeaseError::Format(_)), "{err}");
    assert!(err.to_string().contains("not of sno"));
}

#[test]
fn waits_for_a_not_before_in_the_future() {
    let mut l = lease("snowflake", 1, 2, 30);
    l.not_before = T0 + 5 * SEC + 300; // not on a millisecond
    l.expires = l.not_before + 30 * SEC;
    let mut g = new::<SnowflakeLease>(l, &());
    let id = g.generate().unwrap();
    let time =
        crate::formats::snowflake::timestamp(id, crate::formats::snowflake::DEFAULT_EPOCH_MILLIS)
            .unwrap();
    // The first whole millisecond at or after not_before.
    assert_eq!(time, T0 + 5 * SEC + 1000);
    assert!(g.clock().source_mut().slept >= 5 * SEC * 1000);
    assert_eq!(g.first_micros(), time);
}

#[test]
fn a_used_up_unit_waits_for_the_next() {
    let mut g = new::<SnowflakeLease>(lease("snowflake", 1, 2, 30), &());
    let epoch = crate::formats::snowflake::DEFAULT_EPOCH_MILLIS;
    for seq in 0..4096 {
        let p = crate::formats::snowflake::parts(g.generate().unwrap(), epoch).unwrap();
        assert_eq!((p.time, p.sequence), (T0, seq));
    }
    assert_eq!(g.clock().source_mut().sleeps, 0);
    let p = crate::formats::snowflake::parts(g.generate().unwrap(), epoch).unwrap();
    assert_eq!((p.time, p.sequence), (T0 + 1000, 0));
    assert!(g.clock().source_mut().sleeps > 0);
}

#[test]
fn generation_stops_at_the_window_end_with_expired() {
    // TTL 2 s: safety 0.2 s, so units must end by expires - 0.2 s.
    let mut l = lease("sno", 255, 0, 2);
    l.expires = T0 + 2 * SEC;
    let mut g =
        LeasedGenerator::<SnoLease, _>::new(l, &SnoOptions::default(), ttl(2), Scripted::default())
            .unwrap();
    let limit = T0 + 2 * SEC - 200_000;
    let mut last = None;
    loop {
        // One ID per 1 ms: about 1800 IDs.
        match g.generate() {
            Ok(id) => {
                let t = id.unix_micros();
                assert!(
                    t >= T0 && t + 4000 <= limit,
                    "unit at {t} crosses the limit"
                );
                if let Some(prev) = last {
                    assert!(id > prev);
                }
                last = Some(id);
                advance(&mut g, 1000);
            }
            Err(LeaseError::Expired { lease_id }) => {
                assert_eq!(lease_id, 17);
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    // The last usable unit was used, and nothing after.
    assert_eq!(last.unwrap().unix_micros(), limit - 4000);
    assert!(matches!(g.generate(), Err(LeaseError::Expired { .. })));
}

#[test]
fn the_last_unit_used_up_is_the_end_too() {
    // The clock stands inside the last usable unit: its sequence used up,
    // the generator waits for the next unit, which is beyond: Expired.
    let mut g = LeasedGenerator::<SnowflakeLease, _>::new(
        lease("snowflake", 0, 0, 10),
        &(),
        ttl(10),
        Scripted::default(),
    )
    .unwrap();
    let limit = T0 + 10 * SEC - SEC; // safety 1 s
    advance(&mut g, limit - 1000 - T0);
    for _ in 0..4096 {
        g.generate().unwrap();
    }
    let err = g.generate().unwrap_err();
    assert!(matches!(err, LeaseError::Expired { lease_id: 17 }), "{err}");
    assert!(err.to_string().contains("pg_flake_lease"));
    assert_eq!(g.last_used(), Some(limit - 1000));
}

#[test]
fn renewal_is_due_halfway_to_the_limit_and_extends_the_window() {
    let mut g = new::<Kuid96Lease>(lease("kuid96", 4_294_967_040, 0, 30), &());
    // limit = 29 s, renew at 14.5 s.
    advance(&mut g, 14_400_000);
    assert!(!g.renewal_due());
    advance(&mut g, 100_000);
    assert!(g.renewal_due());
    // The database answers a little later than our estimate (latency).
    let mut row = g.lease().clone();
    row.server_time = T0 + 14_510_000;
    row.expires = row.server_time + 30 * SEC;
    g.renewed(row).unwrap();
    assert!(!g.renewal_due());
    // Past the old expiry, IDs keep coming.
    advance(&mut g, 20 * SEC);
    let id = g.generate().unwrap();
    let t = id.timestamp(8).unwrap();
    assert!(t > T0 + 30 * SEC && t < T0 + 44 * SEC, "{t}");
    // A renewal row of another lease is refused.
    let mut other = g.lease().clone();
    other.lease_id = 18;
    assert!(g.renewed(other).is_err());
}

#[test]
fn a_failed_renewal_generates_until_the_window_ends() {
    let mut g = new::<SiqLease>(lease("siq", 255, 1, 30), &SiqOptions::default());
    advance(&mut g, 15 * SEC);
    assert!(g.renewal_due());
    g.renewal_failed(true);
    assert!(!g.renewal_due());
    advance(&mut g, 7 * SEC + 10_000);
    assert!(g.renewal_due(), "retried halfway to the limit");
    g.renewal_failed(false);
    advance(&mut g, 6 * SEC);
    assert!(!g.renewal_due(), "never again after a refusal");
    let id = g.generate().unwrap();
    assert!(id.unix_micros() < T0 + 29 * SEC);
    advance(&mut g, SEC);
    assert!(matches!(g.generate(), Err(LeaseError::Expired { .. })));
}

#[test]
fn a_renewal_whose_time_runs_back_keeps_ids_increasing_in_the_window() {
    let mut g = new::<SnoLease>(lease("sno", 255, 3, 30), &SnoOptions::default());
    advance(&mut g, 15 * SEC);
    let before = g.generate().unwrap();
    let mut row = g.lease().clone();
    row.server_time = T0 + 15 * SEC - 50_000; // 50 ms behind our estimate
    row.expires = row.server_time + 30 * SEC;
    g.renewed(row).unwrap();
    let mut prev = before;
    for _ in 0..100 {
        let id = g.generate().unwrap();
        assert!(id > prev && !id.tick_tock());
        prev = id;
    }
}

#[test]
fn the_wall_clock_plays_no_part() {
    // Only the lease's server_time and the monotonic source count: two
    // generators with the same script make the same IDs, whatever the
    // machine's clock says meanwhile.
    let ids = |_| {
        let mut g = new::<SnowflakeLease>(lease("snowflake", 4, 5, 30), &());
        advance(&mut g, 1234);
        g.generate().unwrap()
    };
    let a = ids(0);
    std::thread::sleep(Duration::from_millis(2));
    assert_eq!(a, ids(1));
}

#[test]
fn renew_timing_starts_at_not_before() {
    // A window starting in 10 s: no renewal is due while waiting for it.
    let mut l = lease("sno", 255, 0, 30);
    l.not_before = T0 + 10 * SEC;
    l.expires = l.not_before + 30 * SEC;
    let mut g = new::<SnoLease>(l, &SnoOptions::default());
    advance(&mut g, 20 * SEC);
    assert!(!g.renewal_due());
    advance(&mut g, 5 * SEC);
    assert!(g.renewal_due());
}

/// For windows starting and ending anywhere inside a unit, the first ID
/// decodes to a time at or after not_before and the last ID's unit ends by
/// the limit (kuid96's short last unit of a second, SIQ's ticks that start
/// between microseconds).
fn edges<F: LeasedFormat>(
    format: &str,
    options: &F::Options,
    id_micros: impl Fn(&F::Id) -> i64,
    unit_micros: i64,
) {
    for offset in (0..1_000_000).step_by(997) {
        let mut l = lease(format, 1, 0, 2);
        l.not_before = T0 + offset;
        l.server_time = l.not_before;
        l.expires = l.not_before + 2 * SEC + offset % 7919;
        let limit = l.expires - 200_000;
        let mut g =
            LeasedGenerator::<F, _>::new(l.clone(), options, ttl(2), Scripted::default()).unwrap();
        let first = id_micros(&g.generate().unwrap());
        assert!(first >= l.not_before, "{format} {offset}: {first}");
        assert!(
            first - l.not_before <= unit_micros,
            "{format} {offset}: {first}"
        );
        // One ID every third of a unit, from two units before the limit.
        advance(&mut g, limit - 2 * unit_micros - first);
        let mut last = None;
        loop {
            match g.generate() {
                Ok(id) => last = Some(id_micros(&id)),
                Err(LeaseError::Expired { .. }) => break,
                Err(e) => panic!("{e}"),
            }
            advance(&mut g, (unit_micros / 3).max(1));
        }
        let last = last.expect("an ID in the last unit");
        // The unit's end: kuid96's unit 976 ends with its second.
        let end = if format == "kuid96" {
            (last + 1024).min((last / SEC + 1) * SEC)
        } else {
            last + unit_micros
        };
        assert!(
            end <= limit + 1,
            "{format} {offset}: last unit {last}..{end} limit {limit}"
        );
        assert!(
            limit - last <= 2 * unit_micros + 1,
            "{format} {offset}: last {last} limit {limit}"
        );
    }
}

#[test]
fn window_edges_inside_units() {
    edges::<SnoLease>("sno", &SnoOptions::default(), |id| id.unix_micros(), 4000);
    edges::<SnowflakeLease>(
        "snowflake",
        &(),
        |id| {
            crate::formats::snowflake::timestamp(
                *id,
                crate::formats::snowflake::DEFAULT_EPOCH_MILLIS,
            )
            .unwrap()
        },
        1000,
    );
    edges::<Kuid96Lease>("kuid96", &(), |id| id.timestamp(8).unwrap(), 1024);
    edges::<SiqLease>("siq", &SiqOptions::default(), |id| id.unix_micros(), 16);
}

#[cfg(unix)]
#[test]
fn a_generator_copied_into_a_forked_child_refuses_there() {
    let mut g = new::<SnoLease>(lease("sno", 255, 7, 30), &SnoOptions::default());
    let parent: Sno = g.generate().unwrap();
    let refused = super::fork::tests::in_a_child(|| {
        let forked = matches!(
            g.try_generate(),
            Err(LeaseError::Forked { lease_id: 17, .. })
        ) && matches!(g.generate(), Err(LeaseError::Forked { .. }))
            && g.check_process().is_err();
        forked as u8
    });
    assert_eq!(refused, 1, "the child made an ID under its parent's lease");
    // The parent goes on in its unit.
    assert!(g.check_process().is_ok());
    assert!(g.generate().unwrap() > parent);
}
