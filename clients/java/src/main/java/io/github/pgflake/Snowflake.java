package io.github.pgflake;

import java.time.Instant;

/**
 * Snowflake, Discord flavour: a non-negative {@code bigint}
 * {@code ms << 22 | worker << 17 | process << 12 | sequence} with {@code ms} the milliseconds
 * since an epoch (Discord's 2015-01-01 by default). It has no SQL type of its own, so its values
 * are plain {@code long}s and this class has the functions (docs/sql-reference.md "Snowflake"; the
 * Rust reference is core/src/formats/snowflake.rs). Every valid value is non-negative, so a {@code long}
 * holds each exactly; a negative one is refused (22003).
 */
public final class Snowflake {
    public static final long DISCORD_EPOCH_MS = 1_420_070_400_000L;
    public static final long MAX_MILLIS = (1L << 41) - 1;
    public static final String TIME_RANGE =
        "the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)";
    private static final String TYPE_NAME = "snowflake";

    private Snowflake() {
    }

    /** What {@code snowflake_parts} returns; {@code unixMicros} is the start of the millisecond. */
    public record Parts(long unixMicros, int worker, int process, int sequence) {
        public Instant time() {
            return Times.instant(unixMicros);
        }
    }

    /** An epoch argument, milliseconds since 1970 up to 9999-12-31 (22023 otherwise). */
    public static long checkEpoch(long epochMs) {
        if (epochMs < 0 || epochMs > 253_402_300_799_999L) {
            throw FlakeException.invalidParameter("snowflake epoch " + epochMs
                + " is outside 0 to 253402300799999 (milliseconds since 1970-01-01 00:00:00 UTC, up to 9999-12-31)");
        }
        return epochMs;
    }

    /** {@code snowflake_parts(value, epoch_ms)}; a negative value is no snowflake (22003). */
    public static Parts parts(long value, long epochMs) {
        checkEpoch(epochMs);
        nonNegative(value);
        return new Parts(((value >> 22) + epochMs) * 1000, (int) (value >> 17) & 31, (int) (value >> 12) & 31,
            (int) value & 4095);
    }

    /** {@code snowflake_parts} with Discord's epoch. */
    public static Parts parts(long value) {
        return parts(value, DISCORD_EPOCH_MS);
    }

    /** {@code snowflake_from_parts}: worker and process 0–31, sequence 0–4095. */
    public static long fromParts(Instant time, int worker, int process, int sequence, long epochMs) {
        long micros = Times.unixMicros(time);
        if (micros == Long.MIN_VALUE || micros == Long.MAX_VALUE) {
            throw FlakeException.timeOutOfRange(TYPE_NAME, TIME_RANGE);
        }
        return fromMillis(Math.floorDiv(micros, 1000L), worker, process, sequence, epochMs);
    }

    /** {@code snowflake_from_parts} with Discord's epoch. */
    public static long fromParts(Instant time, int worker, int process, int sequence) {
        return fromParts(time, worker, process, sequence, DISCORD_EPOCH_MS);
    }

    /** The snowflake of Unix millisecond {@code unixMillis} and the fields, each range-checked. */
    public static long fromMillis(long unixMillis, int worker, int process, int sequence, long epochMs) {
        checkEpoch(epochMs);
        FlakeException.field(TYPE_NAME, "worker", worker, 0, 31);
        FlakeException.field(TYPE_NAME, "process", process, 0, 31);
        FlakeException.field(TYPE_NAME, "sequence", sequence, 0, 4095);
        long millis = unixMillis - epochMs;
        if (millis < 0 || millis > MAX_MILLIS) {
            throw FlakeException.timeOutOfRange(TYPE_NAME, TIME_RANGE);
        }
        return millis << 22 | (long) worker << 17 | (long) process << 12 | sequence;
    }

    /** {@code snowflake_from_time}: the smallest snowflake at that instant. */
    public static long fromTime(Instant time, long epochMs) {
        return fromParts(time, 0, 0, 0, epochMs);
    }

    /** {@code snowflake_from_time} with Discord's epoch. */
    public static long fromTime(Instant time) {
        return fromTime(time, DISCORD_EPOCH_MS);
    }

    /** The canonical text: the decimal {@code bigint}. */
    public static String format(long value) {
        return Long.toString(nonNegative(value));
    }

    /**
     * A snowflake's decimal text, as {@code bigint} input reads it (white space around, a sign) and
     * non-negative: 22P02 for no integer, 22003 for one outside 0 … 2^63 − 1.
     */
    public static long parse(String text) {
        return nonNegative(BigintText.parse(text, TYPE_NAME));
    }

    /** The 8 big-endian bytes of the {@code bigint}. */
    public static byte[] toBytes(long value) {
        byte[] raw = new byte[8];
        Bytes.put(raw, 0, 8, value);
        return raw;
    }

    /** The {@code bigint} of 8 big-endian bytes (22P03 for another length, 22003 if negative). */
    public static long fromBytes(byte[] data) {
        if (data.length != 8) {
            throw FlakeException.invalidBinary(TYPE_NAME, "exactly 8", data.length);
        }
        return nonNegative(Bytes.uint(data, 0, 8));
    }

    private static long nonNegative(long value) {
        if (value < 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, Long.toString(value), "0 to 9223372036854775807");
        }
        return value;
    }
}
