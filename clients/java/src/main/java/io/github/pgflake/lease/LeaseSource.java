package io.github.pgflake.lease;

import java.sql.SQLException;
import java.time.Duration;

/**
 * Where leases come from: the SQL functions over JDBC ({@link JdbcLeases}), or a stand-in in
 * tests. Each call is its own committed transaction; a source serializes its own calls (a
 * renewal on the generator's renewal thread, a release on the application's).
 */
public interface LeaseSource {
    /** {@code pg_flake_lease(format, holder, ttl)}. */
    Lease lease(String format, String holder, Duration ttl) throws SQLException;

    /** {@code pg_flake_renew(leaseId, ttl)}. */
    Lease renew(long leaseId, Duration ttl) throws SQLException;

    /** {@code pg_flake_release(leaseId, lastUsed)}; {@code lastUsedMicros} null when no ID was made. */
    boolean release(long leaseId, Long lastUsedMicros) throws SQLException;
}
