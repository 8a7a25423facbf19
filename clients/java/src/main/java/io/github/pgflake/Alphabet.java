package io.github.pgflake;

import java.util.Arrays;

/**
 * The "number in a fixed-width alphabet" text forms (sno, flaxid, kuid): the big-endian bytes
 * cut into 5- or 6-bit groups, most significant first, zero bits padding the end. Decoding is
 * strict (exact length, the alphabet only, padding bits zero), so every accepted text is
 * canonical. The Rust reference is core/src/codec.rs.
 */
final class Alphabet {
    private final char[] chars;
    private final byte[] values = new byte[128];
    private final int bits;

    Alphabet(String chars) {
        this.chars = chars.toCharArray();
        this.bits = chars.length() == 32 ? 5 : 6;
        Arrays.fill(values, (byte) -1);
        for (int i = 0; i < this.chars.length; i++) {
            values[this.chars[i]] = (byte) i;
        }
    }

    String encode(byte[] value, int length) {
        int total = value.length * 8;
        char[] out = new char[length];
        for (int i = 0; i < length; i++) {
            int digit = 0;
            for (int b = 0; b < bits; b++) {
                int pos = i * bits + b;
                int bit = pos < total ? (value[pos >> 3] >> (7 - (pos & 7))) & 1 : 0;
                digit = digit << 1 | bit;
            }
            out[i] = chars[digit];
        }
        return new String(out);
    }

    /** The {@code byteLength} bytes of exactly {@code length} characters, or null if not canonical. */
    byte[] decode(String text, int byteLength, int length) {
        if (text.length() != length) {
            return null;
        }
        int total = byteLength * 8;
        byte[] out = new byte[byteLength];
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            int digit = c < 128 ? values[c] : -1;
            if (digit < 0) {
                return null;
            }
            for (int b = 0; b < bits; b++) {
                int bit = (digit >> (bits - 1 - b)) & 1;
                int pos = i * bits + b;
                if (pos < total) {
                    out[pos >> 3] |= (byte) (bit << (7 - (pos & 7)));
                } else if (bit != 0) {
                    return null;
                }
            }
        }
        return out;
    }
}
