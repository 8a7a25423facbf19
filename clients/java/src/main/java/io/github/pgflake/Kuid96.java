package io.github.pgflake;

import java.time.Instant;

/**
 * A value of the SQL type {@code kuid96}: a kuid64 ({@link Kuid64}) with a 32-bit node carried
 * inside its seconds field at a place given by the neighbourhood interval I (5–10, not stored
 * in the value; the extension's default is 8). Text: 16 characters over {@code .0-9A-Z_a-z}
 * (docs/sql-reference.md "k-ordered uid"; the Rust reference is core/src/formats/kuid.rs).
 *
 * <p>Where the node sits depends on the interval: {@link #time()}, {@link #unixMicros()} and
 * {@link #node()} read it with the default interval 8, {@link #parts(int)} with any other.
 */
public final class Kuid96 extends FlakeId<Kuid96> {
    private static final long serialVersionUID = 1L;

    public static final String TYPE_NAME = "kuid96";
    public static final int LENGTH = 12;
    public static final int DEFAULT_INTERVAL = 8;
    public static final String TIME_RANGE = "1970-01-01 00:00:00+00 to 35198-01-19 07:06:39.999999+00";
    private static final String EXPECTED_TEXT = "16 characters from '.', 0-9, A-Z, '_' and a-z";

    private Kuid96(byte[] raw) {
        super(raw);
    }

    /** What {@code kuid96_parts(id, interval)} returns. */
    public record Parts(long unixMicros, long node, int seq) {
        public Instant time() {
            return Times.instant(unixMicros);
        }
    }

    /** The type's text input (22P02 unless 16 characters of the alphabet). */
    public static Kuid96 parse(String text) {
        byte[] raw = Kuid64.KUID64.decode(text, LENGTH, 16);
        if (raw == null) {
            throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_TEXT);
        }
        return new Kuid96(raw);
    }

    /** The value of its 12 stored bytes (22P03 for another length). */
    public static Kuid96 fromBytes(byte[] data) {
        return new Kuid96(exactly(data, LENGTH, TYPE_NAME));
    }

    /** {@code kuid96_from_parts}: node 0 … 2^32 − 1, seq 0–16383, interval 5–10. */
    public static Kuid96 fromParts(Instant time, long node, int seq, int interval) {
        return fromMicros(Times.unixMicros(time), node, seq, interval);
    }

    /** {@code kuid96_from_parts} with the default interval 8. */
    public static Kuid96 fromParts(Instant time, long node, int seq) {
        return fromParts(time, node, seq, DEFAULT_INTERVAL);
    }

    /** {@code kuid96_from_parts} of a time in microseconds since 1970. */
    public static Kuid96 fromMicros(long unixMicros, long node, int seq, int interval) {
        FlakeException.field(TYPE_NAME, "node", node, 0, 0xFFFF_FFFFL);
        checkInterval(interval);
        long local = Kuid64.localBits(unixMicros, seq, TYPE_NAME, 1L << 20, TIME_RANGE);
        return insertNode(local, node, interval);
    }

    /** {@code kuid96_from_time}: the smallest kuid96 at that instant (node 0, seq 0). */
    public static Kuid96 fromTime(Instant time, int interval) {
        return fromParts(time, 0, 0, interval);
    }

    /** {@code kuid96_from_time} with the default interval 8. */
    public static Kuid96 fromTime(Instant time) {
        return fromTime(time, DEFAULT_INTERVAL);
    }

    /** {@code kuid96_globalize}: a kuid64 with a node added. */
    public static Kuid96 globalize(long kuid64, long node, int interval) {
        FlakeException.field(TYPE_NAME, "node", node, 0, 0xFFFF_FFFFL);
        checkInterval(interval);
        return insertNode(Kuid64.nonNegative(kuid64), node, interval);
    }

    /** {@code kuid96_localize}: the kuid64 without its node (22008 beyond kuid64's time range). */
    public long localize(int interval) {
        long local = local(checkInterval(interval));
        if (local < 0) {
            throw FlakeException.timeOutOfRange("kuid64", Kuid64.TIME_RANGE);
        }
        return local;
    }

    /** {@code kuid96_parts(id, interval)}: time, node and seq read with that interval. */
    public Parts parts(int interval) {
        long local = local(checkInterval(interval));
        long megaseconds = local >>> 44;
        long seconds = local >>> 24 & 0xF_FFFF;
        long units = local >>> 14 & 0x3FF;
        return new Parts(Kuid64.micros(megaseconds, seconds, units), node(interval), (int) (local & Kuid64.MAX_SEQ));
    }

    /** {@code kuid96_parts} with the default interval 8. */
    public Parts parts() {
        return parts(DEFAULT_INTERVAL);
    }

    /** The node fingerprint read with {@code interval}. */
    public long node(int interval) {
        return shiftRight(checkInterval(interval) + 24) & 0xFFFF_FFFFL;
    }

    /** The node fingerprint, read with the default interval 8. */
    public long node() {
        return node(DEFAULT_INTERVAL);
    }

    /** The sequence (the low 14 bits, whatever the interval). */
    public int seq() {
        return (int) (uint(10, 2) & Kuid64.MAX_SEQ);
    }

    @Override
    public long unixMicros() {
        return parts().unixMicros();
    }

    @Override
    public String typeName() {
        return TYPE_NAME;
    }

    @Override
    public String toString() {
        return Kuid64.KUID64.encode(raw, 16);
    }

    /** An interval argument (22023 outside 5–10). */
    public static int checkInterval(int interval) {
        if (interval < 5 || interval > 10) {
            throw FlakeException.invalidParameter("kuid interval " + interval + " is outside 5 to 10");
        }
        return interval;
    }

    /** The 96-bit value {@code local}'s bits above {@code 24 + I} moved up by 32, the node in the gap. */
    private static Kuid96 insertNode(long local, long node, int interval) {
        int low = 24 + interval;
        int shift = low + 32;
        long top = local >>> low;
        long lo = (local & ((1L << low) - 1)) | node << low;
        long hi = low > 32 ? node >>> (64 - low) : 0;
        if (shift < 64) {
            lo |= top << shift;
            hi |= top >>> (64 - shift);
        } else {
            hi |= top << (shift - 64);
        }
        byte[] raw = new byte[LENGTH];
        Bytes.put(raw, 0, 4, hi);
        Bytes.put(raw, 4, 8, lo);
        return new Kuid96(raw);
    }

    /** The kuid64 layout without the node: the bits above the node moved down by 32. */
    private long local(int interval) {
        int low = 24 + interval;
        return shiftRight(low + 32) << low | uint(4, 8) & ((1L << low) - 1);
    }

    /** The low 64 bits of the 96-bit value shifted right by {@code n} (0 < n < 96). */
    private long shiftRight(int n) {
        long hi = uint(0, 4);
        long lo = uint(4, 8);
        return n < 64 ? lo >>> n | hi << (64 - n) : hi >>> (n - 64);
    }
}
