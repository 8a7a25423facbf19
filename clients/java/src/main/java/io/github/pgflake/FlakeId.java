package io.github.pgflake;

import java.io.Serializable;
import java.time.Instant;
import java.util.Arrays;

/**
 * What every value class shares: it holds exactly the big-endian bytes PostgreSQL stores (also
 * its binary wire format), so byte order is sort order (docs/sql-reference.md "What every native
 * type has"). Immutable: {@link #bytes()} returns a copy. {@link #toString()} is the canonical
 * text, {@link #compareTo} the server's order, {@link #equals}/{@link #hashCode} by bytes.
 *
 * @param <T> the value class itself
 */
public abstract class FlakeId<T extends FlakeId<T>> implements Comparable<T>, Serializable {
    private static final long serialVersionUID = 1L;

    /** The stored bytes; never changed after construction, never handed out. */
    protected final byte[] raw;

    protected FlakeId(byte[] raw) {
        this.raw = raw;
    }

    /** The SQL type name ({@code sno}, {@code siq}, …). */
    public abstract String typeName();

    /** Start of the value's time unit, in microseconds since 1970-01-01 UTC. */
    public abstract long unixMicros();

    /** Start of the value's time unit (as the type's {@code _timestamp} function reads it). */
    public Instant time() {
        return Times.instant(unixMicros());
    }

    /** A copy of the stored bytes. */
    public final byte[] bytes() {
        return raw.clone();
    }

    /** Writes the stored bytes into {@code target} at {@code offset} (no copy made). */
    public final void writeBytes(byte[] target, int offset) {
        System.arraycopy(raw, 0, target, offset, raw.length);
    }

    /** The stored length in bytes. */
    public final int length() {
        return raw.length;
    }

    /** The stored bytes as lower-case hex (as {@code id::bytea} prints them, without \x). */
    public final String toHexBytes() {
        return java.util.HexFormat.of().formatHex(raw);
    }

    @Override
    public final int compareTo(T other) {
        return Arrays.compareUnsigned(raw, other.raw);
    }

    @Override
    public final boolean equals(Object other) {
        return other != null && other.getClass() == getClass() && Arrays.equals(raw, ((FlakeId<?>) other).raw);
    }

    @Override
    public final int hashCode() {
        return Arrays.hashCode(raw);
    }

    /** The byte at {@code i}, unsigned. */
    protected final int u8(int i) {
        return raw[i] & 0xff;
    }

    /** {@code n} bytes from {@code from}, big-endian, as an unsigned number (n ≤ 8). */
    protected final long uint(int from, int n) {
        return Bytes.uint(raw, from, n);
    }

    /** Bytes of exactly {@code length}, copied, or the extension's 22P03. */
    protected static byte[] exactly(byte[] data, int length, String typeName) {
        if (data.length != length) {
            throw FlakeException.invalidBinary(typeName, "exactly " + length, data.length);
        }
        return data.clone();
    }
}
