package io.github.pgflake.lease;

import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where a generator's renewals run: by default a daemon thread of its own, so that a renewal's
 * round trip (or a stuck connection) never delays another generator's, and no ID waits for one.
 * Tests use a scripted one.
 */
public interface Renewals {
    /** Runs {@code task} once, {@code delayNanos} from now on the monotonic clock. */
    Future<?> schedule(Runnable task, long delayNanos);

    /** No more tasks: called when the generator is released. */
    void shutdown();

    /** A single daemon thread named after the lease. */
    static Renewals thread(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return new Renewals() {
            @Override
            public Future<?> schedule(Runnable task, long delayNanos) {
                return executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            }

            @Override
            public void shutdown() {
                executor.shutdown();
            }
        };
    }
}
