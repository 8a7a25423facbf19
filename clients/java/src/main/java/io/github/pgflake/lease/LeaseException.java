package io.github.pgflake.lease;

/**
 * A leased generator cannot make an ID: the lease expired ({@link LeaseExpiredException}), it
 * was released, its row does not fit the format, the database's time ran back further than
 * IDs may run ahead of it (SQLSTATE 55000, as the extension's own generators), or the thread
 * was interrupted while waiting.
 */
public class LeaseException extends Exception {
    private static final long serialVersionUID = 1L;

    private final long leaseId;
    private final String sqlState;

    public LeaseException(long leaseId, String message, String sqlState, Throwable cause) {
        super(message, cause);
        this.leaseId = leaseId;
        this.sqlState = sqlState;
    }

    public LeaseException(long leaseId, String message) {
        this(leaseId, message, null, null);
    }

    public long getLeaseId() {
        return leaseId;
    }

    /** The SQLSTATE of the refusal where the extension has one for it, else null. */
    public String getSqlState() {
        return sqlState;
    }
}
