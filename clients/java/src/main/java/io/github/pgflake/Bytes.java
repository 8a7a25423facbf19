package io.github.pgflake;

/** Big-endian integers in byte arrays. */
final class Bytes {
    private Bytes() {
    }

    /** {@code n} bytes from {@code from}, big-endian, as an unsigned number (n ≤ 8). */
    static long uint(byte[] data, int from, int n) {
        long value = 0;
        for (int i = from; i < from + n; i++) {
            value = value << 8 | (data[i] & 0xff);
        }
        return value;
    }

    /** Writes the low {@code n} bytes of {@code value} big-endian at {@code at}. */
    static void put(byte[] data, int at, int n, long value) {
        for (int i = at + n - 1; i >= at; i--) {
            data[i] = (byte) value;
            value >>>= 8;
        }
    }
}
