package io.github.pgflake;

/**
 * A value the extension would reject, with the message and SQLSTATE it would give
 * (docs/sql-reference.md "Errors"): 22P02 for malformed text, 22P03 for bytes of the wrong
 * length, 22003 for a value or field out of range, 22008 for a time out of range, 22023 for a
 * bad parameter. {@link #getDetail()} is the accepted form where there is one.
 */
public class FlakeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The SQL types whose names the messages use as such ("for type sno"), as the core's. */
    private static final java.util.Set<String> SQL_TYPES = java.util.Set.of(
        "sno", "siq", "flaxid", "kuid96", "distributed_id", "uuid", "bigint", "numeric");

    private final String sqlState;
    private final String baseMessage;
    private final String detail;

    public FlakeException(String message, String sqlState, String detail) {
        super(detail == null ? message : message + ". " + detail);
        this.baseMessage = message;
        this.sqlState = sqlState;
        this.detail = detail;
    }

    public FlakeException(String message, String sqlState) {
        this(message, sqlState, null);
    }

    /** The SQLSTATE the extension raises for the same mistake. */
    public String getSqlState() {
        return sqlState;
    }

    /** The message without the detail line. */
    public String getBaseMessage() {
        return baseMessage;
    }

    /** What would have been accepted, or null. */
    public String getDetail() {
        return detail;
    }

    /** "type sno", but "kuid64": formats stored in PostgreSQL's own types are named as such. */
    static String subject(String typeName) {
        return SQL_TYPES.contains(typeName) ? "type " + typeName : typeName;
    }

    public static FlakeException invalidText(String typeName, String input, String expected) {
        return new FlakeException("invalid input syntax for " + subject(typeName) + ": \"" + input + "\"",
            "22P02", "Expected " + expected + ".");
    }

    public static FlakeException invalidBinary(String typeName, String expected, int actual) {
        return new FlakeException("invalid binary value for " + subject(typeName) + ": expected " + expected
            + ", got " + actual + (actual == 1 ? " byte" : " bytes"), "22P03");
    }

    public static FlakeException valueOutOfRange(String typeName, String input, String range) {
        return new FlakeException("value \"" + input + "\" is out of range for " + subject(typeName), "22003",
            "Accepted values: " + range + ".");
    }

    public static FlakeException fieldOutOfRange(String typeName, String field, Object value, Object min, Object max) {
        return new FlakeException(typeName + " field \"" + field + "\" out of range: " + value + " (accepted: "
            + min + " to " + max + ")", "22003");
    }

    public static FlakeException timeOutOfRange(String typeName, String range) {
        return new FlakeException("timestamp out of range for " + subject(typeName) + ": accepted " + range, "22008");
    }

    public static FlakeException invalidParameter(String message) {
        return new FlakeException(message, "22023");
    }

    /** {@code value} if it lies in {@code min ..= max}, else the extension's 22003. */
    public static long field(String typeName, String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw fieldOutOfRange(typeName, name, value, min, max);
        }
        return value;
    }
}
