package io.github.pgflake.lease;

import static io.github.pgflake.lease.LeasedGeneratorTest.micros;
import static io.github.pgflake.lease.Scripted.T0;

import io.github.pgflake.testing.Check;
import io.github.pgflake.testing.Test;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Windows starting and ending anywhere inside a unit (kuid96's short last unit of a second,
 * SIQ's ticks that start between microseconds), as core/src/leased/tests.rs window_edges; and
 * one generator shared by threads on the real clock, with a stand-in for the database.
 */
public class LeaseWindowEdgesTest {
    @Test
    public void windowEdgesInsideUnits() throws Exception {
        Object[][] formats = {{"sno", 4000L}, {"snowflake", 1000L}, {"kuid96", 1024L}, {"siq", 16L}};
        for (Object[] f : formats) {
            String format = (String) f[0];
            long unit = (Long) f[1];
            for (long offset = 0; offset < 1_000_000; offset += 997) {
                Scripted w = new Scripted(format);
                long notBefore = T0 / 1000 + offset;
                long expires = notBefore + 2_000_000 + offset % 7919;
                long limit = expires - 200_000;
                w.leases.offset = notBefore * 1000 - w.now;
                w.leases.given = new Lease(1, format, 1, 0, notBefore, expires, notBefore,
                    format.equals("snowflake") ? Scripted.DISCORD : null, format.equals("kuid96") ? 8 : null);
                LeasedGenerator<?> g = w.take(Duration.ofSeconds(2));
                w.leases.renewError = new SQLException("down", "08006");
                long first = micros(g.generate());
                Check.that(first >= notBefore && first - notBefore <= unit, format + " " + offset + ": first " + first);
                // One ID every third of a unit, from two units before the limit.
                w.advance((limit - 2 * unit - first) * 1000);
                long last = -1;
                while (true) {
                    try {
                        last = micros(g.generate());
                    } catch (LeaseExpiredException e) {
                        break;
                    }
                    w.advance(Math.max(unit / 3, 1) * 1000);
                }
                Check.that(last > 0, format + " " + offset + ": an ID in the last units");
                long end = format.equals("kuid96") ? Math.min(last + 1024, (last / 1_000_000 + 1) * 1_000_000)
                    : last + unit;
                Check.that(end <= limit + 1, format + " " + offset + ": last unit " + last + ".." + end + " limit " + limit);
                Check.that(limit - last <= 2 * unit + 1, format + " " + offset + ": last " + last + " limit " + limit);
            }
        }
    }

    @Test
    public void threadsSharingOneGeneratorNeverDuplicate() throws Exception {
        for (String format : LeasedGeneratorTest.FORMATS) {
            Scripted w = new Scripted(format);
            w.leases.offset = System.currentTimeMillis() * 1_000_000 - System.nanoTime();
            LeasedGenerator<?> g = LeasedGenerator.take(w.leases, format, "threads", Duration.ofSeconds(30),
                LeaseOptions.DEFAULT, Monotonic.SYSTEM, w);
            int threads = 8;
            int each = 20_000;
            List<Object> ids = Collections.synchronizedList(new ArrayList<>());
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    List<Object> mine = new ArrayList<>(each);
                    try {
                        for (int i = 0; i < each; i++) {
                            mine.add(g.generate());
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                    ids.addAll(mine);
                });
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            Check.equal(null, failure.get(), format + " no failure");
            Set<Object> distinct = new HashSet<>(ids);
            Check.equal(threads * each, distinct.size(), format + " distinct IDs of " + ids.size());
            g.release();
        }
    }
}
