package io.github.pgflake.lease;

import io.github.pgflake.Times;
import java.time.Instant;

/**
 * A row of {@code pg_flake_lease} / {@code pg_flake_renew} (docs/sql-reference.md "Leases"):
 * a unit (node, process) and a window {@code [notBefore, expires)}; times in microseconds
 * since 1970-01-01 UTC. {@code serverTime} is the database's clock just before it answered.
 * {@code epochMs} is set for snowflake, {@code kuidInterval} for kuid96, null otherwise.
 */
public record Lease(long leaseId, String format, long node, int process, long notBeforeMicros,
        long expiresMicros, long serverTimeMicros, Long epochMs, Integer kuidInterval) {
    public Instant notBefore() {
        return Times.instant(notBeforeMicros);
    }

    public Instant expires() {
        return Times.instant(expiresMicros);
    }

    public Instant serverTime() {
        return Times.instant(serverTimeMicros);
    }
}
