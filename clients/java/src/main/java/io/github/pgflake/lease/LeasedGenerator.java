package io.github.pgflake.lease;

import io.github.pgflake.FlakeException;
import io.github.pgflake.Kuid96;
import io.github.pgflake.Siq;
import io.github.pgflake.SiqKind;
import io.github.pgflake.Sno;
import io.github.pgflake.Times;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantLock;

/**
 * IDs of one format made in the application under a lease from the database
 * (docs/applications.md "Generating IDs in your application"; the Rust and Python generators,
 * core/src/leased/ and python/pg_flake/lease.py, keep the same contract):
 *
 * <ul>
 * <li>its time is the database's: {@code server_time} of the last lease or renewal advanced by
 * the monotonic clock ({@link System#nanoTime()}), never the machine's wall clock;</li>
 * <li>it uses a time unit only when the whole unit lies inside the window, and only up to
 * {@code expires} minus a safety margin (1 s or a tenth of the TTL, the smaller); it waits for
 * {@code not_before}, and for the next unit when a unit's sequence is used up;</li>
 * <li>a thread of its own renews the lease halfway from now to that limit; no ID ever waits for
 * a renewal or does I/O. When renewing fails it goes on while units fit in the window, then
 * throws {@link LeaseExpiredException} — never an ID outside it; a refusal (55000: expired,
 * released, superseded; 22023: unknown) stops further renewals, other failures are retried;</li>
 * <li>when a renewal's time runs back (the database's clock stepped back) it goes on in logical
 * time above the last unit used, at most {@link #MAX_LEAD_NANOS} ahead of the database's time,
 * and beyond that refuses (55000) until the time catches up, as the extension's generators do;</li>
 * <li>one generator may be shared by threads: the next (unit, sequence) is taken under a lock,
 * the ID assembled outside it, and waits happen with the lock released;</li>
 * <li>{@link #close()} releases the lease ({@code pg_flake_release}, reporting the last unit used,
 * so that its unit's next holder may start soon), and stops the renewals.</li>
 * </ul>
 *
 * <p>A JVM does not fork: a process started from this one (ProcessBuilder) runs a new JVM, which
 * takes a lease of its own.
 *
 * @param <T> the IDs: {@link Sno}, {@link Siq}, {@link Kuid96}, or {@link Long} for Snowflake
 */
public final class LeasedGenerator<T> implements AutoCloseable {
    /** How far logical time may run ahead of the database's time: a minute, as the core's sequencer. */
    public static final long MAX_LEAD_NANOS = 60_000_000_000L;
    /** Longest single sleep, so that a renewal's outcome is seen soon. */
    private static final long MAX_SLEEP_NANOS = 100_000_000L;
    private static final long NO_RENEWAL = Long.MAX_VALUE;

    private final LeaseSource source;
    private final LeasedFormat<T> format;
    private final Duration ttl;
    private final long ttlNanos;
    private final Monotonic clock;
    private final Renewals renewals;
    private final int defaultKind;
    private final ReentrantLock lock = new ReentrantLock();

    // Guarded by lock.
    private Lease lease;
    private long serverNanos; // the database's time at `at` on the monotonic clock
    private long at;
    private final long first; // the window's first unit
    private final long firstStart;
    private long limit; // expires - safety, nanoseconds
    private long mark; // the last unit that ends by limit
    private long unit; // the unit in use (first - 1 before any ID)
    private final int[] next; // per kind: the next sequence in `unit`
    private long lastUnit = Long.MIN_VALUE;
    private boolean expired;
    private boolean released;
    private boolean renewable = true;
    private Exception renewError;
    private Future<?> pending;

    LeasedGenerator(LeaseSource source, Lease lease, LeasedFormat<T> format, Duration ttl, int defaultKind,
            Monotonic clock, Renewals renewals) {
        if (lease.expiresMicros() <= lease.notBeforeMicros()) {
            throw FlakeException.invalidParameter("lease " + lease.leaseId() + " has an empty window");
        }
        this.source = source;
        this.lease = lease;
        this.format = format;
        this.ttl = ttl;
        this.ttlNanos = ttl.toNanos();
        this.clock = clock;
        this.renewals = renewals;
        this.defaultKind = defaultKind;
        this.at = clock.nanos();
        this.serverNanos = lease.serverTimeMicros() * 1000;
        // The first unit whose IDs decode to a time at or after not_before.
        long firstUnit = format.unitAt(lease.notBeforeMicros() * 1000);
        while (format.decodedMicros(firstUnit) < lease.notBeforeMicros()) {
            firstUnit = format.next(firstUnit);
        }
        this.first = firstUnit;
        this.firstStart = format.startNanos(firstUnit);
        this.unit = firstUnit - 1;
        this.next = new int[format.kinds()];
        Arrays.fill(next, Integer.MAX_VALUE); // unit first - 1 is never used
        lock.lock();
        try {
            setWindow();
        } finally {
            lock.unlock();
        }
    }

