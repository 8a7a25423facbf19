import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.postgresql.PGConnection;
import org.postgresql.util.PGobject;

/**
 * pg_flake from pgjdbc, as a test: every check prints what it showed and the
 * program exits non-zero if one fails. Run against a database where pg_flake
 * may be dropped and created again (it does both):
 *
 * <pre>
 * PG_FLAKE_TEST_DSN='host=127.0.0.1 port=5432 user=postgres dbname=flake_clients' ./run.sh
 * </pre>
 */
public class PgFlakeRecipe {
    /** One value of each native type, from the examples of docs/sql-reference.md. */
    static final Map<String, String> EXAMPLES = new LinkedHashMap<>();

    static {
        EXAMPLES.put("sno", "brpk4q72xwf2m63l");
        EXAMPLES.put("siq", "crxckuyagku7racaaacmgzymuoabo");
        EXAMPLES.put("distributed_id", "1088824355131185736905670087");
        EXAMPLES.put("flaxid", "17cQYV3E6XowHpdd");
        EXAMPLES.put("kuid96", ".5.tXa0xODNvPN.0");
    }

    static final String SNO = EXAMPLES.get("sno");

    /** The OIDs this database gave pg_flake's types at CREATE EXTENSION time. */
    static final String TYPE_OIDS = "SELECT t.typname, t.oid::int FROM pg_type t"
        + " JOIN pg_extension e ON e.extnamespace = t.typnamespace"
        + " WHERE e.extname = 'pg_flake' AND t.typname = ANY (?) ORDER BY t.typname";

    interface Check {
        String run() throws Exception;
    }

    static int passed;
    static int failed;

    static void check(String name, Check body) {
        try {
            String shown = body.run();
            passed++;
            System.out.println("ok   " + name + (shown == null ? "" : ": " + shown));
        } catch (Throwable e) {
            failed++;
            System.out.println("FAIL " + name + ": " + e);
            for (StackTraceElement frame : e.getStackTrace()) {
                if (frame.getClassName().startsWith("PgFlakeRecipe") || frame.getClassName().startsWith("FlakeSno")) {
                    System.out.println("       at " + frame);
                }
            }
        }
    }

