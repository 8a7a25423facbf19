package io.github.pgflake.jdbc;

import io.github.pgflake.DistributedId;
import java.sql.SQLException;

/** A {@code distributed_id} for pgjdbc (see {@link PgFlakeObject}); {@link #id()} is the {@link DistributedId}. */
public final class PgDistributedId extends PgFlakeObject<DistributedId> {
    private static final long serialVersionUID = 1L;

    /** pgjdbc's constructor; {@link #setValue} or {@link #setByteValue} follows. */
    public PgDistributedId() {
        super(DistributedId.TYPE_NAME);
    }

    public PgDistributedId(DistributedId id) {
        this();
        setId(id);
    }

    /** The value of the canonical text (an {@link SQLException} with 22P02 for bad text). */
    public static PgDistributedId of(String text) throws SQLException {
        PgDistributedId object = new PgDistributedId();
        object.setValue(text);
        return object;
    }

    @Override
    protected DistributedId parse(String text) {
        return DistributedId.parse(text);
    }

    @Override
    protected DistributedId fromBytes(byte[] bytes) {
        return DistributedId.fromBytes(bytes);
    }
}
