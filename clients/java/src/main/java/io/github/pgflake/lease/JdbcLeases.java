package io.github.pgflake.lease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * The lease functions ({@code pg_flake_lease}, {@code pg_flake_renew}, {@code pg_flake_release};
 * docs/sql-reference.md "Leases") over a JDBC connection to PostgreSQL (pgjdbc), or over
 * connections a {@link ConnectionFactory} opens: opened at first use, and again after the
 * server closed one (a restart, a failover).
 *
 * <p>Each call commits on its own, since a lease counts only once its grant commits: the
 * connection must be in autocommit mode or idle, never inside a transaction of the
 * application's (refused otherwise). Give the generator a connection of its own (its renewals
 * run on another thread), and set {@code options=-c statement_timeout=…} if a renewal must not
 * wait long; the window keeps running meanwhile. Calls are serialized.
 */
public final class JdbcLeases implements LeaseSource {
    /** Opens a new connection. */
    @FunctionalInterface
    public interface ConnectionFactory {
        Connection open() throws SQLException;
    }

    private static final String COLUMNS = "lease_id, format, node, process,"
        + " (extract(epoch FROM not_before) * 1000000)::int8,"
        + " (extract(epoch FROM expires) * 1000000)::int8,"
        + " (extract(epoch FROM server_time) * 1000000)::int8, epoch_ms, kuid_interval";
    private static final String MICROS = "'epoch'::timestamptz + ?::int8 * interval '1 microsecond'";

    private final ConnectionFactory factory;
    private Connection connection;

    /** Over {@code connection}, which the source never closes or replaces. */
    public JdbcLeases(Connection connection) {
        this.connection = connection;
        this.factory = null;
    }

    /** Over connections {@code factory} opens (autocommit is set on each). */
    public JdbcLeases(ConnectionFactory factory) {
        this.factory = factory;
    }

    @Override
    public synchronized Lease lease(String format, String holder, Duration ttl) throws SQLException {
        String sql = "SELECT " + COLUMNS + " FROM pg_flake_lease(?, ?, ?::int8 * interval '1 microsecond')";
        return row(sql, format, holder, micros(ttl));
    }

    @Override
    public synchronized Lease renew(long leaseId, Duration ttl) throws SQLException {
        String sql = "SELECT " + COLUMNS + " FROM pg_flake_renew(?, ?::int8 * interval '1 microsecond')";
        return row(sql, leaseId, micros(ttl));
    }

    @Override
    public synchronized boolean release(long leaseId, Long lastUsedMicros) throws SQLException {
        try (ResultSet rs = query("SELECT pg_flake_release(?, " + MICROS + ")", leaseId, lastUsedMicros)) {
            rs.next();
            return rs.getBoolean(1);
        } catch (SQLException e) {
            dropBroken(e);
            throw e;
        }
    }

    /** Closes the connection if this source opened it. */
    public synchronized void close() throws SQLException {
        if (factory != null && connection != null) {
            connection.close();
            connection = null;
        }
    }

    private Lease row(String sql, Object... params) throws SQLException {
        try (ResultSet rs = query(sql, params)) {
            if (!rs.next()) {
                throw new SQLException("the lease function returned no row", "22023");
            }
            long epoch = rs.getLong(8);
            Long epochMs = rs.wasNull() ? null : epoch;
            int interval = rs.getInt(9);
            Integer kuidInterval = rs.wasNull() ? null : interval;
            return new Lease(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getInt(4), rs.getLong(5), rs.getLong(6),
                rs.getLong(7), epochMs, kuidInterval);
        } catch (SQLException e) {
            dropBroken(e);
            throw e;
        }
    }

    /** The statement's result, committed (autocommit, or a commit of its own on an idle connection). */
    private ResultSet query(String sql, Object... params) throws SQLException {
        Connection conn = connection();
        boolean autocommit = conn.getAutoCommit();
        if (!autocommit && conn.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE) {
            throw new SQLException("the connection is inside a transaction: a lease counts only once its grant"
                + " commits; use an autocommit connection (or one outside any transaction)", "25001");
        }
        PreparedStatement st = conn.prepareStatement(sql);
        st.closeOnCompletion();
        for (int i = 0; i < params.length; i++) {
            if (params[i] == null) {
                st.setNull(i + 1, Types.BIGINT);
            } else {
                st.setObject(i + 1, params[i]);
            }
        }
        try {
            ResultSet rs = st.executeQuery();
            if (!autocommit) {
                conn.commit();
            }
            return rs;
        } catch (SQLException e) {
            if (!autocommit && !conn.isClosed()) {
                conn.rollback();
            }
            throw e;
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || factory != null && connection.isClosed()) {
            if (factory == null) {
                throw new SQLException("the lease source's connection is closed", "08003");
            }
            connection = factory.open();
            connection.setAutoCommit(true);
        }
        return connection;
    }

    /** A connection the server closed (class 08) is dropped, for the factory to open anew. */
    private void dropBroken(SQLException e) {
        String state = e.getSQLState();
        if (factory != null && connection != null && state != null && state.startsWith("08")) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // it is gone either way
            }
            connection = null;
        }
    }

    private static long micros(Duration ttl) {
        return ttl.toNanos() / 1000;
    }
}
