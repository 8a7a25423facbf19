package io.github.pgflake.lease;

import java.util.concurrent.locks.LockSupport;

/**
 * A clock nobody sets, and a way to wait on it: {@link System#nanoTime()} (CLOCK_MONOTONIC), or
 * a scripted one in tests. The generators' time is the database's, advanced by this clock,
 * never the machine's wall clock.
 */
public interface Monotonic {
    /** Nanoseconds from an arbitrary start. */
    long nanos();

    /** Waits {@code nanos} nanoseconds (at least, unless interrupted). */
    void sleep(long nanos) throws InterruptedException;

    /** The JVM's monotonic clock. */
    Monotonic SYSTEM = new Monotonic() {
        @Override
        public long nanos() {
            return System.nanoTime();
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            long end = System.nanoTime() + nanos;
            for (long left = nanos; left > 0; left = end - System.nanoTime()) {
                LockSupport.parkNanos(left);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }
    };
}
