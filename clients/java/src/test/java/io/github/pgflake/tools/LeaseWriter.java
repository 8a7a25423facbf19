package io.github.pgflake.tools;

import io.github.pgflake.lease.JdbcLeases;
import io.github.pgflake.lease.Lease;
import io.github.pgflake.lease.LeaseException;
import io.github.pgflake.lease.LeaseExpiredException;
import io.github.pgflake.lease.LeaseOptions;
import io.github.pgflake.lease.LeasedGenerator;
import io.github.pgflake.testing.Db;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An application process that makes its own IDs under a lease and inserts them: the Java
 * holder of the multi-process lease tests and the nemesis, with tests/servers/lease_writer.py's
 * command line and output (clients/java/lease-writer.sh runs it):
 *
 * <pre>
 * lease-writer.sh --dsn 'host=… port=… dbname=…' --format sno --holder java-1 --ttl-ms 3000 \
 *     --table ids_sno --seconds 20 [--threads N] [--ids FILE]
 * </pre>
 *
 * For {@code --seconds} it generates an ID and inserts it with {@code INSERT INTO <table> (id,
 * lease_id) VALUES (?::text::<type>, ?)}. stdout: one JSON line per lease taken, flushed at
 * once. On LeaseExpiredException it writes {@code expired <lease_id>} to stderr and takes a new
 * lease. Exit 0 after releasing its lease at the end; 3 on a unique violation (a collision);
 * 1 on anything else. {@code --threads N}: N threads share the one generator, each inserting over
 * a connection of its own. {@code --ids FILE}: every ID with its lease appended to FILE as
 * {@code <id> <lease_id>}, before the insert. {@code --fork} is Python's: a JVM does not fork
 * (only 0 is accepted).
 */
public final class LeaseWriter {
    private static final Map<String, String> SQL_TYPE =
        Map.of("sno", "sno", "siq", "siq", "kuid96", "kuid96", "snowflake", "bigint");

    private final Map<String, String> args;
    private final long deadline;
    private final JdbcLeases source;
    private final OutputStream ids;
    private LeasedGenerator<?> generator;
    private long printed = -1;

    private LeaseWriter(Map<String, String> args, long deadline) throws IOException {
        this.args = args;
        this.deadline = deadline;
        this.source = new JdbcLeases(() -> connect(args.get("dsn"), deadline));
        this.ids = args.containsKey("ids") ? new FileOutputStream(args.get("ids"), true) : null;
    }

    static void say(String text) {
        synchronized (System.err) {
            System.err.println(text);
            System.err.flush();
        }
    }

    /** A connection, retried while the server restarts or fails over (up to the deadline). */
    static Connection connect(String dsn, long deadline) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            try {
                Connection conn = Db.connectTo(dsn, "connectTimeout", "5");
                conn.setAutoCommit(true);
                return conn;
            } catch (SQLException e) {
                if (System.nanoTime() >= deadline) {
                    throw e;
                }
                if (attempt == 0) {
                    say("connecting failed, retrying: " + e.getSQLState() + " " + e.getMessage());
                }
                sleep(200);
            }
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A new lease; waits while every unit is held (53400) or the server is away, until the deadline. */
    private LeasedGenerator<?> take() throws SQLException {
        while (true) {
            try {
                LeasedGenerator<?> gen = LeasedGenerator.take(source, args.get("format"), args.get("holder"),
                    Duration.ofMillis(Long.parseLong(args.get("ttl-ms"))), LeaseOptions.DEFAULT);
                note(gen.lease());
                return gen;
            } catch (SQLException e) {
                // Every unit held (53400), the server away or in recovery, a grant waiting
                // for the grant lock or cancelled by statement_timeout (55P03, 57014), a
                // serialization failure: retried until the deadline. A mistake of ours
                // (class 42: no such function, no privilege; 22: a bad argument) is not.
                String state = e.getSQLState();
                boolean fatal = state != null && (state.startsWith("42") || state.startsWith("22"));
                if (fatal) {
                    throw e;
                }
                if (System.nanoTime() >= deadline) {
                    return null;
                }
                sleep("53400".equals(state) ? 100 : 200);
            }
        }
    }

    private synchronized void note(Lease lease) {
        if (lease.leaseId() == printed) {
            return;
        }
        printed = lease.leaseId();
        System.out.printf("{\"lease_id\": %d, \"node\": %d, \"process\": %d, \"pid\": %d}%n", lease.leaseId(),
            lease.node(), lease.process(), ProcessHandle.current().pid());
        System.out.flush();
    }

