package io.github.pgflake.tools;

import io.github.pgflake.lease.JdbcLeases;
import io.github.pgflake.lease.LeaseOptions;
import io.github.pgflake.lease.LeasedGenerator;
import io.github.pgflake.testing.Db;
import java.sql.Connection;
import java.time.Duration;

/**
 * How many IDs one leased generator makes per second, without inserting them: the Java holder
 * of {@code make bench} (scripts/benchlib/measure_holders.py; core/examples/lease_bench.rs is the
 * Rust reference, with the same command line and output).
 *
 * <pre>
 * lease-rate.sh --dsn DSN --format sno|snowflake|kuid96|siq --seconds S [--threads N]
 * </pre>
 *
 * Takes a lease (TTL 30 s), runs a warm-up second (the JIT), then calls {@code generate} for S
 * seconds from N threads sharing the generator (1 by default), releases the lease, and prints
 * {@code {"ids": N, "seconds": S}}.
 */
public final class LeaseRate {
    private LeaseRate() {
    }

    static long spin(LeasedGenerator<?> gen, long end) throws Exception {
        long ids = 0;
        Object last = null;
        // The clock is read once per 1024 IDs, so that the loop measures the generator.
        while (ids % 1024 != 0 || System.nanoTime() < end) {
            last = gen.generate();
            ids++;
        }
        if (last == null) {
            throw new IllegalStateException("no ID");
        }
        return ids;
    }

    public static void main(String[] argv) throws Exception {
        java.util.Map<String, String> args = new java.util.HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        double seconds = Double.parseDouble(args.get("seconds"));
        int threads = Integer.parseInt(args.getOrDefault("threads", "1"));
        try (Connection conn = Db.connectTo(args.get("dsn"))) {
            LeasedGenerator<?> gen = LeasedGenerator.take(new JdbcLeases(conn), args.get("format"), "lease_rate",
                Duration.ofSeconds(30), LeaseOptions.DEFAULT);
            spin(gen, System.nanoTime() + 1_000_000_000L); // warm-up
            long[] counts = new long[threads];
            Thread[] workers = new Thread[threads];
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            for (int t = 0; t < threads; t++) {
                int n = t;
                workers[t] = new Thread(() -> {
                    try {
                        counts[n] = spin(gen, end);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                workers[t].start();
            }
            long ids = 0;
            for (int t = 0; t < threads; t++) {
                workers[t].join();
                ids += counts[t];
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            gen.release();
            System.out.printf("{\"ids\": %d, \"seconds\": %.3f}%n", ids, elapsed);
        }
    }
}
