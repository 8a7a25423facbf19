package io.github.pgflake.jdbc;

import io.github.pgflake.Kuid96;
import java.sql.SQLException;

/** A {@code kuid96} for pgjdbc (see {@link PgFlakeObject}); {@link #id()} is the {@link Kuid96}. */
public final class PgKuid96 extends PgFlakeObject<Kuid96> {
    private static final long serialVersionUID = 1L;

    /** pgjdbc's constructor; {@link #setValue} or {@link #setByteValue} follows. */
    public PgKuid96() {
        super(Kuid96.TYPE_NAME);
    }

    public PgKuid96(Kuid96 id) {
        this();
        setId(id);
    }

    /** The value of the canonical text (an {@link SQLException} with 22P02 for bad text). */
    public static PgKuid96 of(String text) throws SQLException {
        PgKuid96 object = new PgKuid96();
        object.setValue(text);
        return object;
    }

    @Override
    protected Kuid96 parse(String text) {
        return Kuid96.parse(text);
    }

    @Override
    protected Kuid96 fromBytes(byte[] bytes) {
        return Kuid96.fromBytes(bytes);
    }
}