    static void expect(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    static void expectEqual(Object expected, Object actual, String what) {
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    /** The SQLSTATE of what body throws; fails when it throws nothing. */
    static String sqlStateOf(Check body) throws Exception {
        try {
            body.run();
        } catch (SQLException e) {
            return e.getSQLState();
        }
        throw new AssertionError("expected an SQLException");
    }

    /** libpq's key=value form (PG_FLAKE_TEST_DSN) as a JDBC URL and properties. */
    static String url;
    static Properties baseProperties = new Properties();

    static void parseDsn(String dsn) {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String pair : dsn.trim().split("\\s+")) {
            int eq = pair.indexOf('=');
            keys.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        url = "jdbc:postgresql://" + keys.getOrDefault("host", "127.0.0.1") + ":"
            + keys.getOrDefault("port", "5432") + "/" + keys.getOrDefault("dbname", "postgres");
        baseProperties.setProperty("user", keys.getOrDefault("user", "postgres"));
        if (keys.containsKey("password")) {
            baseProperties.setProperty("password", keys.get("password"));
        }
    }

    static Connection connect(String... settings) throws SQLException {
        Properties properties = new Properties();
        properties.putAll(baseProperties);
        for (int i = 0; i < settings.length; i += 2) {
            properties.setProperty(settings[i], settings[i + 1]);
        }
        return DriverManager.getConnection(url, properties);
    }

    static Map<String, Integer> typeOids(Connection conn) throws SQLException {
        Map<String, Integer> oids = new LinkedHashMap<>();
        try (PreparedStatement st = conn.prepareStatement(TYPE_OIDS)) {
            st.setArray(1, conn.createArrayOf("text", EXAMPLES.keySet().toArray()));
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    oids.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        expectEqual(EXAMPLES.size(), oids.size(), "pg_flake types found (CREATE EXTENSION pg_flake first)");
        return oids;
    }

    static String queryString(Connection conn, String sql, Object... params) throws SQLException {
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

    static PGobject pgObject(String type, String text) throws SQLException {
        PGobject value = new PGobject();
        value.setType(type);
        value.setValue(text);
        return value;
    }

    /** A FlakeSno whose text is another sno than its bytes: the server shows which one it got. */
    static class TextDisagrees extends FlakeSno {
        private static final long serialVersionUID = 1L;

        TextDisagrees() throws SQLException {
            setValue("2222222222222222");
            FlakeSno real = FlakeSno.of(SNO);
            setByteValue(real.bytes(), 0);
            this.value = "2222222222222222";
        }
    }

    public static void main(String[] args) throws Exception {
        parseDsn(System.getenv().getOrDefault("PG_FLAKE_TEST_DSN",
            "host=127.0.0.1 port=5432 user=postgres dbname=flake_clients"));
        Connection conn = connect();
        System.out.println("pgjdbc " + conn.getMetaData().getDriverVersion() + ", Java "
            + System.getProperty("java.version"));
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE EXTENSION IF NOT EXISTS pg_flake");
            st.execute("DROP TABLE IF EXISTS java_recipe");
            st.execute("CREATE TABLE java_recipe (sno sno, siq siq, distributed_id distributed_id,"
                + " flaxid flaxid, kuid96 kuid96)");
        }
        Map<String, Integer> oids = new LinkedHashMap<>();

        check("OIDs looked up", () -> {
            oids.putAll(typeOids(conn));
            return oids.toString();
        });

        check("setString without a cast: the parameter is varchar (42883)", () -> {
            String state = sqlStateOf(() -> queryString(conn, "SELECT sno_timestamp(?)", SNO));
            expectEqual("42883", state, "SQLSTATE");
            state = sqlStateOf(() -> queryString(conn, "SELECT count(*) FROM java_recipe WHERE sno = ?", SNO));
            expectEqual("42883", state, "SQLSTATE");
            return "function sno_timestamp(character varying) / operator sno = character varying do not exist";
        });

        check("?::type casts: text round trip of every type, getString is the canonical text", () -> {
            try (PreparedStatement st = conn.prepareStatement(
                "INSERT INTO java_recipe VALUES (?::sno, ?::siq, ?::distributed_id, ?::flaxid, ?::kuid96)")) {
                int i = 1;
                for (String text : EXAMPLES.values()) {
                    st.setString(i++, text);
                }
                st.executeUpdate();
            }
            List<String> shown = new ArrayList<>();
            try (PreparedStatement st = conn.prepareStatement("SELECT * FROM java_recipe WHERE sno = ?::sno")) {
                st.setString(1, SNO);
                try (ResultSet rs = st.executeQuery()) {
                    expect(rs.next(), "the row");
                    for (Map.Entry<String, String> e : EXAMPLES.entrySet()) {
                        expectEqual(e.getValue(), rs.getString(e.getKey()), e.getKey());
                        PGobject object = (PGobject) rs.getObject(e.getKey());
                        expectEqual(e.getKey(), object.getType(), "getObject type");
                        expectEqual(e.getValue(), object.getValue(), "getObject value");
                        expectEqual(Types.OTHER, rs.getMetaData().getColumnType(rs.findColumn(e.getKey())), "JDBC type");
                        shown.add(e.getKey() + "=" + object.getValue());
                    }
                }
            }
            return String.join(" ", shown);
        });

        check("setObject(text, Types.OTHER) needs no cast", () -> {
            String ts;
            try (PreparedStatement st = conn.prepareStatement("SELECT sno_timestamp(?)")) {
                st.setObject(1, SNO, Types.OTHER);
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    ts = rs.getObject(1, OffsetDateTime.class).toString();
                }
            }
            expectEqual("2031-05-08T23:03:34.976Z", ts, "sno_timestamp");
            return "sno_timestamp(?) = " + ts;
        });

        check("setObject(PGobject of type \"sno\") needs no cast (pgjdbc sends sno's OID)", () -> {
            String partition = queryString(conn, "SELECT sno_partition(?)", pgObject("sno", SNO));
            expectEqual("39434", partition, "sno_partition");
            String count = queryString(conn, "SELECT count(*) FROM java_recipe WHERE kuid96 = ?",
                pgObject("kuid96", EXAMPLES.get("kuid96")));
            expectEqual("1", count, "rows");
            return "sno_partition(?) = " + partition + ", kuid96 = ? finds the row";
        });

        check("stringtype=unspecified: setString needs no cast, but overloads become ambiguous", () -> {
            try (Connection unspecified = connect("stringtype", "unspecified")) {
                String ts = queryString(unspecified, "SELECT sno_timestamp(?)", SNO);
                String count = queryString(unspecified, "SELECT count(*) FROM java_recipe WHERE siq = ?",
                    EXAMPLES.get("siq"));
                expectEqual("1", count, "rows");
                // alphanumeric_encode has bigint, uuid and distributed_id forms.
                String state = sqlStateOf(() -> queryString(unspecified,
                    "SELECT alphanumeric_encode(?)", "1088824355131185736905670087"));
                expectEqual("42725", state, "SQLSTATE");
                String code = queryString(unspecified, "SELECT alphanumeric_encode(?::distributed_id)",
                    "1088824355131185736905670087");
                expectEqual("3zfAkCP7ZtzfeQYp", code, "alphanumeric_encode");
                return "sno_timestamp(?) = " + ts + "; alphanumeric_encode(?) is 42725, ?::distributed_id -> " + code;
            }
        });

        check("binaryTransferEnable=<sno OID>: getString turns null at the 6th execution; getBytes is the bytes", () -> {
            // The OIDs are looked up on another connection first: the
            // property is read when connecting.
            try (Connection binary = connect("binaryTransferEnable", String.valueOf(oids.get("sno")))) {
                List<String> seen = new ArrayList<>();
                byte[] bytes = null;
                try (PreparedStatement st = binary.prepareStatement("SELECT ?::sno")) {
                    for (int i = 1; i <= 7; i++) {
                        st.setString(1, SNO);
                        try (ResultSet rs = st.executeQuery()) {
                            rs.next();
                            seen.add(String.valueOf(rs.getString(1)));
                            bytes = rs.getBytes(1);
                        }
                    }
                }
                // prepareThreshold (5): from then on the statement is
                // prepared on the server and pgjdbc asks for binary results.
                expectEqual(Arrays.asList(SNO, SNO, SNO, SNO, SNO, "null", "null"), seen, "getString");
                expectEqual("4e6f2160a0ff9a0a1033", HexFormat.of().formatHex(bytes), "getBytes");
                return "getString " + seen + ", getBytes " + HexFormat.of().formatHex(bytes);
            }
        });

        check("addDataType(\"sno\", FlakeSno.class): binary parameters, binary results from the 6th execution, getString stays the text", () -> {
            try (Connection typed = connect()) {
                // A PGBinaryObject class switches binary transfer on for the
                // OID sno has now (pgjdbc looks it up by name).
                typed.unwrap(PGConnection.class).addDataType("sno", FlakeSno.class);
                List<String> modes = new ArrayList<>();
                try (PreparedStatement st = typed.prepareStatement("SELECT ?, sno_timestamp(?)")) {
                    for (int i = 1; i <= 7; i++) {
                        FlakeSno param = FlakeSno.of(SNO);
                        st.setObject(1, param);
                        st.setObject(2, param);
                        try (ResultSet rs = st.executeQuery()) {
                            rs.next();
                            FlakeSno sno = (FlakeSno) rs.getObject(1);
                            expectEqual(SNO, rs.getString(1), "getString");
                            expectEqual(param, sno, "getObject");
                            expectEqual(sno.time(), rs.getObject(2, OffsetDateTime.class).toInstant(), "time");
                            modes.add(sno.cameInBinary() ? "binary" : "text");
                        }
                    }
                }
                expectEqual("binary", modes.get(6), "the 7th execution");
                // Which form a parameter went in: this one's text and bytes disagree.
                String received = queryString(typed, "SELECT ?::text", new TextDisagrees());
                expectEqual(SNO, received, "the parameter arrived as its bytes");
                expectEqual("2222222222222222", queryString(conn, "SELECT ?::text", new TextDisagrees()),
                    "without addDataType, as its text");
                return "results " + String.join(",", modes) + "; parameters binary";
            }
        });

        check("FlakeSno's codec agrees with the server (text <-> bytes, order)", () -> {
            int n = 0;
            String previous = null;
            try (PreparedStatement st = conn.prepareStatement("SELECT id::text, id::bytea FROM ("
                + " SELECT ?::sno AS id UNION ALL SELECT sno_generate(m) FROM generate_series(0, 255) m) s ORDER BY s.id")) {
                st.setString(1, SNO);
                try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                        String text = rs.getString(1);
                        byte[] bytes = rs.getBytes(2);
                        expect(Arrays.equals(bytes, FlakeSno.of(text).bytes()), "bytes of " + text);
                        expectEqual(text, FlakeSno.ofBytes(bytes).getValue(), "text of bytes");
                        expect(previous == null || previous.compareTo(text) < 0, "text order is byte order");
                        previous = text;
                        n++;
                    }
                }
            }
            expectEqual("22P02", sqlStateOf(() -> FlakeSno.of("BRPK4Q72XWF2M63L").getValue()), "upper case");
            return n + " values";
        });

        check("bad input: clear errors with SQLSTATE", () -> {
            expectEqual("22P02", sqlStateOf(() -> queryString(conn, "SELECT ?::sno", "not-a-sno")), "text");
            expectEqual("22P03", sqlStateOf(() -> queryString(conn, "SELECT ?::bytea::sno", new byte[9])), "bytes");
            return "22P02 for bad text, 22P03 for 9 bytes";
        });

        check("after DROP/CREATE EXTENSION: a connection keeps the old OIDs; a new connection works", () -> {
            Connection typed = connect();
            typed.unwrap(PGConnection.class).addDataType("sno", FlakeSno.class);
            expectEqual("39434", queryString(typed, "SELECT sno_partition(?)", FlakeSno.of(SNO)), "before");
            try (Statement st = conn.createStatement()) {
                st.execute("DROP TABLE java_recipe");
            }
            try (Connection other = connect(); Statement st = other.createStatement()) {
                st.execute("DROP EXTENSION pg_flake");
                st.execute("CREATE EXTENSION pg_flake");
            }
            Map<String, Integer> fresh = typeOids(conn);
            expect(!fresh.get("sno").equals(oids.get("sno")), "new OIDs");
            // pgjdbc caches name -> OID per connection, and sends that OID
            // with a PGobject parameter: the server no longer knows it.
            String stale = sqlStateOf(() -> queryString(conn, "SELECT sno_partition(?)", pgObject("sno", SNO)));
            expectEqual("XX000", stale, "a PGobject on the old connection");
            // Registering the class again does not look the name up again.
            typed.unwrap(PGConnection.class).addDataType("sno", FlakeSno.class);
            String again = sqlStateOf(() -> queryString(typed, "SELECT sno_partition(?)", FlakeSno.of(SNO)));
            expectEqual("XX000", again, "addDataType again on the old connection");
            typed.close();
            // Casts in SQL and setObject(…, Types.OTHER) carry no OID.
            expectEqual(SNO, queryString(conn, "SELECT ?::sno", SNO), "?::sno on the old connection");
            try (Connection renewed = connect()) {
                renewed.unwrap(PGConnection.class).addDataType("sno", FlakeSno.class);
                expectEqual("39434", queryString(renewed, "SELECT sno_partition(?)", FlakeSno.of(SNO)), "after");
                expectEqual("39434", queryString(renewed, "SELECT sno_partition(?)", pgObject("sno", SNO)), "after");
            }
            return "sno " + oids.get("sno") + " -> " + fresh.get("sno") + "; old connection: PGobject parameter is "
                + stale + " (cache lookup failed for type), ?::sno still works; new connection: all work";
        });

        conn.close();
        System.out.println("java: " + passed + " of " + (passed + failed) + " checks passed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
