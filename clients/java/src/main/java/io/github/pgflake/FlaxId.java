package io.github.pgflake;

import java.time.Instant;

/**
 * A value of the SQL type {@code flaxid} (python-flax-id 1.1.0): 96 bits = 40 bits of
 * milliseconds since 2015-01-01 and 56 random bits. Text: 16 characters over {@code -0-9A-Z_a-z}
 * (docs/sql-reference.md "flaxid"; the Rust reference is core/src/formats/flaxid.rs).
 */
public final class FlaxId extends FlakeId<FlaxId> {
    private static final long serialVersionUID = 1L;

    public static final String TYPE_NAME = "flaxid";
    public static final int LENGTH = 12;
    /** 2015-01-01T00:00:00Z in milliseconds since 1970. */
    public static final long EPOCH_MILLIS = 1_420_070_400_000L;
    public static final long MAX_MILLIS = (1L << 40) - 1;
    public static final long MAX_RANDOM = (1L << 56) - 1;
    public static final String TIME_RANGE = "2015-01-01 00:00:00+00 to 2049-11-03 19:53:47.775+00";

    private static final Alphabet FLAX64 =
        new Alphabet("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz");
    private static final String EXPECTED_TEXT = "16 characters from '-', 0-9, A-Z, '_' and a-z";

    private FlaxId(byte[] raw) {
        super(raw);
    }

    /** The type's text input (22P02 unless 16 characters of the alphabet). */
    public static FlaxId parse(String text) {
        byte[] raw = FLAX64.decode(text, LENGTH, 16);
        if (raw == null) {
            throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_TEXT);
        }
        return new FlaxId(raw);
    }

    /** The value of its 12 stored bytes (22P03 for another length). */
    public static FlaxId fromBytes(byte[] data) {
        return new FlaxId(exactly(data, LENGTH, TYPE_NAME));
    }

    /** {@code flaxid_from_parts}: the time rounds down to the millisecond; random 0 … 2^56 − 1. */
    public static FlaxId fromParts(Instant time, long random) {
        long micros = Times.unixMicros(time);
        long millis = Math.floorDiv(micros, 1000L) - EPOCH_MILLIS;
        if (micros == Long.MIN_VALUE || micros == Long.MAX_VALUE || millis < 0 || millis > MAX_MILLIS) {
            throw FlakeException.timeOutOfRange(TYPE_NAME, TIME_RANGE);
        }
        FlakeException.field(TYPE_NAME, "random", random, 0, MAX_RANDOM);
        byte[] raw = new byte[LENGTH];
        Bytes.put(raw, 0, 5, millis);
        Bytes.put(raw, 5, 7, random);
        return new FlaxId(raw);
    }

    /** {@code flaxid_from_time}: the smallest flaxid at that instant (random 0). */
    public static FlaxId fromTime(Instant time) {
        return fromParts(time, 0);
    }

    @Override
    public String typeName() {
        return TYPE_NAME;
    }

    @Override
    public String toString() {
        return FLAX64.encode(raw, 16);
    }

    /** Milliseconds since 2015-01-01. */
    public long millis() {
        return uint(0, 5);
    }

    @Override
    public long unixMicros() {
        return (EPOCH_MILLIS + millis()) * 1000;
    }

    public long random() {
        return uint(5, 7);
    }
}
