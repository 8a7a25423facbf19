package io.github.pgflake.jdbc;

import io.github.pgflake.Sno;
import java.sql.SQLException;

/** A {@code sno} for pgjdbc (see {@link PgFlakeObject}); {@link #id()} is the {@link Sno}. */
public final class PgSno extends PgFlakeObject<Sno> {
    private static final long serialVersionUID = 1L;

    /** pgjdbc's constructor; {@link #setValue} or {@link #setByteValue} follows. */
    public PgSno() {
        super(Sno.TYPE_NAME);
    }

    public PgSno(Sno id) {
        this();
        setId(id);
    }

    /** The value of the canonical text (an {@link SQLException} with 22P02 for bad text). */
    public static PgSno of(String text) throws SQLException {
        PgSno object = new PgSno();
        object.setValue(text);
        return object;
    }

    @Override
    protected Sno parse(String text) {
        return Sno.parse(text);
    }

    @Override
    protected Sno fromBytes(byte[] bytes) {
        return Sno.fromBytes(bytes);
    }
}
