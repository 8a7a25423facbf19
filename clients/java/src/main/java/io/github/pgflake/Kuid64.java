package io.github.pgflake;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The k-ordered uid's 64-bit form (fogfish/uid 1.3.5): Erlang's timestamp triple (megaseconds,
 * seconds, microseconds of which only {@code C >> 10} is kept, so the unit is 1024 µs) and a
 * 14-bit sequence, as a non-negative {@code bigint}. No SQL type of its own: values are
 * {@code long}s and this class has the functions (docs/sql-reference.md "k-ordered uid"; the Rust
 * reference is core/src/formats/kuid.rs). A value with the top bit set is no positive {@code bigint}
 * and is refused (22003), so a {@code long} holds every value exactly.
 */
public final class Kuid64 {
    public static final int MAX_SEQ = (1 << 14) - 1;
    public static final String TIME_RANGE = "1970-01-01 00:00:00+00 to 18584-01-10 03:33:19.999999+00";
    public static final String VALUE_RANGE = "0 to 9223372036854775807";
    private static final String TYPE_NAME = "kuid64";

    static final Alphabet KUID64 =
        new Alphabet(".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz");
    private static final String EXPECTED_TEXT =
        "11 characters from '.', 0-9, A-Z, '_' and a-z whose last two padding bits are zero";

    private Kuid64() {
    }

    /** What {@code kuid64_parts} returns; {@code microseconds} is {@code (C >> 10) << 10}. */
    public record Parts(long unixMicros, long megaseconds, long seconds, long microseconds, int seq) {
        public Instant time() {
            return Times.instant(unixMicros);
        }
    }

    /** {@code kuid64_encode}: the 11-character text. */
    public static String encode(long value) {
        return KUID64.encode(Snowflake.toBytes(nonNegative(value)), 11);
    }

    /** {@code kuid64_decode}: strict; a value with the top bit set is no positive bigint (22003). */
    public static long decode(String text) {
        byte[] raw = KUID64.decode(text, 8, 11);
        if (raw == null) {
            throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_TEXT);
        }
        long value = Bytes.uint(raw, 0, 8);
        if (value < 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, text, VALUE_RANGE);
        }
        return value;
    }

    /** {@code kuid64_parts}: the time (start of its 1024 µs unit) and every field. */
    public static Parts parts(long value) {
        nonNegative(value);
        long megaseconds = value >>> 44;
        long seconds = value >>> 24 & 0xF_FFFF;
        long units = value >>> 14 & 0x3FF;
        return new Parts(micros(megaseconds, seconds, units), megaseconds, seconds, units << 10,
            (int) (value & MAX_SEQ));
    }

    /** {@code kuid64_from_parts}: seq 0–16383; the time rounds down to its 1024 µs unit. */
    public static long fromParts(Instant time, int seq) {
        return localBits(Times.unixMicros(time), seq, TYPE_NAME, 1L << 19, TIME_RANGE);
    }

    /** {@code kuid64_from_time}: the smallest kuid64 at that instant. */
    public static long fromTime(Instant time) {
        return fromParts(time, 0);
    }

    /** The 8 big-endian bytes. */
    public static byte[] toBytes(long value) {
        return Snowflake.toBytes(nonNegative(value));
    }

    /**
     * {@code kuid_node_fingerprint}: the ELF hash the reference gets from Erlang's {@code phash2}
     * of the node atom, over the name's Latin-1 bytes (a character above U+00FF counts as its
     * UTF-8 bytes, as in the extension). Returned as a non-negative {@code long} (32 bits).
     */
    public static long nodeFingerprint(String name) {
        long h = 0;
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            i += Character.charCount(cp);
            byte[] bytes = cp < 256 ? new byte[] {(byte) cp}
                : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
            for (byte b : bytes) {
                h = ((h << 4) + (b & 0xff)) & 0xFFFF_FFFFL;
                long g = h & 0xF000_0000L;
                if (g != 0) {
                    h ^= g >>> 24;
                    h ^= g;
                }
            }
        }
        return h;
    }

    /** The kuid64 layout of a time (rounded down to its 1024 µs unit) and seq. */
    static long localBits(long micros, int seq, String typeName, long megasecondsLimit, String range) {
        if (micros < 0 || micros == Long.MAX_VALUE || micros / 1_000_000 / 1_000_000 >= megasecondsLimit) {
            throw FlakeException.timeOutOfRange(typeName, range);
        }
        FlakeException.field(typeName, "seq", seq, 0, MAX_SEQ);
        long seconds = micros / 1_000_000;
        long units = (micros % 1_000_000) >> 10;
        return seconds / 1_000_000 << 44 | seconds % 1_000_000 << 24 | units << 14 | seq;
    }

    static long micros(long megaseconds, long seconds, long units) {
        return (megaseconds * 1_000_000 + seconds) * 1_000_000 + (units << 10);
    }

    static long nonNegative(long value) {
        if (value < 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, Long.toString(value), VALUE_RANGE);
        }
        return value;
    }
}
