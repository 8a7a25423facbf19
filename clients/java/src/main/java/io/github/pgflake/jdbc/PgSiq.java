package io.github.pgflake.jdbc;

import io.github.pgflake.Siq;
import java.sql.SQLException;

/** A {@code siq} for pgjdbc (see {@link PgFlakeObject}); {@link #id()} is the {@link Siq}. */
public final class PgSiq extends PgFlakeObject<Siq> {
    private static final long serialVersionUID = 1L;

    /** pgjdbc's constructor; {@link #setValue} or {@link #setByteValue} follows. */
    public PgSiq() {
        super(Siq.TYPE_NAME);
    }

    public PgSiq(Siq id) {
        this();
        setId(id);
    }

    /** The value of the canonical text (an {@link SQLException} with 22P02 for bad text). */
    public static PgSiq of(String text) throws SQLException {
        PgSiq object = new PgSiq();
        object.setValue(text);
        return object;
    }

    @Override
    protected Siq parse(String text) {
        return Siq.parse(text);
    }

    @Override
    protected Siq fromBytes(byte[] bytes) {
        return Siq.fromBytes(bytes);
    }
}
