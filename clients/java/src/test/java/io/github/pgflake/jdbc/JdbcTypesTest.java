package io.github.pgflake.jdbc;

import io.github.pgflake.DistributedId;
import io.github.pgflake.DistributedId128;
import io.github.pgflake.FlakeId;
import io.github.pgflake.FlaxId;
import io.github.pgflake.Kuid64;
import io.github.pgflake.Kuid96;
import io.github.pgflake.Siq;
import io.github.pgflake.Sno;
import io.github.pgflake.Snowflake;
import io.github.pgflake.testing.Check;
import io.github.pgflake.testing.Db;
import io.github.pgflake.testing.ServerTest;
import io.github.pgflake.testing.Test;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The pgjdbc types against a real server (PG_FLAKE_TEST_DSN): every native type in text and
 * binary, parameters and results, the codecs byte-exact with the server's and ordered like
 * it, and the package's decoders agreeing with the SQL ones.
 */
@ServerTest
public class JdbcTypesTest {
    /** type → (a generated value's SQL, the value class, its parser). */
    record Type<T extends FlakeId<T>>(String name, String generate, Class<T> cls, Function<String, T> parse,
            Function<byte[], T> fromBytes) {
    }

    static final List<Type<?>> TYPES = List.of(
        new Type<>("sno", "sno_generate()", Sno.class, Sno::parse, Sno::fromBytes),
        new Type<>("siq", "siq_generate('user')", Siq.class, Siq::parse, Siq::fromBytes),
        new Type<>("distributed_id", "distributed_id_generate()", DistributedId.class, DistributedId::parse,
            DistributedId::fromBytes),
        new Type<>("flaxid", "flaxid_generate()", FlaxId.class, FlaxId::parse, FlaxId::fromBytes),
        new Type<>("kuid96", "kuid96_generate()", Kuid96.class, Kuid96::parse, Kuid96::fromBytes));

    static Connection connect() throws Exception {
        Connection conn = Db.connect();
        Db.execute(conn, "SET client_min_messages = warning", "CREATE EXTENSION IF NOT EXISTS pg_flake");
        return conn;
    }

    @Test
    public void everyTypeRoundTripsAsParameterAndResultInTextAndBinary() throws Exception {
        try (Connection conn = connect()) {
            Map<String, Long> oids = PgFlake.register(conn);
            Check.equal(Set.of("sno", "siq", "distributed_id", "flaxid", "kuid96"), oids.keySet(), "registered");
            for (Type<?> type : TYPES) {
                roundTrip(conn, type);
            }
        }
    }