    // --- taking a lease ---------------------------------------------------------------------

    /**
     * Takes a lease of {@code format} ({@code pg_flake_lease}) for {@code holder} and returns its
     * generator; the IDs are {@code Sno}, {@code Siq}, {@code Kuid96} or {@code Long}. Errors of the
     * SQL function (53400 when every unit is held, 55000, 42501 …) are the driver's SQLException.
     */
    public static LeasedGenerator<?> take(LeaseSource source, String format, String holder, Duration ttl,
            LeaseOptions options) throws SQLException {
        return take(source, format, holder, ttl, options, Monotonic.SYSTEM, null);
    }

    /** {@link #take} with a clock and where renewals run (null: a thread of its own); for tests. */
    public static LeasedGenerator<?> take(LeaseSource source, String format, String holder, Duration ttl,
            LeaseOptions options, Monotonic clock, Renewals renewals) throws SQLException {
        Lease lease = source.lease(format, holder, ttl);
        try {
            if (!lease.format().equals(format)) {
                throw FlakeException.invalidParameter("asked for a lease of " + format + ", got one of " + lease.format());
            }
            LeasedFormat<?> leased = LeasedFormat.of(lease, options);
            int kind = leased instanceof LeasedFormat.SiqFormat siq ? siq.kind.ordinal() : 0;
            return make(source, lease, leased, ttl, kind, clock,
                renewals != null ? renewals : Renewals.thread("pg-flake-lease-" + lease.leaseId()));
        } catch (RuntimeException e) {
            // A row this generator cannot use: hand the unit back at once, unused.
            source.release(lease.leaseId(), null);
            throw e;
        }
    }

    private static <T> LeasedGenerator<T> make(LeaseSource source, Lease lease, LeasedFormat<T> format,
            Duration ttl, int kind, Monotonic clock, Renewals renewals) {
        LeasedGenerator<T> generator = new LeasedGenerator<>(source, lease, format, ttl, kind, clock, renewals);
        generator.scheduleRenewal();
        return generator;
    }

    @SuppressWarnings("unchecked")
    private static <T> LeasedGenerator<T> typed(LeasedGenerator<?> generator) {
        return (LeasedGenerator<T>) generator;
    }

    /** Leased sno: partition = node << 8 | process, the given metabyte. */
    public static LeasedGenerator<Sno> sno(LeaseSource source, String holder, Duration ttl, int meta)
            throws SQLException {
        return typed(take(source, "sno", holder, ttl, LeaseOptions.DEFAULT.withMeta(meta)));
    }

    /** Leased sno over a connection of the generator's own (see {@link JdbcLeases}). */
    public static LeasedGenerator<Sno> sno(Connection connection, String holder, Duration ttl) throws SQLException {
        return sno(new JdbcLeases(connection), holder, ttl, 0);
    }

    /** Leased Snowflake ({@code Long}): worker = node, the lease's epoch. */
    public static LeasedGenerator<Long> snowflake(LeaseSource source, String holder, Duration ttl)
            throws SQLException {
        return typed(take(source, "snowflake", holder, ttl, LeaseOptions.DEFAULT));
    }

    public static LeasedGenerator<Long> snowflake(Connection connection, String holder, Duration ttl)
            throws SQLException {
        return snowflake(new JdbcLeases(connection), holder, ttl);
    }

    /** Leased kuid96: the lease's 32-bit node and interval. */
    public static LeasedGenerator<Kuid96> kuid96(LeaseSource source, String holder, Duration ttl)
            throws SQLException {
        return typed(take(source, "kuid96", holder, ttl, LeaseOptions.DEFAULT));
    }

    public static LeasedGenerator<Kuid96> kuid96(Connection connection, String holder, Duration ttl)
            throws SQLException {
        return kuid96(new JdbcLeases(connection), holder, ttl);
    }

    /** Leased SIQ: shard = process, the node in the domain hash's top byte, {@code kind} by default. */
    public static LeasedGenerator<Siq> siq(LeaseSource source, String holder, Duration ttl, String domain,
            SiqKind kind) throws SQLException {
        return typed(take(source, "siq", holder, ttl, LeaseOptions.DEFAULT.withDomain(domain).withKind(kind)));
    }

