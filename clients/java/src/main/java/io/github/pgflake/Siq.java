package io.github.pgflake;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.zip.CRC32;

/**
 * A value of the SQL type {@code siq} (SUOU {@code suou.iding} 0.14.0): 112 bits = 56-bit ticks
 * of 1/65536 s since 1970 (40 bits of seconds, 16 of fraction), an 8-bit shard, a 32-bit domain
 * hash and 16 bits holding a kind suffix and a serial. Text: the reference's 29-character DID
 * body with a CRC-32; input also takes the {@code did:siq:} prefix and upper case
 * (docs/sql-reference.md "siq"; the Rust reference is core/src/formats/siq.rs).
 */
public final class Siq extends FlakeId<Siq> {
    private static final long serialVersionUID = 1L;

    public static final String TYPE_NAME = "siq";
    public static final int LENGTH = 14;
    public static final long TICKS_PER_SECOND = 65_536;
    public static final long MAX_TICKS = (1L << 56) - 1;
    public static final String TIME_RANGE = "1970-01-01 00:00:00+00 to 36812-02-20 00:36:15.999999+00";
    public static final String VALUE_RANGE = "0 to 5192296858534827628530496329220095";
    public static final String DID_PREFIX = "did:siq:";
    private static final BigInteger MAX_VALUE = BigInteger.ONE.shiftLeft(112).subtract(BigInteger.ONE);
    private static final String EXPECTED_TEXT =
        "29 base32 characters (a-z, 2-7) with a valid checksum, optionally prefixed by \"did:siq:\"";
    private static final String BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

    private Siq(byte[] raw) {
        super(raw);
    }