    private static <T extends FlakeId<T>> void roundTrip(Connection conn, Type<T> type) throws Exception {
        T value = type.parse().apply(Db.queryString(conn, "SELECT " + type.generate() + "::text"));
        List<Boolean> modes = new ArrayList<>();
        // prepareThreshold (5): from the 5th execution the statement is prepared on the
        // server, and from the 6th pgjdbc asks for binary results of the registered types.
        try (PreparedStatement st = conn.prepareStatement("SELECT ?, ?::text, " + type.name() + "_timestamp(?)")) {
            for (int i = 1; i <= 7; i++) {
                PgFlake.set(st, 1, value);
                PgFlake.set(st, 2, value);
                st.setObject(3, PgFlake.param(value));
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    Object object = rs.getObject(1);
                    Check.that(object instanceof PgFlakeObject, type.name() + " getObject is a PgFlakeObject: " + object);
                    PgFlakeObject<?> flake = (PgFlakeObject<?>) object;
                    Check.equal(value, flake.id(), type.name() + " getObject");
                    Check.equal(value, PgFlake.get(rs, 1, type.cls()), type.name() + " PgFlake.get");
                    Check.equal(value.toString(), rs.getString(1), type.name() + " getString");
                    Check.equal(value.toString(), rs.getString(2), type.name() + " the parameter's text");
                    Check.equal(value.time(), rs.getObject(3, OffsetDateTime.class).toInstant(), type.name() + " time");
                    modes.add(flake.arrivedInBinary());
                }
            }
        }
        Check.equal(Arrays.asList(false, false, false, false, false, true, true), modes, type.name() + " binary results");
    }

    @Test
    public void theCodecsAreByteExactAndOrderedLikeTheServer() throws Exception {
        try (Connection conn = connect()) {
            for (Type<?> type : TYPES) {
                agrees(conn, type);
            }
        }
    }

    private static <T extends FlakeId<T>> void agrees(Connection conn, Type<T> type) throws Exception {
        List<T> ordered = new ArrayList<>();
        String sql = "SELECT id::text, id::bytea, " + type.name() + "_timestamp(id) FROM (SELECT " + type.generate()
            + " AS id FROM generate_series(1, 300) UNION ALL SELECT id FROM (VALUES (" + type.name()
            + "_from_time('2031-05-08 23:03:34.976+00'))) v (id)) s ORDER BY s.id";
        try (PreparedStatement st = conn.prepareStatement(sql); ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                T value = type.parse().apply(rs.getString(1));
                Check.that(Arrays.equals(rs.getBytes(2), value.bytes()), type.name() + " bytes of " + value);
                Check.equal(rs.getString(1), type.fromBytes().apply(rs.getBytes(2)).toString(), type.name() + " text");
                Check.equal(rs.getObject(3, OffsetDateTime.class).toInstant(), value.time(), type.name() + " time");
                ordered.add(value);
            }
        }
        List<T> sorted = new ArrayList<>(ordered);
        sorted.sort(null);
        Check.equal(ordered, sorted, type.name() + " ORDER BY is compareTo's order");
        Check.equal(301, ordered.size(), type.name() + " values");
    }

    @Test
    public void bigintAndUuidFormatsDecodeLikeSql() throws Exception {
        try (Connection conn = connect();
                PreparedStatement st = conn.prepareStatement("SELECT s, (snowflake_parts(s)).*, k, (kuid64_parts(k)).*,"
                    + " u, (distributed_id128_parts(u)).* FROM (SELECT snowflake_generate() s, kuid64_generate() k,"
                    + " distributed_id128_generate() u FROM generate_series(1, 50)) g");
                ResultSet rs = st.executeQuery()) {
            int n = 0;
            while (rs.next()) {
                Snowflake.Parts s = Snowflake.parts(rs.getLong(1));
                Check.equal(rs.getObject(2, OffsetDateTime.class).toInstant(), s.time(), "snowflake time");
                Check.equal(List.of(rs.getInt(3), rs.getInt(4), rs.getInt(5)),
                    List.of(s.worker(), s.process(), s.sequence()), "snowflake fields");
                Kuid64.Parts k = Kuid64.parts(rs.getLong(6));
                Check.equal(rs.getObject(7, OffsetDateTime.class).toInstant(), k.time(), "kuid64 time");
                Check.equal(List.of(rs.getLong(8), rs.getLong(9), rs.getLong(10), rs.getInt(11)),
                    List.of(k.megaseconds(), k.seconds(), k.microseconds(), k.seq()), "kuid64 fields");
                DistributedId128 u = DistributedId128.of(rs.getObject(12, UUID.class));
                Check.equal(rs.getObject(13, OffsetDateTime.class).toInstant(), u.time(), "distributed_id128 time");
                Check.equal(rs.getBigDecimal(14).toBigIntegerExact(), u.random(), "distributed_id128 random");
                Check.equal(rs.getString(12), u.toString(), "uuid text");
                n++;
            }
            Check.equal(50, n, "rows");
        }
    }

    @Test
    public void unregisteredTextBytesAndBadInput() throws Exception {
        try (Connection conn = connect()) {
            String text = "brpk4q72xwf2m63l";
            try (PreparedStatement st = conn.prepareStatement("SELECT ?::sno, ?::sno::text, ?::sno::bytea, NULL::sno")) {
                for (int i = 1; i <= 3; i++) {
                    st.setString(i, text);
                }
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    Sno expected = Sno.parse(text);
                    Check.equal(expected, PgFlake.get(rs, 1, Sno.class), "a plain PGobject");
                    Check.equal(expected, PgFlake.get(rs, 2, Sno.class), "text");
                    Check.equal(expected, PgFlake.get(rs, 3, Sno.class), "bytea");
                    Check.equal(null, PgFlake.get(rs, 4, Sno.class), "NULL");
                }
            }
            // An unregistered PgSno parameter goes as its text with the type's name: no cast needed.
            Check.equal("39434", Db.queryString(conn, "SELECT sno_partition(?)", PgSno.of(text)), "sno_partition(?)");
            Check.equal("22P02", Db.sqlStateOf(() -> PgSno.of("BRPK4Q72XWF2M63L")), "upper case");
            Check.equal("22P02", Db.sqlStateOf(() -> Db.queryString(conn, "SELECT ?::sno", "not-a-sno")), "server");
            Check.equal("22P03", Db.sqlStateOf(() -> Db.queryString(conn, "SELECT ?::bytea::sno", new byte[9])), "bytes");
            Check.raises(IllegalArgumentException.class, () -> PgFlake.param(DistributedId128.fromTime(
                java.time.Instant.EPOCH)), "a uuid is no pg_flake type");
        }
    }
}