    public static LeasedGenerator<Siq> siq(Connection connection, String holder, Duration ttl) throws SQLException {
        return siq(new JdbcLeases(connection), holder, ttl, "", SiqKind.USER);
    }

    // --- generating -----------------------------------------------------------------------------

    /**
     * The next ID. Waits for {@code not_before} and for the next unit when a unit's sequence is
     * used up; {@link LeaseExpiredException} once no unit fits in the window and the lease was not
     * renewed; a {@link LeaseException} after {@link #close()}, or with 55000 while the database's
     * time is more than {@link #MAX_LEAD_NANOS} behind the IDs already made.
     */
    public T generate() throws LeaseException {
        return next(defaultKind);
    }

    /** SIQ only: the next ID of {@code kind} (serials are kept per kind). */
    public T generate(SiqKind kind) throws LeaseException {
        if (!(format instanceof LeasedFormat.SiqFormat)) {
            throw new IllegalArgumentException("a kind applies to siq only, not " + format.name);
        }
        return next(kind.ordinal());
    }

    private T next(int kind) throws LeaseException {
        long issuedUnit;
        int issuedSequence;
        lock.lock();
        try {
            while (true) {
                long wait = step(kind, dbNanos());
                if (wait == 0) {
                    issuedUnit = unit;
                    issuedSequence = next[kind] - 1;
                    break;
                }
                sleepUnlocked(wait);
            }
        } finally {
            lock.unlock();
        }
        // The (unit, sequence) is this call's alone now: assembled outside the lock.
        try {
            return format.build(issuedUnit, issuedSequence, kind);
        } catch (FlakeException e) {
            throw new LeaseException(lease.leaseId(), e.getMessage(), e.getSqlState(), e);
        }
    }

    /**
     * One attempt at database time {@code now}: 0 when (unit, next[kind] - 1) was issued, else the
     * nanoseconds to wait. As the core's sequencer (core/src/sequencer.rs), with logical time
     * bounded by the lead and the lease's mark.
     */
    private long step(int kind, long now) throws LeaseException {
        if (released) {
            throw new LeaseException(lease.leaseId(), "lease " + lease.leaseId() + " was released");
        }
        if (expired) {
            throw expiredException();
        }
        if (now < firstStart) {
            return firstStart - now; // before the window: wait rather than run ahead
        }
        long clockUnit = format.unitAt(now);
        long target;
        boolean fresh;
        if (clockUnit > unit) {
            target = clockUnit;
            fresh = true;
        } else if (next[kind] <= format.maxSequence(kind)) {
            target = unit;
            fresh = false;
        } else if (clockUnit == unit) {
            return Math.max(1, format.startNanos(format.next(unit)) - now);
        } else {
            target = format.next(unit); // the clock is behind: logical time
            fresh = true;
        }
        long lead = target > clockUnit ? format.startNanos(target) - now : 0;
        if (lead > MAX_LEAD_NANOS) {
            throw new LeaseException(lease.leaseId(), format.name + " generation stopped: the database's time is "
                + lead / 1_000_000 / 1000.0 + " s behind the last IDs of lease " + lease.leaseId()
                + "; IDs may run at most 60 s ahead of it", "55000", null);
        }
        if (target > mark) {
            if (clockUnit > mark || first > mark) {
                expired = true;
                throw expiredException();
            }
            // The clock is inside the last usable unit, its sequence used up: wait for it to end
            // (or for a renewal to move the mark).
            return Math.max(1, format.startNanos(format.next(mark)) - now);
        }
        if (fresh) {
            Arrays.fill(next, 0);
            unit = target;
        }
        next[kind]++;
        lastUnit = Math.max(lastUnit, unit);
        return 0;
    }

