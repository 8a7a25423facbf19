package io.github.pgflake.lease;

import static io.github.pgflake.lease.Scripted.MS;
import static io.github.pgflake.lease.Scripted.S;
import static io.github.pgflake.lease.Scripted.T0;

import io.github.pgflake.Kuid96;
import io.github.pgflake.Siq;
import io.github.pgflake.SiqKind;
import io.github.pgflake.Sno;
import io.github.pgflake.Snowflake;
import io.github.pgflake.testing.Check;
import io.github.pgflake.testing.Test;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The leased generator against a scripted monotonic clock and a stand-in for the SQL functions
 * (Scripted): window edges, sequence exhaustion, renewal, expiry, a database time that runs
 * back, release. As core/src/leased/tests.rs and python/tests/test_lease.py.
 */
public class LeasedGeneratorTest {
    static final List<String> FORMATS = List.of("sno", "snowflake", "kuid96", "siq");

    /** The time an ID decodes to, in microseconds. */
    static long micros(Object id) {
        if (id instanceof Long snowflake) {
            return Snowflake.parts(snowflake).unixMicros();
        }
        if (id instanceof Kuid96 kuid) {
            return kuid.parts(8).unixMicros();
        }
        return ((io.github.pgflake.FlakeId<?>) id).unixMicros();
    }

