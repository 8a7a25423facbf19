package io.github.pgflake.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The server the tests run against: {@code PG_FLAKE_TEST_DSN} in libpq's key=value form
 * (host, port, dbname, user, password, options; a host and port list with
 * target_session_attrs=read-write becomes pgjdbc's targetServerType=primary). Tests that need
 * it {@link Skip} without it.
 */
public final class Db {
    private Db() {
    }

    /** The DSN, or a Skip. */
    public static String dsn() {
        String dsn = System.getenv("PG_FLAKE_TEST_DSN");
        if (dsn == null || dsn.isBlank()) {
            throw new Skip("PG_FLAKE_TEST_DSN is not set");
        }
        return dsn;
    }

    /** libpq's key=value pairs (values may be single-quoted, with \\' and \\\\ inside). */
    public static Map<String, String> pairs(String dsn) {
        Map<String, String> keys = new LinkedHashMap<>();
        int i = 0;
        int n = dsn.length();
        while (i < n) {
            while (i < n && Character.isWhitespace(dsn.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int eq = dsn.indexOf('=', i);
            String key = dsn.substring(i, eq).trim();
            i = eq + 1;
            while (i < n && Character.isWhitespace(dsn.charAt(i))) {
                i++;
            }
            StringBuilder value = new StringBuilder();
            if (i < n && dsn.charAt(i) == '\'') {
                i++;
                while (i < n && dsn.charAt(i) != '\'') {
                    if (dsn.charAt(i) == '\\' && i + 1 < n) {
                        i++;
                    }
                    value.append(dsn.charAt(i++));
                }
                i++;
            } else {
                while (i < n && !Character.isWhitespace(dsn.charAt(i))) {
                    value.append(dsn.charAt(i++));
                }
            }
            keys.put(key, value.toString());
        }
        return keys;
    }

    /** The JDBC URL of a libpq DSN. */
    public static String url(String dsn) {
        Map<String, String> keys = pairs(dsn);
        String[] hosts = keys.getOrDefault("host", "127.0.0.1").split(",");
        String[] ports = keys.getOrDefault("port", "5432").split(",");
        StringBuilder url = new StringBuilder("jdbc:postgresql://");
        for (int h = 0; h < hosts.length; h++) {
            url.append(h == 0 ? "" : ",").append(hosts[h]).append(':').append(ports[Math.min(h, ports.length - 1)]);
        }
        url.append('/').append(keys.getOrDefault("dbname", "postgres"));
        return url.toString();
    }

    /** pgjdbc's properties of a libpq DSN. */
    public static Properties properties(String dsn) {
        Map<String, String> keys = pairs(dsn);
        Properties p = new Properties();
        p.setProperty("user", keys.getOrDefault("user", "postgres"));
        if (keys.containsKey("password")) {
            p.setProperty("password", keys.get("password"));
        }
        if (keys.containsKey("options")) {
            p.setProperty("options", keys.get("options"));
        }
        if (keys.containsKey("connect_timeout")) {
            p.setProperty("connectTimeout", keys.get("connect_timeout"));
        }
        if ("read-write".equals(keys.get("target_session_attrs"))) {
            p.setProperty("targetServerType", "primary");
        }
        return p;
    }

    /** A new connection to {@code dsn}; {@code settings} are pgjdbc property pairs. */
    public static Connection connectTo(String dsn, String... settings) throws SQLException {
        Properties p = properties(dsn);
        for (int i = 0; i < settings.length; i += 2) {
            p.setProperty(settings[i], settings[i + 1]);
        }
        return DriverManager.getConnection(url(dsn), p);
    }

    /** A new connection to the test server (or a Skip). */
    public static Connection connect(String... settings) throws SQLException {
        return connectTo(dsn(), settings);
    }

    public static void execute(Connection conn, String... statements) throws SQLException {
        try (Statement st = conn.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        }
    }

    /** The first column of the first row, as text. */
    public static String queryString(Connection conn, String sql, Object... params) throws SQLException {
        try (PreparedStatement st = conn.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                st.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** The SQLSTATE {@code body} fails with; fails if it succeeds. */
    public static String sqlStateOf(SqlBody body) {
        try {
            body.run();
        } catch (SQLException e) {
            return e.getSQLState();
        }
        throw new AssertionError("expected an SQLException");
    }

    @FunctionalInterface
    public interface SqlBody {
        void run() throws SQLException;
    }
}
