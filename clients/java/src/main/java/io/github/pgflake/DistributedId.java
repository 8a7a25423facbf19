package io.github.pgflake;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;

/**
 * A value of the SQL type {@code distributed_id} (Architect.Identities 2.1.1): the non-negative
 * integer {@code id = ts · 2^48 + r} with {@code ts} 45 bits of milliseconds since 1900-01-01 UTC
 * and {@code r} 48 random bits, stored in 12 bytes; valid values 0 … 10^28 − 1. Text: the plain
 * decimal integer (docs/sql-reference.md "distributed_id"; the Rust reference is
 * core/src/formats/distributed_id.rs).
 */
public final class DistributedId extends FlakeId<DistributedId> {
    private static final long serialVersionUID = 1L;

    public static final String TYPE_NAME = "distributed_id";
    public static final int LENGTH = 12;
    /** 1900-01-01T00:00:00Z in milliseconds since 1970. */
    public static final long EPOCH_UNIX_MILLIS = -2_208_988_800_000L;
    public static final long MAX_TIMESTAMP_MS = (1L << 45) - 1;
    public static final long MAX_RANDOM = (1L << 48) - 1;
    public static final BigInteger MAX_VALUE = BigInteger.TEN.pow(28).subtract(BigInteger.ONE);
    public static final String TIME_RANGE = "1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00";
    public static final String VALUE_RANGE = "0 to 9999999999999999999999999999";
    private static final String EXPECTED_DISTRIBUTED_ID =
        "16 characters of 0-9, A-Z, a-z, the last 11 at most LygHa16AHYF";

    private DistributedId(byte[] raw) {
        super(raw);
    }

    /** The type's text input: 1 to 28 decimal digits, leading zeros and C white space around allowed. */
    public static DistributedId parse(String text) {
        String digits = BigintText.trim(text);
        boolean ok = !digits.isEmpty();
        for (int i = 0; ok && i < digits.length(); i++) {
            ok = digits.charAt(i) >= '0' && digits.charAt(i) <= '9';
        }
        if (!ok) {
            throw FlakeException.invalidText(TYPE_NAME, text, "1 to 28 decimal digits");
        }
        BigInteger value = new BigInteger(digits);
        if (value.compareTo(MAX_VALUE) > 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, text, VALUE_RANGE);
        }
        return of(value, text);
    }

    /** The value of its 12 stored bytes (22P03 for another length, 22003 above 10^28 − 1). */
    public static DistributedId fromBytes(byte[] data) {
        DistributedId id = new DistributedId(exactly(data, LENGTH, TYPE_NAME));
        if (id.value().compareTo(MAX_VALUE) > 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, id.value().toString(), VALUE_RANGE);
        }
        return id;
    }

    /** {@code numeric::distributed_id} of an integer: 0 … 10^28 − 1 (22003 otherwise). */
    public static DistributedId of(BigInteger value) {
        return of(value, value.toString());
    }

    /** {@code numeric::distributed_id}: a negative, fractional or too large value is 22003. */
    public static DistributedId of(BigDecimal value) {
        BigInteger integer;
        try {
            integer = value.toBigIntegerExact();
        } catch (ArithmeticException e) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, value.toPlainString(), VALUE_RANGE);
        }
        return of(integer, value.toPlainString());
    }

    private static DistributedId of(BigInteger value, String shown) {
        if (value.signum() < 0 || value.compareTo(MAX_VALUE) > 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, shown, VALUE_RANGE);
        }
        byte[] raw = new byte[LENGTH];
        byte[] big = value.toByteArray(); // big-endian, a sign byte in front at most
        int n = Math.min(big.length, LENGTH);
        System.arraycopy(big, big.length - n, raw, LENGTH - n, n);
        return new DistributedId(raw);
    }

    /** {@code distributed_id_from_parts}: the time rounds down to the millisecond; random 0 … 2^48 − 1. */
    public static DistributedId fromParts(Instant time, long random) {
        long micros = Times.unixMicros(time);
        long ms = Math.floorDiv(micros, 1000L) - EPOCH_UNIX_MILLIS;
        if (micros == Long.MIN_VALUE || micros == Long.MAX_VALUE || ms < 0 || ms > MAX_TIMESTAMP_MS) {
            throw FlakeException.timeOutOfRange(TYPE_NAME, TIME_RANGE);
        }
        FlakeException.field(TYPE_NAME, "random", random, 0, MAX_RANDOM);
        byte[] raw = new byte[LENGTH];
        Bytes.put(raw, 0, 6, ms);
        Bytes.put(raw, 6, 6, random);
        return new DistributedId(raw);
    }

    /** {@code distributed_id_from_time}: the smallest value at that instant (random 0). */
    public static DistributedId fromTime(Instant time) {
        return fromParts(time, 0);
    }

    /** {@code distributed_id_from_hex}: exactly 26 hexadecimal digits, any case. */
    public static DistributedId fromHex(String text) {
        boolean ok = text.length() == 26;
        for (int i = 0; ok && i < 26; i++) {
            ok = Character.digit(text.charAt(i), 16) >= 0 && text.charAt(i) < 128;
        }
        if (!ok) {
            throw FlakeException.invalidText(TYPE_NAME, text, "exactly 26 hexadecimal digits");
        }
        BigInteger value = new BigInteger(text, 16);
        if (value.compareTo(MAX_VALUE) > 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, text, VALUE_RANGE);
        }
        return of(value);
    }

    /** {@code alphanumeric_decode_distributed_id}: 16 base62 characters (5 for {@code id >> 64}, 11 for the rest). */
    public static DistributedId fromAlphanumeric(String text) {
        Long high = text.length() == 16 ? Alphanumeric.digits(text, 0, 5) : null;
        Long low = high != null ? Alphanumeric.digits(text, 5, 16) : null;
        if (low == null) {
            throw FlakeException.invalidText(TYPE_NAME, text, EXPECTED_DISTRIBUTED_ID);
        }
        BigInteger value = BigInteger.valueOf(high).shiftLeft(64).or(new BigInteger(Long.toUnsignedString(low)));
        if (value.compareTo(MAX_VALUE) > 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, text,
                "0000000000000000 to agbFu5KnEQGxp4QB (0 to 9999999999999999999999999999)");
        }
        return of(value);
    }

    /** The integer ({@code distributed_id::numeric}). */
    public BigInteger value() {
        return new BigInteger(1, raw);
    }

    /** {@code id >> 48}: milliseconds since 1900-01-01 UTC. */
    public long timestampMs() {
        return uint(0, 6);
    }

    public long random() {
        return uint(6, 6);
    }

    @Override
    public long unixMicros() {
        return (timestampMs() + EPOCH_UNIX_MILLIS) * 1000;
    }

    /** {@code distributed_id_to_hex}: 26 upper-case digits (a {@code 00} byte, then the 12 bytes). */
    public String toHex() {
        return "00" + java.util.HexFormat.of().withUpperCase().formatHex(raw);
    }

    /** {@code alphanumeric_encode(distributed_id)}: 16 base62 characters. */
    public String toAlphanumeric() {
        return Alphanumeric.block(uint(0, 4), 5) + Alphanumeric.block(uint(4, 8), 11);
    }

    @Override
    public String typeName() {
        return TYPE_NAME;
    }

    @Override
    public String toString() {
        return value().toString();
    }
}