    /** The (node, process) an ID carries. */
    static List<Long> unitOf(Object id) {
        if (id instanceof Long snowflake) {
            Snowflake.Parts p = Snowflake.parts(snowflake);
            return List.of((long) p.worker(), (long) p.process());
        }
        if (id instanceof Kuid96 kuid) {
            return List.of(kuid.parts(8).node(), 0L);
        }
        if (id instanceof Siq siq) {
            return List.of(siq.domainHash() >> 24, (long) siq.shard());
        }
        Sno sno = (Sno) id;
        return List.of((long) sno.partition() >> 8, (long) sno.partition() & 255);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static int compare(Object a, Object b) {
        return ((Comparable) a).compareTo(b);
    }

    @Test
    public void idsCarryTheLeaseAndATimeInTheWindow() throws Exception {
        for (String format : FORMATS) {
            Scripted w = new Scripted(format);
            LeasedGenerator<?> g = w.take(Duration.ofSeconds(30), LeaseOptions.DEFAULT.withMeta(3));
            Object id = g.generate();
            Check.equal(List.of(w.leases.node, (long) w.leases.process), unitOf(id), format + " unit");
            Check.equal(T0 / 1000, micros(id), format + " time");
            Check.equal(micros(id), g.lastUsedMicros(), format + " last used");
            Check.equal(format, g.format(), "format");
            if (id instanceof Sno sno) {
                Check.equal(3, sno.meta(), "meta");
                Check.equal(sno, Sno.parse(sno.toString()), "byte-exact text");
            }
        }
    }

    @Test
    public void waitsForNotBeforeAndUsesOnlyWholeUnits() throws Exception {
        for (String format : FORMATS) {
            Scripted w = new Scripted(format);
            w.leases.notBeforeIn = 2_500_001_700L; // inside a unit of every format
            LeasedGenerator<?> g = w.take(Duration.ofSeconds(30));
            long notBefore = g.lease().notBeforeMicros();
            Object first = g.generate();
            Check.that(w.sleeps > 0 && w.slept >= 2_500_000_000L, format + " waited");
            Check.that(micros(first) >= notBefore, format + " first ID at or after not_before");
            long unit = switch (format) {
                case "sno" -> 4000;
                case "snowflake" -> 1000;
                case "kuid96" -> 1024;
                default -> 16;
            };
            Check.that(micros(first) - notBefore <= unit, format + " the first such unit");
        }
    }

    @Test
    public void aUsedUpUnitWaitsForTheNext() throws Exception {
        Object[][] cases = {{"snowflake", 4096, SiqKind.USER}, {"kuid96", 16384, SiqKind.USER},
            {"sno", 65536, SiqKind.USER}, {"siq", 2048, SiqKind.USER}, {"siq", 8192, SiqKind.MULTI}};
        for (Object[] c : cases) {
            Scripted w = new Scripted((String) c[0]);
            LeasedGenerator<?> g = w.take(Duration.ofSeconds(30), LeaseOptions.DEFAULT.withKind((SiqKind) c[2]));
            int perUnit = (Integer) c[1];
            Set<Object> ids = new HashSet<>();
            for (int i = 0; i < perUnit; i++) {
                ids.add(g.generate());
            }
            Check.equal(0, w.sleeps, c[0] + " no wait inside the unit");
            Object next = g.generate();
            Check.that(w.sleeps > 0, c[0] + " waited for the next unit");
            Check.that(micros(next) > T0 / 1000, c[0] + " in the next unit");
            ids.add(next);
            Check.equal(perUnit + 1, ids.size(), c[0] + " distinct");
        }
    }

    @Test
    public void stopsAtTheEndOfTheWindowWhenRenewalFails() throws Exception {
        for (String format : FORMATS) {
            Scripted w = new Scripted(format);
            LeasedGenerator<?> g = w.take(Duration.ofSeconds(2));
            long expires = g.lease().expiresMicros();
            long limit = expires - 200_000; // safety: a tenth of the TTL
            w.leases.renewError = new SQLException("connection lost", "08006"); // retried, never succeeds
            Object last = null;
            int count = 0;
            LeaseExpiredException end = null;
            while (end == null) {
                try {
                    Object id = g.generate();
                    Check.that(micros(id) < limit, format + " an ID at " + micros(id) + " past the limit " + limit);
                    Check.that(last == null || compare(id, last) > 0, format + " increasing");
                    last = id;
                    count++;
                    w.advance(97_000); // 97 µs between IDs
                } catch (LeaseExpiredException e) {
                    end = e;
                }
            }
            Check.that(count > 10_000, format + " IDs: " + count);
            Check.that(limit - micros(last) <= 5000, format + " used up to the limit");
            Check.that(end.getCause() == w.leases.renewError, format + " the renewal error is the cause");
            Check.that(w.leases.renewals.size() > 2 && w.leases.renewals.size() < 200,
                format + " retried at intervals: " + w.leases.renewals.size());
            Check.that(Check.raises(IllegalStateException.class, () -> generateOrWrap(g), "stays expired")
                .getCause() instanceof LeaseExpiredException, format + " stays expired");
        }
    }

    @Test
    public void renewsHalfwayToTheLimitAndGoesOnPastTheOldExpiry() throws Exception {
        Scripted w = new Scripted("sno");
        LeasedGenerator<?> g = w.take(Duration.ofSeconds(30));
        long expires = g.lease().expiresMicros();
        // limit = expires - 1 s; renewal due halfway: 14.5 s in.
        w.advance(14_400 * MS);
        Check.equal(0, w.leases.renewals.size(), "not yet");
        w.advance(100 * MS);
        Check.equal(1, w.leases.renewals.size(), "renewed at 14.5 s");
        Check.that(g.lease().expiresMicros() > expires, "the window grew");
        w.advance(20 * S); // past the first expiry, renewed again meanwhile
        Object id = g.generate();
        Check.that(micros(id) > expires, "an ID past the first expiry");
        Check.equal(2, w.leases.renewals.size(), "renewed again");
    }

    @Test
    public void aFinalRefusalStopsRenewingButTheWindowIsUsed() throws Exception {
        Scripted w = new Scripted("snowflake");
        LeasedGenerator<?> g = w.take(Duration.ofSeconds(10));
        long expires = g.lease().expiresMicros();
        w.leases.renewError = new SQLException("lease 1 has a successor", "55000");
        w.advance(5 * S); // due at 4.5 s: refused
        Check.equal(1, w.leases.renewals.size(), "one renewal");
        Check.that(g.renewError() == w.leases.renewError, "its error");
        w.advance((expires - 1_000_000) * 1000 - w.serverNanos() - 2 * MS); // 2 ms before the limit
        Object a = g.generate();
        Check.equal(expires - 1_000_000 - 2000, micros(a), "IDs up to the limit");
        w.advance(2 * MS);
        Check.raises(IllegalStateException.class, () -> generateOrWrap(g), "expired at the limit");
        Check.equal(1, w.leases.renewals.size(), "never retried after 55000");
    }

    @Test
    public void aTransientRenewalFailureIsRetriedAndRecovers() throws Exception {
        Scripted w = new Scripted("kuid96");
        LeasedGenerator<?> g = w.take(Duration.ofSeconds(4));
        long expires = g.lease().expiresMicros();
        w.leases.renewError = new SQLException("connection lost", "08006");
        w.advance(1_800 * MS); // due at 1.8 s (limit 3.6 s)
        Check.equal(1, w.leases.renewals.size(), "tried once");
        w.leases.renewError = null;
        w.advance(1_000 * MS); // retried halfway to the limit
        Check.equal(2, w.leases.renewals.size(), "retried");
        Check.equal(null, g.renewError(), "recovered");
        Check.that(g.lease().expiresMicros() > expires, "renewed");
        w.advance(2 * S);
        Check.that(micros(g.generate()) > expires, "past the first expiry");
    }

    @Test
    public void aDatabaseTimeThatRunsBackNeverRepeatsAnIdAndStopsBeyondTheLead() throws Exception {
        Scripted w = new Scripted("snowflake");
        LeasedGenerator<?> g = w.take(Duration.ofSeconds(300));
        w.advance(100 * S);
        Set<Object> ids = new HashSet<>();
        Object before = g.generate();
        ids.add(before);
        w.leases.offset -= 3 * MS; // the next renewal's server_time reads 3 ms earlier
        w.advance(50 * S); // the renewal at 144.5 s
        Check.equal(1, w.leases.renewals.size(), "renewed");
        Object prev = before;
        for (int i = 0; i < 20_000; i++) {
            Object id = g.generate();
            Check.that(compare(id, prev) > 0, "increasing after the step back");
            ids.add(id);
            prev = id;
        }
        Check.equal(20_001, ids.size(), "distinct");
        // A step back of more than a minute: logical time may not run that far ahead.
        w.leases.offset -= 120 * S;
        LeaseException behind = null;
        while (behind == null && w.leases.renewals.size() < 3) {
            w.advance(S); // an ID a second until the next renewal brings the earlier time
            try {
                prev = g.generate();
            } catch (LeaseException e) {
                behind = e;
            }
        }
        Check.equal(2, w.leases.renewals.size(), "refused right after the second renewal");
        Check.that(behind != null && "55000".equals(behind.getSqlState()), "refused: " + behind);
        w.advance(70 * S); // the database's time catches up to within the lead
        Check.that(compare(g.generate(), prev) > 0, "goes on once within the lead");
    }

    @Test
    public void theWallClockPlaysNoPart() throws Exception {
        Object a = idAfter(1234);
        Thread.sleep(2);
        Check.equal(a, idAfter(1234), "the same script, the same ID");
    }

    private static Object idAfter(long micros) throws Exception {
        Scripted w = new Scripted("snowflake");
        LeasedGenerator<?> g = w.take(Duration.ofSeconds(30));
        w.advance(micros * 1000);
        return g.generate();
    }

    @Test
    public void releaseReportsTheLastUnitAndEndsGeneration() throws Exception {
        Scripted w = new Scripted("sno");
        LeasedGenerator<?> g = w.take(Duration.ofSeconds(30));
        Check.equal(null, g.lastUsedMicros(), "nothing used yet");
        Sno id = (Sno) g.generate();
        Check.equal(true, g.release(), "released");
        Check.equal(List.of(id.unixMicros()), w.leases.released, "the last unit used reported");
        Check.raises(IllegalStateException.class, () -> generateOrWrap(g), "no ID after release");
        Check.equal(false, g.release(), "once");
        w.advance(60 * S);
        Check.equal(0, w.leases.renewals.size(), "no renewal after release");
    }

    @Test
    public void siqSerialsArePerKind() throws Exception {
        Scripted w = new Scripted("siq");
        w.leases.node = 254;
        w.leases.process = 3;
        @SuppressWarnings("unchecked")
        LeasedGenerator<Siq> g = (LeasedGenerator<Siq>) w.take(Duration.ofSeconds(30),
            LeaseOptions.DEFAULT.withDomain("example.com"));
        Siq a = g.generate();
        Siq b = g.generate(SiqKind.MESSAGE);
        Siq c = g.generate();
        Check.equal(List.of(SiqKind.USER, 0, SiqKind.MESSAGE, 0, 1),
            List.of(a.kind(), a.serial(), b.kind(), b.serial(), c.serial()), "kinds and serials");
        Check.equal(3, a.shard(), "shard");
        Check.equal(254L, a.domainHash() >> 24, "node byte");
        Check.equal(Siq.domainHash("example.com") & 0xFFFFFF, a.domainHash() & 0xFFFFFF, "domain");
    }

    @Test
    public void formatsAndRowsAreChecked() throws Exception {
        Scripted w = new Scripted("sno");
        LeasedGenerator<?> g = w.take(Duration.ofSeconds(30));
        Check.raises(IllegalArgumentException.class, () -> {
            try {
                g.generate(SiqKind.USER);
            } catch (LeaseException e) {
                throw new IllegalStateException(e);
            }
        }, "a kind for sno");
        Scripted k = new Scripted("kuid64");
        Check.rejects("22023", () -> takeOrWrap(k), "kuid64 has no leases");
        Check.equal(1, k.leases.released.size(), "the unusable lease released at once");
        Scripted s = new Scripted("snowflake");
        s.leases.epochMs = null;
        Check.rejects("22023", () -> takeOrWrap(s), "a snowflake lease without an epoch");
    }

    static void generateOrWrap(LeasedGenerator<?> g) {
        try {
            g.generate();
        } catch (LeaseException e) {
            throw new IllegalStateException(e);
        }
    }

    static void takeOrWrap(Scripted w) {
        try {
            w.take(Duration.ofSeconds(30));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
