package io.github.pgflake.jdbc;

import io.github.pgflake.FlaxId;
import java.sql.SQLException;

/** A {@code flaxid} for pgjdbc (see {@link PgFlakeObject}); {@link #id()} is the {@link FlaxId}. */
public final class PgFlaxId extends PgFlakeObject<FlaxId> {
    private static final long serialVersionUID = 1L;

    /** pgjdbc's constructor; {@link #setValue} or {@link #setByteValue} follows. */
    public PgFlaxId() {
        super(FlaxId.TYPE_NAME);
    }

    public PgFlaxId(FlaxId id) {
        this();
        setId(id);
    }

    /** The value of the canonical text (an {@link SQLException} with 22P02 for bad text). */
    public static PgFlaxId of(String text) throws SQLException {
        PgFlaxId object = new PgFlaxId();
        object.setValue(text);
        return object;
    }

    @Override
    protected FlaxId parse(String text) {
        return FlaxId.parse(text);
    }

    @Override
    protected FlaxId fromBytes(byte[] bytes) {
        return FlaxId.fromBytes(bytes);
    }
}
