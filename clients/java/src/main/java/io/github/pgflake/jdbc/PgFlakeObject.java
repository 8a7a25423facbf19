package io.github.pgflake.jdbc;

import io.github.pgflake.FlakeException;
import io.github.pgflake.FlakeId;
import java.sql.SQLException;
import org.postgresql.util.PGBinaryObject;
import org.postgresql.util.PGobject;

/**
 * A pg_flake value for pgjdbc: a {@link PGobject} of the type's name holding the package's
 * immutable value ({@link #id()}). Registered with {@link PgFlake#register} (pgjdbc's
 * {@code addDataType}), results arrive as these in text or binary alike, {@code getString} stays
 * the canonical text, and a parameter goes out in binary; unregistered, a parameter goes out as
 * its text with the type's name, which the server resolves without a cast.
 *
 * <p>pgjdbc fills a {@code PGobject} through {@link #setValue}/{@link #setByteValue} after
 * making it with its no-argument constructor, so this class is mutable as pgjdbc requires; the
 * value it holds is not. Bad input is an {@link SQLException} with the extension's SQLSTATE.
 *
 * @param <T> the value class
 */
public abstract class PgFlakeObject<T extends FlakeId<T>> extends PGobject implements PGBinaryObject {
    private static final long serialVersionUID = 1L;

    private T id;
    private boolean arrivedInBinary;

    protected PgFlakeObject(String typeName) {
        setType(typeName);
    }

    /** The value of the type's text. */
    protected abstract T parse(String text);

    /** The value of the type's stored bytes. */
    protected abstract T fromBytes(byte[] bytes);

    /** The value held; null for SQL NULL. */
    public final T id() {
        return id;
    }

    /** Holds {@code id} (null: SQL NULL). */
    public final void setId(T id) {
        this.id = id;
        this.value = id == null ? null : id.toString();
    }

    /** Text: what pgjdbc hands over for a text-format column. */
    @Override
    public final void setValue(String text) throws SQLException {
        arrivedInBinary = false;
        if (text == null) {
            setId(null);
            return;
        }
        try {
            setId(parse(text));
        } catch (FlakeException e) {
            throw sqlException(e);
        }
    }

    /** Binary: what pgjdbc hands over for a binary-format column (the stored bytes). */
    @Override
    public final void setByteValue(byte[] source, int offset) throws SQLException {
        arrivedInBinary = true;
        try {
            setId(fromBytes(java.util.Arrays.copyOfRange(source, offset, source.length)));
        } catch (FlakeException e) {
            throw sqlException(e);
        }
    }

    /** Whether pgjdbc filled this from a binary result (registered types, once a statement is prepared). */
    public final boolean arrivedInBinary() {
        return arrivedInBinary;
    }

    @Override
    public final int lengthInBytes() {
        return id == null ? 0 : id.length();
    }

    @Override
    public final void toBytes(byte[] target, int offset) {
        id.writeBytes(target, offset);
    }

    @Override
    public final boolean isNull() {
        return id == null;
    }

    /** An {@link SQLException} with the SQLSTATE and message of the package's refusal. */
    public static SQLException sqlException(FlakeException e) {
        return new SQLException(e.getMessage(), e.getSqlState(), e);
    }

    @Override
    public boolean equals(Object other) {
        return other != null && other.getClass() == getClass()
            && java.util.Objects.equals(id, ((PgFlakeObject<?>) other).id);
    }

    @Override
    public int hashCode() {
        return id == null ? 0 : id.hashCode();
    }

    @Override
    public Object clone() throws CloneNotSupportedException {
        return super.clone(); // the value held is immutable: sharing it is a copy
    }

    @Override
    public String toString() {
        return value;
    }
}
