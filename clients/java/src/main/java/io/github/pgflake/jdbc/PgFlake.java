package io.github.pgflake.jdbc;

import io.github.pgflake.DistributedId;
import io.github.pgflake.FlakeException;
import io.github.pgflake.FlakeId;
import io.github.pgflake.FlaxId;
import io.github.pgflake.Kuid96;
import io.github.pgflake.Siq;
import io.github.pgflake.Sno;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.postgresql.PGConnection;
import org.postgresql.util.PGobject;

/**
 * pg_flake's native types on a pgjdbc connection (docs/applications.md "Clients"):
 * {@link #register} once per connection, then {@code setObject(i, PgFlake.param(id))} and
 * {@code PgFlake.get(rs, i, Sno.class)}.
 */
public final class PgFlake {
    /** The native types' value classes by SQL name. */
    private static final Map<String, Kind<?>> KINDS = new LinkedHashMap<>();

    static {
        KINDS.put(Sno.TYPE_NAME, new Kind<>(Sno.class, PgSno.class, PgSno::new, Sno::parse, Sno::fromBytes));
        KINDS.put(Siq.TYPE_NAME, new Kind<>(Siq.class, PgSiq.class, PgSiq::new, Siq::parse, Siq::fromBytes));
        KINDS.put(DistributedId.TYPE_NAME, new Kind<>(DistributedId.class, PgDistributedId.class,
            PgDistributedId::new, DistributedId::parse, DistributedId::fromBytes));
        KINDS.put(FlaxId.TYPE_NAME, new Kind<>(FlaxId.class, PgFlaxId.class, PgFlaxId::new, FlaxId::parse,
            FlaxId::fromBytes));
        KINDS.put(Kuid96.TYPE_NAME, new Kind<>(Kuid96.class, PgKuid96.class, PgKuid96::new, Kuid96::parse,
            Kuid96::fromBytes));
    }

    /**
     * pg_flake's native types in whatever schema the extension was created in, with their
     * current OIDs and the name pgjdbc resolves ({@code oid::regtype}: qualified when the schema
     * is not on the search_path).
     */
    static final String TYPE_QUERY = "SELECT t.typname::text, t.oid::int8, t.oid::regtype::text"
        + " FROM pg_catalog.pg_extension e"
        + " JOIN pg_catalog.pg_type t ON t.typnamespace = e.extnamespace"
        + " WHERE e.extname = 'pg_flake' AND t.typname IN ('sno', 'siq', 'distributed_id', 'flaxid', 'kuid96')"
        + " ORDER BY t.typname";

    private PgFlake() {
    }

    private record Kind<T extends FlakeId<T>>(Class<T> valueClass, Class<? extends PgFlakeObject<T>> objectClass,
            Supplier<PgFlakeObject<T>> make, Function<String, T> parse, Function<byte[], T> fromBytes) {
        PgFlakeObject<T> wrap(Object id) {
            PgFlakeObject<T> object = make.get();
            object.setId(valueClass.cast(id));
            return object;
        }
    }

    /**
     * Registers the {@link PgFlakeObject} classes of the types pg_flake has in this database
     * (pgjdbc's {@code addDataType}): results of those types arrive as them, in text or binary,
     * and parameters go out in binary. Returns the types registered with their OIDs (empty
     * without pg_flake). pgjdbc caches the OIDs per connection: after {@code DROP/CREATE
     * EXTENSION} or a restore, register on new connections (docs/applications.md "Clients").
     */
    public static Map<String, Long> register(Connection connection) throws SQLException {
        PGConnection pg = connection.unwrap(PGConnection.class);
        Map<String, Long> registered = new LinkedHashMap<>();
        try (PreparedStatement st = connection.prepareStatement(TYPE_QUERY); ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                Kind<?> kind = KINDS.get(rs.getString(1));
                pg.addDataType(rs.getString(3), kind.objectClass());
                registered.put(rs.getString(1), rs.getLong(2));
            }
        }
        return registered;
    }

    /** A parameter for {@code setObject}: the value's {@link PgFlakeObject} (null stays null). */
    public static PGobject param(FlakeId<?> id) {
        if (id == null) {
            return null;
        }
        Kind<?> kind = KINDS.get(id.typeName());
        if (kind == null) {
            throw new IllegalArgumentException(id.typeName()
                + " is no pg_flake type: send it as PostgreSQL's own type (setObject(i, id.toUuid()) for a uuid)");
        }
        return kind.wrap(id);
    }

    /** {@code st.setObject(index, param(id))}. */
    public static void set(PreparedStatement st, int index, FlakeId<?> id) throws SQLException {
        st.setObject(index, param(id));
    }

    /**
     * The value of column {@code index} as {@code type} (null for SQL NULL), whatever pgjdbc made of
     * it: a registered {@link PgFlakeObject}, a plain {@link PGobject} (text), a string (a
     * {@code ::text} column), or bytes ({@code ::bytea}, or a binary result of an unregistered type).
     */
    public static <T extends FlakeId<T>> T get(ResultSet rs, int index, Class<T> type) throws SQLException {
        Kind<?> kind = kindOf(type);
        Object object = rs.getObject(index);
        if (object == null) {
            return null;
        }
        try {
            if (object instanceof PgFlakeObject<?> flake) {
                return type.cast(flake.id());
            }
            if (object instanceof PGobject pg) {
                return pg.getValue() != null ? type.cast(kind.parse().apply(pg.getValue()))
                    : type.cast(kind.fromBytes().apply(rs.getBytes(index)));
            }
            if (object instanceof String text) {
                return type.cast(kind.parse().apply(text));
            }
            if (object instanceof byte[] bytes) {
                return type.cast(kind.fromBytes().apply(bytes));
            }
        } catch (FlakeException e) {
            throw PgFlakeObject.sqlException(e);
        }
        throw new SQLException("column " + index + " is a " + object.getClass().getName() + ", not a "
            + type.getSimpleName(), "42804");
    }

    /** {@link #get(ResultSet, int, Class)} by column label. */
    public static <T extends FlakeId<T>> T get(ResultSet rs, String label, Class<T> type) throws SQLException {
        return get(rs, rs.findColumn(label), type);
    }

    private static Kind<?> kindOf(Class<?> type) {
        for (Kind<?> kind : KINDS.values()) {
            if (kind.valueClass() == type) {
                return kind;
            }
        }
        throw new IllegalArgumentException(type.getSimpleName() + " is no pg_flake native type (sno, siq,"
            + " distributed_id, flaxid, kuid96): read Snowflake and kuid64 with getLong, DistributedId128"
            + " with getObject(i, UUID.class)");
    }
}
