package io.github.pgflake.lease;

import java.time.Instant;

/**
 * The lease's window has ended (or its last usable unit is used up) and it was not renewed: take
 * a new lease and never use this generator again. No ID outside the window is ever made.
 * {@link #getCause()} is the last renewal's error, if a renewal failed.
 */
public class LeaseExpiredException extends LeaseException {
    private static final long serialVersionUID = 1L;

    private final String format;
    private final Instant expires;

    public LeaseExpiredException(long leaseId, String format, Instant expires, Throwable lastRenewalError) {
        super(leaseId, "lease " + leaseId + " of " + format + " expired at " + expires
            + " and could not be renewed; take a new lease (LeasedGenerator." + format
            + ") and stop using this one", null, lastRenewalError);
        this.format = format;
        this.expires = expires;
    }

    public String getFormat() {
        return format;
    }

    public Instant getExpires() {
        return expires;
    }
}
