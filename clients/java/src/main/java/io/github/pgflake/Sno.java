package io.github.pgflake;

import java.time.Instant;

/**
 * A value of the SQL type {@code sno} (muyo/sno v1.2.1): 80 bits = 39 bits of 4 ms units since
 * 2010-01-01 and a tick-tock bit, a metabyte, a 16-bit partition and a 16-bit sequence. Text: 16
 * characters over {@code 23456789abcdefghijklmnopqrstuvwx} (docs/sql-reference.md "sno"; the Rust
 * reference is core/src/formats/sno.rs).
 */
public final class Sno extends FlakeId<Sno> {
    private static final long serialVersionUID = 1L;

    public static final String TYPE_NAME = "sno";
    public static final int LENGTH = 10;
    /** 2010-01-01T00:00:00Z in microseconds since 1970. */
    public static final long EPOCH_MICROS = 1_262_304_000_000_000L;
    public static final long UNIT_MICROS = 4_000;
    public static final long MAX_UNITS = (1L << 39) - 1;
    public static final String TIME_RANGE = "2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00";

    private static final Alphabet SNO32 = new Alphabet("23456789abcdefghijklmnopqrstuvwx");
    private static final String EXPECTED_TEXT = "16 characters from 2-9 and a-x";

    private Sno(byte[] raw) {
        super(raw);
    }

    /** The type's text input: exactly 16 characters of the alphabet (22P02 otherwise). */
    public static Sno parse(String text) {
        byte[] raw = SNO32.decode(text, LENGTH, 16);
        if (raw == null) {
            throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_TEXT);
        }
        return new Sno(raw);
    }

    /** The value of its stored bytes (the binary wire format); strict like {@code bytea::sno}. */
    public static Sno fromBytes(byte[] data) {
        return new Sno(exactly(data, LENGTH, TYPE_NAME));
    }

    /** {@code sno_from_parts}: every field range-checked; the time rounds down to its 4 ms unit. */
    public static Sno fromParts(Instant time, int meta, int partition, int sequence, boolean tickTock) {
        return fromUnits(unitsAt(Times.unixMicros(time)), tickTock, meta, partition, sequence);
    }

    /** {@code sno_from_parts} with the tick-tock bit clear. */
    public static Sno fromParts(Instant time, int meta, int partition, int sequence) {
        return fromParts(time, meta, partition, sequence, false);
    }

    /** {@code sno_from_time}: the smallest sno at that instant. */
    public static Sno fromTime(Instant time) {
        return fromParts(time, 0, 0, 0, false);
    }

    /** The sno of 4 ms unit {@code units} since 2010 and the other fields, each range-checked. */
    public static Sno fromUnits(long units, boolean tickTock, int meta, int partition, int sequence) {
        if (units < 0 || units > MAX_UNITS) {
            throw FlakeException.timeOutOfRange(TYPE_NAME, TIME_RANGE);
        }
        FlakeException.field(TYPE_NAME, "meta", meta, 0, 255);
        FlakeException.field(TYPE_NAME, "partition", partition, 0, 65535);
        FlakeException.field(TYPE_NAME, "sequence", sequence, 0, 65535);
        byte[] raw = new byte[LENGTH];
        Bytes.put(raw, 0, 5, units << 1 | (tickTock ? 1 : 0));
        raw[5] = (byte) meta;
        Bytes.put(raw, 6, 2, partition);
        Bytes.put(raw, 8, 2, sequence);
        return new Sno(raw);
    }

    /** The 4 ms unit since 2010 that contains {@code unixMicros}, or the extension's 22008. */
    public static long unitsAt(long unixMicros) {
        long since = unixMicros - EPOCH_MICROS;
        if (unixMicros < EPOCH_MICROS || since / UNIT_MICROS > MAX_UNITS) {
            throw FlakeException.timeOutOfRange(TYPE_NAME, TIME_RANGE);
        }
        return since / UNIT_MICROS;
    }

    @Override
    public String typeName() {
        return TYPE_NAME;
    }

    @Override
    public String toString() {
        return SNO32.encode(raw, 16);
    }

    /** 4 ms units since 2010-01-01. */
    public long units() {
        return uint(0, 5) >>> 1;
    }

    @Override
    public long unixMicros() {
        return EPOCH_MICROS + units() * UNIT_MICROS;
    }

    public boolean tickTock() {
        return (raw[4] & 1) != 0;
    }

    public int meta() {
        return u8(5);
    }

    public int partition() {
        return (int) uint(6, 2);
    }

    public int sequence() {
        return (int) uint(8, 2);
    }
}