    private void sleepUnlocked(long nanos) throws LeaseException {
        lock.unlock();
        try {
            clock.sleep(Math.min(Math.max(nanos, 1000), MAX_SLEEP_NANOS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseException(lease.leaseId(), "interrupted while waiting for the next unit", null, e);
        } finally {
            lock.lock();
        }
    }

    private LeaseExpiredException expiredException() {
        return new LeaseExpiredException(lease.leaseId(), lease.format(), lease.expires(), renewError);
    }

    private long dbNanos() {
        return serverNanos + (clock.nanos() - at);
    }

    /** The end of generation and the next renewal, from expires (core/src/leased/mod.rs set_window). */
    private void setWindow() {
        long safety = Math.min(ttlNanos / 10, 1_000_000_000L);
        limit = lease.expiresMicros() * 1000 - safety;
        long last = format.unitAt(limit - 1);
        mark = format.startNanos(format.next(last)) <= limit ? last : last - 1;
    }

    // --- renewing -------------------------------------------------------------------------------

    /** Schedules the next renewal halfway from now (or not_before) to the limit. */
    private void scheduleRenewal() {
        lock.lock();
        try {
            long now = dbNanos();
            long from = Math.max(now, lease.notBeforeMicros() * 1000);
            scheduleAt(from + Math.max(0, limit - from) / 2, now);
        } finally {
            lock.unlock();
        }
    }

    private void scheduleAt(long dbTime, long now) {
        if (released || !renewable || dbTime == NO_RENEWAL) {
            return;
        }
        pending = renewals.schedule(this::renew, dbTime - now);
    }

    /** One renewal, on the renewal thread: the round trip without the lock, its outcome under it. */
    private void renew() {
        long leaseId;
        lock.lock();
        try {
            if (released || !renewable) {
                return;
            }
            leaseId = lease.leaseId();
        } finally {
            lock.unlock();
        }
        Lease row = null;
        SQLException error = null;
        long arrived = 0;
        try {
            row = source.renew(leaseId, ttl);
            arrived = clock.nanos();
        } catch (SQLException e) {
            error = e;
        } catch (RuntimeException e) {
            error = new SQLException("renewal failed: " + e, null, e);
        }
        lock.lock();
        try {
            if (released) {
                return;
            }
            if (row == null) {
                renewError = error;
                // 55000 (expired, released, superseded) and 22023 (unknown) are final.
                String state = error.getSQLState();
                if ("55000".equals(state) || "22023".equals(state)) {
                    renewable = false;
                    return;
                }
                long now = dbNanos();
                if (now < limit) {
                    scheduleAt(now + Math.max((limit - now) / 2, 10_000_000L), now);
                }
                return;
            }
            if (row.leaseId() != lease.leaseId() || row.node() != lease.node() || row.process() != lease.process()
                    || !row.format().equals(lease.format())) {
                renewError = new SQLException("renewal row of lease " + row.leaseId() + " does not match lease "
                    + lease.leaseId(), "22023");
                renewable = false;
                return;
            }
            serverNanos = row.serverTimeMicros() * 1000;
            at = arrived;
            lease = new Lease(lease.leaseId(), lease.format(), lease.node(), lease.process(), lease.notBeforeMicros(),
                Math.max(lease.expiresMicros(), row.expiresMicros()), row.serverTimeMicros(), lease.epochMs(),
                lease.kuidInterval());
            renewError = null;
            setWindow();
        } finally {
            lock.unlock();
        }
        scheduleRenewal();
    }

    // --- state and end --------------------------------------------------------------------------

    /** The lease as last granted or renewed (expires grows with renewals). */
    public Lease lease() {
        lock.lock();
        try {
            return lease;
        } finally {
            lock.unlock();
        }
    }

    /** The last renewal's error, null after a successful one. */
    public Exception renewError() {
        lock.lock();
        try {
            return renewError;
        } finally {
            lock.unlock();
        }
    }

    /** Start of the last unit used, as its IDs decode (microseconds since 1970); null before any ID. */
    public Long lastUsedMicros() {
        lock.lock();
        try {
            return lastUnit == Long.MIN_VALUE ? null : format.decodedMicros(lastUnit);
        } finally {
            lock.unlock();
        }
    }

    /** The format's name, as {@code pg_flake_lease} takes it. */
    public String format() {
        return format.name;
    }

    /**
     * Ends the lease: {@code pg_flake_release} with the start of the last unit used; no ID after
     * it, no more renewals. True if the lease was held, false if it had already ended (expired)
     * or was released before.
     */
    public boolean release() throws SQLException {
        long leaseId;
        Long lastUsed;
        lock.lock();
        try {
            if (released) {
                return false;
            }
            released = true;
            if (pending != null) {
                pending.cancel(false);
            }
            leaseId = lease.leaseId();
            lastUsed = lastUnit == Long.MIN_VALUE ? null : format.decodedMicros(lastUnit);
        } finally {
            lock.unlock();
        }
        renewals.shutdown();
        return source.release(leaseId, lastUsed);
    }

    /** {@link #release()}. */
    @Override
    public void close() throws SQLException {
        release();
    }

    @Override
    public String toString() {
        Lease l = lease();
        return "LeasedGenerator(" + l.format() + ", lease " + l.leaseId() + ", node " + l.node() + ", process "
            + l.process() + ", until " + Times.instant(l.expiresMicros()) + ")";
    }
}
