package io.github.pgflake.lease;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * A scripted world for the generators without a database: a monotonic clock that moves only
 * when slept on or advanced, renewals that run when that clock reaches them, and a stand-in for
 * the SQL functions whose server time is the clock plus an offset (as python/tests/test_lease.py).
 */
final class Scripted implements Monotonic, Renewals {
    static final long MS = 1_000_000L;
    static final long S = 1_000_000_000L;
    /** 2025-01-01T00:00:00Z: on every format's unit boundary. */
    static final long T0 = 1_735_689_600L * S;
    static final long DISCORD = 1_420_070_400_000L;

    long now = 10 * S;
    long slept;
    int sleeps;
    private final List<long[]> due = new ArrayList<>(); // {monotonic time, index of the task}
    private final List<Runnable> tasks = new ArrayList<>();
    final Leases leases;

    Scripted(String format) {
        this.leases = new Leases(format);
    }

    @Override
    public long nanos() {
        return now;
    }

    @Override
    public void sleep(long nanos) {
        slept += nanos;
        sleeps++;
        advance(nanos);
    }

    /** Moves the clock, running the renewals that fall due. */
    void advance(long nanos) {
        now += nanos;
        runDue();
    }

    void runDue() {
        while (true) {
            long[] next = null;
            for (long[] d : due) {
                if (d[0] <= now && (next == null || d[0] < next[0])) {
                    next = d;
                }
            }
            if (next == null) {
                return;
            }
            due.remove(next);
            tasks.get((int) next[1]).run();
        }
    }

    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
        tasks.add(task);
        long[] entry = {now + Math.max(0, delayNanos), tasks.size() - 1};
        due.add(entry);
        CompletableFuture<Void> future = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean interrupt) {
                due.remove(entry);
                return super.cancel(interrupt);
            }
        };
        return future;
    }

    @Override
    public void shutdown() {
        due.clear();
    }

    long serverNanos() {
        return now + leases.offset;
    }

    LeasedGenerator<?> take(Duration ttl, LeaseOptions options) throws SQLException {
        return LeasedGenerator.take(leases, leases.format, "test", ttl, options, this, this);
    }

    LeasedGenerator<?> take(Duration ttl) throws SQLException {
        return take(ttl, LeaseOptions.DEFAULT);
    }

    /** pg_flake_lease / renew / release over the scripted clock. */
    final class Leases implements LeaseSource {
        final String format;
        long node;
        int process;
        long notBeforeIn;
        long offset = T0 - 10 * S;
        Long epochMs;
        Integer kuidInterval;
        SQLException renewError;
        final List<Long> renewals = new ArrayList<>();
        final List<Long> released = new ArrayList<>(); // last used, micros (or -1 for null)
        Lease row;
        /** When set, the row the next lease() answers. */
        Lease given;

        Leases(String format) {
            this.format = format;
            this.node = switch (format) {
                case "snowflake" -> 31;
                case "kuid96" -> 4_294_967_040L;
                default -> 255;
            };
            this.process = format.equals("kuid96") ? 0 : 7;
            this.epochMs = format.equals("snowflake") ? DISCORD : null;
            this.kuidInterval = format.equals("kuid96") ? 8 : null;
        }

        private Lease row(long notBefore, long expires) {
            return new Lease(1, format, node, process, notBefore / 1000, expires / 1000, serverNanos() / 1000, epochMs,
                kuidInterval);
        }

        @Override
        public Lease lease(String fmt, String holder, Duration ttl) {
            long notBefore = serverNanos() + notBeforeIn;
            row = given != null ? given : row(notBefore, notBefore + ttl.toNanos());
            return row;
        }

        @Override
        public Lease renew(long leaseId, Duration ttl) throws SQLException {
            renewals.add(serverNanos());
            if (renewError != null) {
                throw renewError;
            }
            row = row(row.notBeforeMicros() * 1000, Math.max(row.expiresMicros() * 1000, serverNanos() + ttl.toNanos()));
            return row;
        }

        @Override
        public boolean release(long leaseId, Long lastUsedMicros) {
            released.add(lastUsedMicros == null ? -1 : lastUsedMicros);
            return true;
        }
    }
}
