package io.github.pgflake;

import java.util.UUID;

/**
 * Architect.Identities' base62 text (docs/sql-reference.md "Alphanumeric encoding"; the Rust
 * reference is core/src/formats/alphanumeric.rs): 8 bytes read as a big-endian unsigned integer become
 * exactly 11 characters of {@code 0-9A-Za-z}. Decoding is strict: exact length, the alphabet
 * only, each block below 2^64.
 */
public final class Alphanumeric {
    static final String ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final String EXPECTED_BIGINT = "11 characters of 0-9, A-Z, a-z, at most LygHa16AHYF";
    private static final String EXPECTED_UUID =
        "22 characters of 0-9, A-Z, a-z, each 11-character half at most LygHa16AHYF";

    private Alphanumeric() {
    }

    /** {@code alphanumeric_encode(bigint)}: 11 characters; a negative value has none (22003). */
    public static String encode(long value) {
        FlakeException.field("alphanumeric", "value", value, 0, Long.MAX_VALUE);
        return block(value, 11);
    }

    /** {@code alphanumeric_decode_bigint}: 11 characters, at most 2^63 − 1. */
    public static long decodeLong(String text) {
        Long value = text.length() == 11 ? digits(text, 0, 11) : null;
        if (value == null) {
            throw FlakeException.invalidText("bigint", text, EXPECTED_BIGINT);
        }
        if (value < 0) {
            throw FlakeException.valueOutOfRange("bigint", text,
                "00000000000 to AzL8n0Y58m7 (0 to 9223372036854775807)");
        }
        return value;
    }

    /** {@code alphanumeric_encode(uuid)}: two 11-character blocks (bytes 0–7, 8–15). */
    public static String encode(UUID value) {
        return block(value.getMostSignificantBits(), 11) + block(value.getLeastSignificantBits(), 11);
    }

    /** {@code alphanumeric_decode_uuid}: 22 characters. */
    public static UUID decodeUuid(String text) {
        Long high = text.length() == 22 ? digits(text, 0, 11) : null;
        Long low = high != null ? digits(text, 11, 22) : null;
        if (low == null) {
            throw FlakeException.invalidText("uuid", text, EXPECTED_UUID);
        }
        return new UUID(high, low);
    }

    /** {@code value}, unsigned, as {@code length} base62 digits (zero-padded). */
    static String block(long value, int length) {
        char[] out = new char[length];
        for (int i = length - 1; i >= 0; i--) {
            out[i] = ALPHABET.charAt((int) Long.remainderUnsigned(value, 62));
            value = Long.divideUnsigned(value, 62);
        }
        return new String(out);
    }

    /** The unsigned value of {@code text[from, to)}, or null for a character outside the alphabet or ≥ 2^64. */
    static Long digits(String text, int from, int to) {
        long value = 0;
        for (int i = from; i < to; i++) {
            int digit = ALPHABET.indexOf(text.charAt(i));
            if (digit < 0) {
                return null;
            }
            if (Long.compareUnsigned(value, Long.divideUnsigned(-1L - digit, 62)) > 0) {
                return null;
            }
            value = value * 62 + digit;
        }
        return value;
    }
}