    /** The generator to use once {@code expired} expired: the next lease, taken once. */
    private synchronized LeasedGenerator<?> afterExpiry(LeasedGenerator<?> expired, String why)
            throws SQLException {
        if (generator == expired) {
            say(why + " " + expired.lease().leaseId());
            try {
                expired.release(); // stops its renewals; the lease has ended
            } catch (SQLException e) {
                // the server may be away: the lease ends at its expiry either way
            }
            generator = take();
        }
        return generator;
    }

    private synchronized LeasedGenerator<?> current() {
        return generator;
    }

    /** One thread's loop: generate, insert. Its exit code. */
    private int write() {
        String insert = "INSERT INTO " + args.get("table") + " (id, lease_id) VALUES (?::text::"
            + SQL_TYPE.get(args.get("format")) + ", ?)";
        long inserted = 0;
        try {
            Connection conn = connect(args.get("dsn"), deadline);
            LeasedGenerator<?> gen = current();
            while (gen != null && System.nanoTime() < deadline) {
                Object value;
                try {
                    value = gen.generate();
                } catch (LeaseExpiredException e) {
                    gen = afterExpiry(gen, "expired");
                    continue;
                } catch (LeaseException e) {
                    if (gen != current()) {
                        gen = current(); // another thread replaced (and released) the expired one
                        continue;
                    }
                    if ("55000".equals(e.getSqlState())) {
                        // The machine's monotonic clock went back (only libfaketime does that):
                        // a new lease's server_time sets the generator's time right again.
                        gen = afterExpiry(gen, "clock behind, new lease after");
                        continue;
                    }
                    throw e;
                }
                long leaseId = gen.lease().leaseId();
                if (ids != null) {
                    byte[] line = (value + " " + leaseId + "\n").getBytes(StandardCharsets.US_ASCII);
                    synchronized (ids) {
                        ids.write(line); // one write(2) with O_APPEND: lines never mix
                    }
                }
                try (PreparedStatement st = conn.prepareStatement(insert)) {
                    st.setString(1, value.toString());
                    st.setLong(2, leaseId);
                    st.executeUpdate();
                    inserted++;
                } catch (SQLException e) {
                    if ("23505".equals(e.getSQLState())) {
                        say("duplicate " + value + " of lease " + leaseId + ": " + e.getMessage());
                        return 3;
                    }
                    String state = e.getSQLState();
                    if (state == null || !state.startsWith("42")) {
                        // The server went away (restart, failover), is read-only, or the insert
                        // waited past statement_timeout: that ID may or may not be stored; the
                        // next one is new either way.
                        try {
                            conn.close();
                        } catch (SQLException ignored) {
                            // gone
                        }
                        conn = connect(args.get("dsn"), deadline);
                        continue;
                    }
                    throw e;
                }
            }
            say("inserted " + inserted);
            conn.close();
            return 0;
        } catch (Exception e) {
            say("failed: " + e);
            return 1;
        }
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new java.util.HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        for (String required : List.of("dsn", "format", "holder", "ttl-ms", "table", "seconds")) {
            if (!args.containsKey(required)) {
                say("lease-writer: --" + required + " is required");
                System.exit(2);
            }
        }
        if (!SQL_TYPE.containsKey(args.get("format")) || !"0".equals(args.getOrDefault("fork", "0"))) {
            say("lease-writer: --format is one of sno, siq, kuid96, snowflake; --fork 0 only (a JVM does not fork)");
            System.exit(2);
        }
        long deadline = System.nanoTime() + (long) (Double.parseDouble(args.get("seconds")) * 1e9);
        LeaseWriter writer = new LeaseWriter(args, deadline);
        int code = 1;
        try {
            writer.generator = writer.take();
            int threads = Integer.parseInt(args.getOrDefault("threads", "1"));
            int[] codes = new int[threads];
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int n = t;
                Thread worker = new Thread(() -> codes[n] = writer.write(), "writer-" + t);
                workers.add(worker);
                worker.start();
            }
            code = 0;
            for (int t = 0; t < threads; t++) {
                workers.get(t).join();
                code = Math.max(code, codes[t]);
            }
            LeasedGenerator<?> gen = writer.current();
            if (gen != null) {
                try {
                    gen.release();
                } catch (SQLException e) {
                    say("release of lease " + gen.lease().leaseId() + " failed: " + e.getMessage());
                }
            }
        } catch (Exception e) {
            say("failed: " + e);
            code = 1;
        }
        System.out.flush();
        System.exit(code);
    }
}
