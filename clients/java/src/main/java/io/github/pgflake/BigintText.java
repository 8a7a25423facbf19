package io.github.pgflake;

/** PostgreSQL's {@code bigint} text input (int8in): C white space around, an optional sign, digits. */
final class BigintText {
    private BigintText() {
    }

    static boolean isCSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == 0x0c;
    }

    static String trim(String text) {
        int from = 0;
        int to = text.length();
        while (from < to && isCSpace(text.charAt(from))) {
            from++;
        }
        while (to > from && isCSpace(text.charAt(to - 1))) {
            to--;
        }
        return text.substring(from, to);
    }

    /** The integer, or 22P02 (no integer) / 22003 (outside a long); {@code typeName} names the format. */
    static long parse(String text, String typeName) {
        String digits = trim(text);
        int start = !digits.isEmpty() && (digits.charAt(0) == '-' || digits.charAt(0) == '+') ? 1 : 0;
        if (digits.length() == start) {
            throw FlakeException.invalidText("bigint", text, "an integer");
        }
        for (int i = start; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                throw FlakeException.invalidText("bigint", text, "an integer");
            }
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw FlakeException.valueOutOfRange("bigint", text, "-9223372036854775808 to 9223372036854775807");
        }
    }
}
