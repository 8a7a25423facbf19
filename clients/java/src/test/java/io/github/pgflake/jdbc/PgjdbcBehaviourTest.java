package io.github.pgflake.jdbc;

import io.github.pgflake.Sno;
import io.github.pgflake.testing.Check;
import io.github.pgflake.testing.Db;
import io.github.pgflake.testing.ServerTest;
import io.github.pgflake.testing.Test;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.util.PGobject;

/**
 * What pgjdbc does with pg_flake's types, as clients/java/README.md describes it (these were the
 * recipe's checks): parameters without a cast, stringtype=unspecified, binaryTransferEnable
 * without a registered class, and the OIDs a connection keeps after DROP/CREATE EXTENSION.
 * Drops and creates pg_flake in the test database.
 */
@ServerTest
public class PgjdbcBehaviourTest {
    static final String SNO = "brpk4q72xwf2m63l";

    static PGobject pgObject(String type, String text) throws Exception {
        PGobject object = new PGobject();
        object.setType(type);
        object.setValue(text);
        return object;
    }

    @Test
    public void parametersNeedACastAnUntypedValueOrAnObject() throws Exception {
        try (Connection conn = JdbcTypesTest.connect()) {
            Check.equal("42883", Db.sqlStateOf(() -> Db.queryString(conn, "SELECT sno_timestamp(?)", SNO)),
                "setString without a cast: varchar");
            try (PreparedStatement st = conn.prepareStatement("SELECT sno_timestamp(?)")) {
                st.setObject(1, SNO, Types.OTHER);
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    Check.equal("2031-05-08T23:03:34.976Z", rs.getObject(1, OffsetDateTime.class).toInstant().toString(),
                        "Types.OTHER");
                }
            }
            Check.equal("39434", Db.queryString(conn, "SELECT sno_partition(?)", pgObject("sno", SNO)), "PGobject");
            try (Connection unspecified = Db.connect("stringtype", "unspecified")) {
                Check.equal("39434", Db.queryString(unspecified, "SELECT sno_partition(?)", SNO),
                    "stringtype=unspecified");
                // alphanumeric_encode has bigint, uuid and distributed_id forms.
                Check.equal("42725", Db.sqlStateOf(() -> Db.queryString(unspecified, "SELECT alphanumeric_encode(?)",
                    "1088824355131185736905670087")), "overloads become ambiguous");
            }
        }
    }

    @Test
    public void binaryTransferWithoutAClassLosesTheText() throws Exception {
        Map<String, Long> oids;
        try (Connection conn = JdbcTypesTest.connect()) {
            oids = PgFlake.register(conn);
        }
        // The property is read when connecting: the OIDs come from another connection first.
        try (Connection binary = Db.connect("binaryTransferEnable", String.valueOf(oids.get("sno")))) {
            List<String> seen = new ArrayList<>();
            byte[] bytes = null;
            try (PreparedStatement st = binary.prepareStatement("SELECT ?::sno")) {
                for (int i = 1; i <= 7; i++) {
                    st.setString(1, SNO);
                    try (ResultSet rs = st.executeQuery()) {
                        rs.next();
                        seen.add(String.valueOf(rs.getString(1)));
                        bytes = rs.getBytes(1);
                        if (i == 7) {
                            Check.equal(Sno.parse(SNO), PgFlake.get(rs, 1, Sno.class), "PgFlake.get reads the bytes");
                        }
                    }
                }
            }
            Check.equal(Arrays.asList(SNO, SNO, SNO, SNO, SNO, "null", "null"), seen, "getString");
            Check.equal("4e6f2160a0ff9a0a1033", HexFormat.of().formatHex(bytes), "getBytes");
        }
    }

    @Test
    public void afterDropAndCreateExtensionANewConnectionIsNeeded() throws Exception {
        try (Connection conn = JdbcTypesTest.connect(); Connection typed = JdbcTypesTest.connect()) {
            Map<String, Long> before = PgFlake.register(typed);
            Check.equal("39434", Db.queryString(typed, "SELECT sno_partition(?)", PgSno.of(SNO)), "before");
            try (Connection other = Db.connect()) {
                Db.execute(other, "SET client_min_messages = warning", "DROP EXTENSION pg_flake CASCADE",
                    "CREATE EXTENSION pg_flake");
            }
            Map<String, Long> after = PgFlake.register(conn);
            Check.that(!after.get("sno").equals(before.get("sno")), "new OIDs");
            // pgjdbc caches name -> OID per connection and sends that OID with an object parameter.
            Check.equal("XX000", Db.sqlStateOf(() -> Db.queryString(typed, "SELECT sno_partition(?)", PgSno.of(SNO))),
                "an object parameter on the old connection");
            PgFlake.register(typed);
            Check.equal("XX000", Db.sqlStateOf(() -> Db.queryString(typed, "SELECT sno_partition(?)", PgSno.of(SNO))),
                "registering again on the old connection does not help");
            Check.equal(SNO, Db.queryString(typed, "SELECT ?::sno", SNO), "casts carry no OID");
            try (Connection renewed = Db.connect()) {
                PgFlake.register(renewed);
                Check.equal("39434", Db.queryString(renewed, "SELECT sno_partition(?)", PgSno.of(SNO)), "new connection");
            }
        }
    }
}
