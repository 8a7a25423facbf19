package io.github.pgflake;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.UUID;

/**
 * DistributedId128 (Architect.Identities 2.1.1), stored in PostgreSQL's {@code uuid}: 48 bits of
 * milliseconds since 1700-01-01T00:00:00Z, the version nibble {@code 0111}, and a 75-bit random
 * value R split around bit 63, which is always 0 (docs/sql-reference.md "distributed_id"; the
 * Rust reference is core/src/formats/distributed_id128.rs). Every 128-bit value is a uuid, so any
 * {@link UUID} converts; {@link #toUuid()} is what JDBC sends and reads for a {@code uuid} column.
 */
public final class DistributedId128 extends FlakeId<DistributedId128> {
    private static final long serialVersionUID = 1L;

    public static final String TYPE_NAME = "uuid";
    public static final int LENGTH = 16;
    /** 1700-01-01T00:00:00Z in milliseconds since 1970. */
    public static final long EPOCH_UNIX_MILLIS = -8_520_336_000_000L;
    public static final long MAX_TIMESTAMP_MS = (1L << 48) - 1;
    public static final BigInteger MAX_RANDOM = BigInteger.ONE.shiftLeft(75).subtract(BigInteger.ONE);
    public static final String TIME_RANGE = "1700-01-01 00:00:00+00 to 10619-08-04 05:31:50.655999+00";
    public static final String VALUE_RANGE = "0 to 340282366920938463463374607431768211455";
    private static final BigInteger MAX_VALUE = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);
    private static final long LOW_RANDOM_MASK = Long.MAX_VALUE; // 63 bits

    private DistributedId128(byte[] raw) {
        super(raw);
    }

    /** The uuid's value. */
    public static DistributedId128 of(UUID uuid) {
        byte[] raw = new byte[LENGTH];
        Bytes.put(raw, 0, 8, uuid.getMostSignificantBits());
        Bytes.put(raw, 8, 8, uuid.getLeastSignificantBits());
        return new DistributedId128(raw);
    }

    /** Strict 8-4-4-4-12 hexadecimal digits, either case (22P02 otherwise). */
    public static DistributedId128 parse(String text) {
        byte[] raw = text.length() == 36 ? new byte[LENGTH] : null;
        int at = 0;
        for (int i = 0; raw != null && i < 36; i++) {
            char c = text.charAt(i);
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (c != '-') {
                    raw = null;
                }
                continue;
            }
            int digit = c < 128 ? Character.digit(c, 16) : -1;
            if (digit < 0) {
                raw = null;
                continue;
            }
            raw[at / 2] |= (byte) (at % 2 == 0 ? digit << 4 : digit);
            at++;
        }
        if (raw == null) {
            throw FlakeException.invalidText(TYPE_NAME, text, "a uuid as 8-4-4-4-12 hexadecimal digits");
        }
        return new DistributedId128(raw);
    }

    /** The value of its 16 stored bytes (22P03 for another length). */
    public static DistributedId128 fromBytes(byte[] data) {
        return new DistributedId128(exactly(data, LENGTH, TYPE_NAME));
    }

    /** {@code distributed_id128_from_numeric}: 0 … 2^128 − 1; negative or fractional is 22003. */
    public static DistributedId128 fromNumeric(BigDecimal value) {
        BigInteger integer;
        try {
            integer = value.toBigIntegerExact();
        } catch (ArithmeticException e) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, value.toPlainString(), VALUE_RANGE);
        }
        return fromNumeric(integer);
    }

    /** {@code distributed_id128_from_numeric} of an integer (22003 outside 0 … 2^128 − 1). */
    public static DistributedId128 fromNumeric(BigInteger value) {
        if (value.signum() < 0 || value.compareTo(MAX_VALUE) > 0) {
            throw FlakeException.valueOutOfRange(TYPE_NAME, value.toString(), VALUE_RANGE);
        }
        byte[] raw = new byte[LENGTH];
        byte[] big = value.toByteArray();
        int n = Math.min(big.length, LENGTH);
        System.arraycopy(big, big.length - n, raw, LENGTH - n, n);
        return new DistributedId128(raw);
    }

    /** {@code distributed_id128_from_parts}: the time rounds down to the millisecond; R 0 … 2^75 − 1. */
    public static DistributedId128 fromParts(Instant time, BigInteger random) {
        long micros = Times.unixMicros(time);
        long ms = Math.floorDiv(micros, 1000L) - EPOCH_UNIX_MILLIS;
        if (micros == Long.MIN_VALUE || micros == Long.MAX_VALUE || ms < 0 || ms > MAX_TIMESTAMP_MS) {
            throw FlakeException.timeOutOfRange("distributed_id128", TIME_RANGE);
        }
        if (random.signum() < 0 || random.compareTo(MAX_RANDOM) > 0) {
            throw FlakeException.fieldOutOfRange("distributed_id128", "random", random, 0, MAX_RANDOM);
        }
        long high = random.shiftRight(63).longValue(); // 12 bits
        long low = random.longValue() & LOW_RANDOM_MASK;
        return of(new UUID(ms << 16 | 7L << 12 | high, low));
    }

    /** The smallest DistributedId128 at that instant (R = 0). */
    public static DistributedId128 fromTime(Instant time) {
        return fromParts(time, BigInteger.ZERO);
    }

    /** {@code alphanumeric_decode_uuid}: 22 base62 characters. */
    public static DistributedId128 fromAlphanumeric(String text) {
        return of(Alphanumeric.decodeUuid(text));
    }

    public UUID toUuid() {
        return new UUID(uint(0, 8), uint(8, 8));
    }

    /** The 128-bit integer ({@code distributed_id128_to_numeric}). */
    public BigInteger numeric() {
        return new BigInteger(1, raw);
    }

    /** The top 48 bits: milliseconds since 1700. */
    public long timestampMs() {
        return uint(0, 6);
    }

    /** R: the 12 bits above bit 63, then the low 63 bits (for any uuid, ignoring the version nibble and bit 63). */
    public BigInteger random() {
        long high = uint(6, 2) & 0xFFF;
        long low = uint(8, 8) & LOW_RANDOM_MASK;
        return BigInteger.valueOf(high).shiftLeft(63).or(BigInteger.valueOf(low));
    }

    @Override
    public long unixMicros() {
        return (timestampMs() + EPOCH_UNIX_MILLIS) * 1000;
    }

    /** {@code alphanumeric_encode(uuid)}: 22 base62 characters. */
    public String toAlphanumeric() {
        return Alphanumeric.encode(toUuid());
    }

    @Override
    public String typeName() {
        return TYPE_NAME;
    }

    /** The canonical uuid text, lower case. */
    @Override
    public String toString() {
        return toUuid().toString();
    }
}
