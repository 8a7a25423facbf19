package io.github.pgflake;

import java.time.Instant;

/** Instants and microseconds since 1970-01-01 UTC, the unit every format's time is read in. */
public final class Times {
    private Times() {
    }

    /**
     * Microseconds since 1970-01-01 UTC of {@code time}, rounded down; {@link Long#MIN_VALUE} or
     * {@link Long#MAX_VALUE} beyond a long's range (which every format then refuses as out of range).
     */
    public static long unixMicros(Instant time) {
        long seconds = time.getEpochSecond();
        if (seconds > Long.MAX_VALUE / 1_000_000 - 1) {
            return Long.MAX_VALUE;
        }
        if (seconds < Long.MIN_VALUE / 1_000_000 + 1) {
            return Long.MIN_VALUE;
        }
        return seconds * 1_000_000 + time.getNano() / 1000;
    }

    /** The instant {@code unixMicros} microseconds after 1970-01-01 UTC. */
    public static Instant instant(long unixMicros) {
        return Instant.ofEpochSecond(Math.floorDiv(unixMicros, 1_000_000L),
            Math.floorMod(unixMicros, 1_000_000L) * 1000L);
    }
}