    /** The type's text input: the 29-character body, optionally {@code did:siq:}, any case, checksum checked. */
    public static Siq parse(String text) {
        String body = text.regionMatches(true, 0, DID_PREFIX, 0, DID_PREFIX.length())
            ? text.substring(DID_PREFIX.length()) : text;
        if (body.length() != 29) {
            throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_TEXT);
        }
        // 145 bits: the top one belongs to the zero prefix (whose other 15 bits the
        // reference drops), then come the CRC-32 and the 14 bytes.
        byte[] framed = new byte[18];
        for (int i = 0; i < 29; i++) {
            char c = body.charAt(i);
            int digit = c < 128 ? BASE32.indexOf(Character.toLowerCase(c)) : -1;
            if (digit < 0) {
                throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_TEXT);
            }
            for (int b = 0; b < 5; b++) {
                int bit = (digit >> (4 - b)) & 1;
                int pos = i * 5 + b - 1; // bit 0 of the 145 is the prefix's
                if (pos < 0) {
                    if (bit != 0) {
                        throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_TEXT);
                    }
                } else {
                    framed[pos >> 3] |= (byte) (bit << (7 - (pos & 7)));
                }
            }
        }
        byte[] raw = java.util.Arrays.copyOfRange(framed, 4, 18);
        if (crc32(raw) != Bytes.uint(framed, 0, 4)) {
            throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_TEXT);
        }
        return new Siq(raw);
    }

    /** The value of its 14 stored bytes (22P03 for another length). */
    public static Siq fromBytes(byte[] data) {
        return new Siq(exactly(data, LENGTH, TYPE_NAME));
    }

    /** {@code siq_from_parts(ticks bigint, …)}: every field range-checked. */
    public static Siq fromPartsTicks(long ticks, int shard, long domainHash, SiqKind kind, int serial) {
        FlakeException.field(TYPE_NAME, "serial", serial, 0, kind.maxSerial());
        FlakeException.field(TYPE_NAME, "ticks", ticks, 0, MAX_TICKS);
        FlakeException.field(TYPE_NAME, "shard", shard, 0, 255);
        FlakeException.field(TYPE_NAME, "domain_hash", domainHash, 0, 0xFFFF_FFFFL);
        byte[] raw = new byte[LENGTH];
        Bytes.put(raw, 0, 7, ticks);
        raw[7] = (byte) shard;
        Bytes.put(raw, 8, 4, domainHash);
        Bytes.put(raw, 12, 2, (long) serial << kind.width() | kind.suffix());
        return new Siq(raw);
    }

    /** {@code siq_from_parts(time timestamptz, …)}: the time rounds down to its tick. */
    public static Siq fromParts(Instant time, int shard, long domainHash, SiqKind kind, int serial) {
        return fromPartsTicks(ticksAt(Times.unixMicros(time)), shard, domainHash, kind, serial);
    }

    /** {@code siq_from_time}: the smallest siq at that instant (every other field zero). */
    public static Siq fromTime(Instant time) {
        byte[] raw = new byte[LENGTH];
        Bytes.put(raw, 0, 7, ticksAt(Times.unixMicros(time)));
        return new Siq(raw);
    }

    /** {@code numeric::siq}: the 112-bit integer (22003 outside 0 … 2^112 − 1). */
    public static Siq fromInteger(BigInteger value) {
        if (value.signum() < 0 || value.compareTo(MAX_VALUE) > 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, value.toString(), VALUE_RANGE);
        }
        byte[] raw = new byte[LENGTH];
        byte[] big = value.toByteArray();
        int n = Math.min(big.length, LENGTH);
        System.arraycopy(big, big.length - n, raw, LENGTH - n, n);
        return new Siq(raw);
    }

    /** {@code siq_from_hex}: 1 to 28 hexadecimal digits, any case. */
    public static Siq fromHex(String text) {
        boolean ok = text.length() >= 1 && text.length() <= 28;
        for (int i = 0; ok && i < text.length(); i++) {
            ok = text.charAt(i) < 128 && Character.digit(text.charAt(i), 16) >= 0;
        }
        if (!ok) {
            throw FlakeException.invalidText(TYPE_NAME, text, "1 to 28 hexadecimal digits");
        }
        return fromInteger(new BigInteger(text, 16));
    }

    /** The inverse of {@link #toBase64()}: 20 URL-safe characters whose first byte is zero. */
    public static Siq fromBase64(String text) {
        boolean ok = text.length() == 20;
        for (int i = 0; ok && i < 20; i++) {
            char c = text.charAt(i);
            ok = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_';
        }
        if (!ok) {
            throw FlakeException.invalidText(TYPE_NAME, text, "20 URL-safe base64 characters");
        }
        byte[] data = Base64.getUrlDecoder().decode(text);
        if (data[0] != 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, text, VALUE_RANGE);
        }
        return new Siq(java.util.Arrays.copyOfRange(data, 1, 15));
    }

    /**
     * {@code siq_domain_hash(text)}: the last 4 bytes of SHA-256 of an ASCII domain ({@code ""} and
     * {@code "0"} give 0); a non-ASCII domain is 22023.
     */
    public static long domainHash(String domain) {
        for (int i = 0; i < domain.length(); i++) {
            if (domain.charAt(i) >= 128) {
                throw FlakeException.invalidParameter("SIQ domain \"" + domain
                    + "\" is not ASCII; pass the punycode (IDNA) form of the domain");
            }
        }
        if (domain.isEmpty() || domain.equals("0")) {
            return 0;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(domain.getBytes(StandardCharsets.US_ASCII));
            return Bytes.uint(digest, 28, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** floor(µs × 65536 / 10^6), as {@code siq_from_time} (22008 outside the range). */
    public static long ticksAt(long unixMicros) {
        if (unixMicros < 0 || unixMicros == Long.MAX_VALUE) {
            throw FlakeException.timeOutOfRange(TYPE_NAME, TIME_RANGE);
        }
        long seconds = unixMicros / 1_000_000;
        long ticks = seconds * TICKS_PER_SECOND + (unixMicros % 1_000_000) * TICKS_PER_SECOND / 1_000_000;
        if (seconds > MAX_TICKS / TICKS_PER_SECOND || ticks > MAX_TICKS) {
            throw FlakeException.timeOutOfRange(TYPE_NAME, TIME_RANGE);
        }
        return ticks;
    }

    /** The start of tick {@code ticks}, rounded down to the microsecond (as {@code siq_timestamp}). */
    public static long ticksToMicros(long ticks) {
        return (ticks >> 16) * 1_000_000 + ((ticks & 0xFFFF) * 1_000_000 >> 16);
    }

    /** Ticks of 1/65536 s since 1970-01-01 UTC: the exact time. */
    public long ticks() {
        return uint(0, 7);
    }

    @Override
    public long unixMicros() {
        return ticksToMicros(ticks());
    }

    public int shard() {
        return u8(7);
    }

    public long domainHash() {
        return uint(8, 4);
    }

    public int low16() {
        return (int) uint(12, 2);
    }

    /** The kind, or null for an unassigned suffix. */
    public SiqKind kind() {
        return SiqKind.of(low16());
    }

    public int serial() {
        return low16() >> SiqKind.widthOf(low16());
    }

    /** {@code siq::numeric}: the 112-bit integer. */
    public BigInteger toInteger() {
        return new BigInteger(1, raw);
    }

    /** {@code siq_to_did}: {@code did:siq:} and the text. */
    public String toDid() {
        return DID_PREFIX + this;
    }

    /** {@code siq_to_hex}: 28 lower-case digits. */
    public String toHex() {
        return toHexBytes();
    }

    /** {@code siq_to_base64}: URL-safe base64 of a zero byte and the 14 bytes (20 characters). */
    public String toBase64() {
        byte[] data = new byte[15];
        System.arraycopy(raw, 0, data, 1, LENGTH);
        return Base64.getUrlEncoder().encodeToString(data);
    }

    @Override
    public String typeName() {
        return TYPE_NAME;
    }

    @Override
    public String toString() {
        byte[] framed = new byte[18];
        Bytes.put(framed, 0, 4, crc32(raw));
        System.arraycopy(raw, 0, framed, 4, LENGTH);
        // 144 bits in 29 characters of 5 bits: the first character holds 4.
        char[] out = new char[29];
        for (int i = 0; i < 29; i++) {
            int digit = 0;
            for (int b = 0; b < 5; b++) {
                int pos = i * 5 + b - 1;
                int bit = pos < 0 ? 0 : (framed[pos >> 3] >> (7 - (pos & 7))) & 1;
                digit = digit << 1 | bit;
            }
            out[i] = BASE32.charAt(digit);
        }
        return new String(out);
    }

    private static long crc32(byte[] data) {
        CRC32 crc = new CRC32();
        crc.update(data);
        return crc.getValue();
    }
}
