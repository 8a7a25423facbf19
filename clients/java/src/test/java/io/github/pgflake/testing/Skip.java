package io.github.pgflake.testing;

/** Thrown by a test that cannot run here (no server): counted as skipped, with its reason. */
public final class Skip extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Skip(String reason) {
        super(reason);
    }
}
