package io.github.pgflake.lease;

import io.github.pgflake.testing.Check;
import io.github.pgflake.testing.Db;
import io.github.pgflake.testing.ServerTest;
import io.github.pgflake.testing.Test;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Java holder processes (LeaseWriter) under faults, against PG_FLAKE_TEST_DSN, as
 * tests/servers/test_lease_load.py does with the Rust and Python ones: one killed with SIGKILL
 * and replaced, one paused with SIGSTOP past its lease's expiry (it must take a new lease rather
 * than go on), one with its machine's clock 10 s ahead and one 10 s behind (libfaketime), a 1 s
 * TTL so that renewals happen all the time. Every insert succeeds (no duplicate key) and every ID
 * carries its lease's node and process and a time inside its lease's window.
 */
@ServerTest(perVersion = false)
public class WriterFaultsTest {
    static final String FAKETIME_LIB = System.getenv().getOrDefault("FAKETIME_LIB",
        "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    static final Map<String, String> SQL_TYPE =
        Map.of("sno", "sno", "siq", "siq", "kuid96", "kuid96", "snowflake", "bigint");
    /** The lease node, process and time (µs) of a table's id. */
    static final Map<String, String> COLUMNS = Map.of(
        "sno", "sno_partition(id) >> 8, sno_partition(id) & 255, sno_timestamp(id)",
        "siq", "siq_domain_hash(id) >> 24, siq_shard(id), siq_timestamp(id)",
        "snowflake", "(snowflake_parts(id)).worker, (snowflake_parts(id)).process, snowflake_timestamp(id)",
        "kuid96", "kuid96_node(id), 0, kuid96_timestamp(id)");

    static Process writer(String format, String name, double seconds, Path out, String faketime) throws Exception {
        String home = System.getProperty("user.dir");
        List<String> command = new ArrayList<>(List.of(home + "/lease-writer.sh", "--dsn", Db.dsn(), "--format", format,
            "--holder", name, "--ttl-ms", "1000", "--table", "java_faults_" + format, "--seconds",
            String.valueOf(seconds), "--threads", "2"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.resolve(name + ".out").toFile())
            .redirectError(out.resolve(name + ".err").toFile());
        if (faketime != null) {
            builder.environment().put("LD_PRELOAD", FAKETIME_LIB);
            builder.environment().put("FAKETIME", faketime);
            // The monotonic clock moves with the wall clock: with FAKETIME_DONT_FAKE_MONOTONIC,
            // libfaketime 0.9.10 breaks the JVM's timed waits (LockSupport.parkNanos returns at
            // once, Thread.sleep overshoots), as it breaks Python's time.sleep
            // (tests/servers/nemesis/holders.py).
        }
        return builder.start();
    }

    static void signal(Process p, String sig) throws Exception {
        new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid())).inheritIO().start().waitFor();
        for (ProcessHandle child : p.descendants().toList()) {
            new ProcessBuilder("kill", "-" + sig, String.valueOf(child.pid())).inheritIO().start().waitFor();
        }
    }

    /** Waits until the holder took a lease and had a second to write. */
    static void waitForWriting(Path out, String name) throws Exception {
        Path lines = out.resolve(name + ".out");
        long end = System.nanoTime() + 60_000_000_000L;
        while ((!Files.exists(lines) || Files.size(lines) == 0) && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        Thread.sleep(1000);
    }

    @Test
    public void holdersKilledPausedAndWithWrongClocksNeverCollide() throws Exception {
        try (Connection conn = LeaseServerTest.connect()) {
            for (String format : SQL_TYPE.keySet()) {
                Db.execute(conn, "DROP TABLE IF EXISTS java_faults_" + format,
                    "CREATE TABLE java_faults_" + format + " (id " + SQL_TYPE.get(format) + " PRIMARY KEY, lease_id bigint NOT NULL)");
            }
            // kuid96 has few lease units (no process field): the leases earlier tests of
            // this run left held must end first, or a holder here waits its whole run.
            long until = System.nanoTime() + 60_000_000_000L;
            while (!Db.queryString(conn, "SELECT count(*) FROM pg_flake_leases WHERE state = 'held'").equals("0")
                    && System.nanoTime() < until) {
                Thread.sleep(500);
            }
            Path out = Files.createTempDirectory("pg-flake-java-faults");
            boolean faketime = new File(FAKETIME_LIB).isFile();
            List<Process> clean = new ArrayList<>();
            Process killed = writer("sno", "killed", 10, out, null);
            Process paused = writer("snowflake", "paused", 10, out, null);
            clean.add(paused);
            clean.add(writer("kuid96", "ahead", 8, out, faketime ? "+10s" : null));
            clean.add(writer("siq", "behind", 8, out, faketime ? "-10s" : null));
            // Under load a JVM may take seconds to start: fault each holder once it is writing.
            waitForWriting(out, "killed");
            waitForWriting(out, "paused");
            signal(paused, "STOP");
            killed.destroyForcibly(); // SIGKILL: the JVM, not the script (exec'd)
            killed.waitFor();
            clean.add(writer("sno", "replacement", 5, out, null));
            Thread.sleep(2500); // past the paused holder's 1 s lease
            signal(paused, "CONT");
            for (Process p : clean) {
                p.waitFor();
            }
            for (String name : List.of("paused", "ahead", "behind", "replacement")) {
                String err = Files.readString(out.resolve(name + ".err"));
                Check.that(!err.contains("duplicate") && !err.contains("failed"), name + ": " + err);
                Check.that(err.contains("inserted"), name + " ran to its end: " + err);
            }
            for (Process p : clean) {
                Check.equal(0, p.exitValue(), "exit code");
            }
            Check.that(Files.readString(out.resolve("paused.err")).contains("expired"),
                "the paused holder took a new lease");
            for (String format : SQL_TYPE.keySet()) {
                String table = "java_faults_" + format;
                String counts = Db.queryString(conn, "SELECT count(*) || ' ' || count(*) FILTER (WHERE l.lease_id IS NULL"
                    + " OR NOT (t >= l.not_before AND t < l.expires AND n = l.node AND pr = l.process))"
                    + " FROM (SELECT lease_id, " + COLUMNS.get(format) + " FROM " + table + ") x (lease_id, n, pr, t)"
                    + " LEFT JOIN pg_flake_leases l USING (lease_id)");
                String[] c = counts.split(" ");
                Check.that(Long.parseLong(c[0]) > 100, format + " rows: " + c[0]);
                Check.equal("0", c[1], format + " IDs outside their lease's unit or window");
                Db.execute(conn, "DROP TABLE " + table);
            }
        }
    }
}
