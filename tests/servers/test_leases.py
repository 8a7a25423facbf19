"""Leases for application generators on real servers (docs/sql-reference.md "Leases"):
they are rows of an extension configuration table, so they survive a
restart, reach a streaming standby and survive its promotion, and pg_dump
keeps them. (Grants, windows and errors: tests/regress/sql/leases.sql.)"""

from __future__ import annotations

import subprocess
import threading

import psycopg
import pytest

from harness import PG_BIN


def lease(server, fmt: str, holder: str, ttl: str = "1 min"):
    """(lease_id, node, process, not_before, expires) of a new lease."""
    return server.sql(
        "SELECT lease_id, node, process, not_before, expires FROM pg_flake_lease(%s, %s, %s)",
        (fmt, holder, ttl),
        dbname="flake",
    )[0]


def renew(server, lease_id: int):
    """(lease_id, expires, server_time) after a renewal."""
    return server.sql(
        "SELECT lease_id, expires, server_time FROM pg_flake_renew(%s, '1 min')",
        (lease_id,),
        dbname="flake",
    )[0]


def sqlstate(server, query: str, params=None) -> str | None:
    try:
        server.sql(query, params, dbname="flake")
    except psycopg.Error as e:
        return e.sqlstate
    return None


@pytest.mark.parametrize("preload", [True, False])
def test_leases_survive_a_restart(servers, preload):
    """After a restart (and after a crash) a held lease renews, and its
    unit is not granted again: the next lease gets another unit."""
    server = servers("primary").init(preload=preload)
    server.start()
    server.create_database()
    first = lease(server, "snowflake", "before restart")
    server.restart()
    assert renew(server, first[0])[0] == first[0]
    second = lease(server, "snowflake", "after restart")
    assert (second[1], second[2]) != (first[1], first[2])
    server.kill9()
    server.start()
    assert renew(server, second[0])[0] == second[0]
    third = lease(server, "snowflake", "after crash")
    assert len({(x[1], x[2]) for x in (first, second, third)}) == 3
    states = server.sql(
        "SELECT lease_id, state FROM pg_flake_leases ORDER BY lease_id", dbname="flake"
    )
    assert states == [(first[0], "held"), (second[0], "held"), (third[0], "held")]


def test_leases_survive_failover_to_a_streaming_standby(servers):
    """A lease taken on the primary is on the standby once replayed; the
    standby refuses leases while in recovery (25006); once promoted, the
    lease renews there and a new lease gets another unit, after the
    holder's window."""
    primary = servers("primary").init()
    primary.start()
    primary.create_database()
    held = lease(primary, "sno", "app on the primary")
    ended = lease(primary, "sno", "released on the primary", "1 s")
    primary.sql("SELECT pg_flake_release(%s)", (ended[0],), dbname="flake")
    standby = servers("standby").clone_of(primary)
    standby.start()
    extra = lease(primary, "sno", "after the base backup")
    primary.wait_for_replay(standby)
    replayed = standby.value("SELECT count(*) FROM pg_flake_leases", dbname="flake")
    assert replayed == 3
    assert sqlstate(standby, "SELECT pg_flake_lease('sno', 'on a standby')") == "25006"
    assert sqlstate(standby, "SELECT pg_flake_renew(%s)", (held[0],)) == "25006"
    primary.stop()
    standby.promote()
    standby.wait_for("SELECT NOT pg_is_in_recovery()")
    renewed = renew(standby, held[0])
    assert renewed[0] == held[0] and renewed[1] > renewed[2]
    assert renew(standby, extra[0])[0] == extra[0]
    # The released unit (the only free one but the never-leased ones) is not
    # preferred over a never-leased one; nothing held is granted again.
    new = lease(standby, "sno", "app on the promoted standby")
    units = {(held[1], held[2]), (extra[1], extra[2])}
    assert (new[1], new[2]) not in units
    assert new[0] > extra[0]
    # The lease_id sequence went on from the primary's.
    assert sqlstate(standby, "SELECT pg_flake_renew(%s)", (ended[0],)) == "55000"


def test_pg_dump_keeps_leases(servers):
    """pg_dump of a database with leases, restored into a new database:
    the rows and the sequence are there, a held lease renews, and a new
    lease neither repeats a lease_id nor takes a held unit."""
    server = servers("primary").init()
    server.start()
    server.create_database()
    taken = [lease(server, "kuid96", f"app {i}") for i in range(3)]
    server.sql("SELECT pg_flake_release(%s)", (taken[2][0],), dbname="flake")
    before = server.sql(
        "SELECT lease_id, format, node, process, holder, not_before, expires, released, state"
        " FROM pg_flake_leases ORDER BY lease_id",
        dbname="flake",
    )
    dump = server.data.parent / "leases.dump"
    # As this process's user (the server trusts TCP connections as postgres).
    subprocess.run(
        [
            PG_BIN / "pg_dump",
            "-h",
            "127.0.0.1",
            "-p",
            str(server.port),
            "-U",
            "postgres",
            "-Fc",
            "-f",
            str(dump),
            "flake",
        ],
        check=True,
    )
    server.sql("CREATE DATABASE restored")
    restored = subprocess.run(
        [
            PG_BIN / "pg_restore",
            "-h",
            "127.0.0.1",
            "-p",
            str(server.port),
            "-U",
            "postgres",
            "-d",
            "restored",
            str(dump),
        ],
        capture_output=True,
        text=True,
    )
    assert restored.returncode == 0, restored
    after = server.sql(
        "SELECT lease_id, format, node, process, holder, not_before, expires, released, state"
        " FROM pg_flake_leases ORDER BY lease_id",
        dbname="restored",
    )
    assert after == before
    renewed = server.sql(
        "SELECT lease_id FROM pg_flake_renew(%s)", (taken[0][0],), dbname="restored"
    )
    assert renewed == [(taken[0][0],)]
    new = server.sql(
        "SELECT lease_id, node, process FROM pg_flake_lease('kuid96', 'after restore')",
        dbname="restored",
    )[0]
    assert new[0] > max(t[0] for t in taken)
    assert (new[1], new[2]) not in {(t[1], t[2]) for t in taken[:2]}
    dump.unlink(missing_ok=True)


# --- holders (issue 36) ------------------------------------------------------

GRANTED = (
    "pg_flake_lease(text, text, interval), pg_flake_renew(bigint, interval),"
    " pg_flake_release(bigint, timestamptz)"
)


def grantees(server, *roles: str) -> None:
    """Login roles with the lease functions, as a superuser grants them."""
    for role in roles:
        server.sql(f"CREATE ROLE {role} LOGIN", dbname="flake")
        server.sql(f"GRANT EXECUTE ON FUNCTION {GRANTED} TO {role}", dbname="flake")


def connect_as(server, role: str, **kw) -> psycopg.Connection:
    return psycopg.connect(
        host="127.0.0.1", port=server.port, user=role, dbname="flake", autocommit=True, **kw
    )


def failure(conn, query: str, params=None) -> psycopg.Error | None:
    """The error ``query`` fails with in ``conn``, or None."""
    try:
        conn.execute(query, params)
    except psycopg.Error as e:
        return e
    return None


def take_until_refused(conn, fmt: str, holder: str):
    """Leases of ``fmt`` until one is refused: the units received and the refusal."""
    units = []
    for n in range(300):
        try:
            row = conn.execute(
                "SELECT node, process FROM pg_flake_lease(%s, %s, '1 hour')", (fmt, f"{holder}-{n}")
            ).fetchone()
        except psycopg.Error as e:
            return units, e
        units.append(tuple(row))
    raise AssertionError(f"{holder}: never refused")


def test_only_the_holder_renews_or_releases_its_lease(servers):
    """Issue 36's reproduction: role lease_b released lease_a's lease with
    last_used '-infinity' and leased until it received lease_a's unit while
    lease_a's window ran for another hour. Every call of another role on a
    lease is refused (42501); a role takes at most half a format's units
    (pg_flake.lease_max_per_role: 16 of Snowflake's 32), so that neither
    lease_b nor lease_c, taking every unit it can, receives lease_a's."""
    server = servers("primary").init()
    server.start()
    server.create_database()
    grantees(server, "lease_a", "lease_b", "lease_c")
    a, b, c = (connect_as(server, r) for r in ("lease_a", "lease_b", "lease_c"))
    held = a.execute(
        "SELECT lease_id, node, process FROM pg_flake_lease('snowflake', 'a', '1 hour')"
    ).fetchone()
    for query in (
        "SELECT pg_flake_renew(%s)",
        "SELECT pg_flake_release(%s)",
        "SELECT pg_flake_release(%s, '-infinity')",
    ):
        error = failure(b, query, (held[0],))
        assert error is not None and error.sqlstate == "42501", (query, error)
        assert "held by role lease_a, not lease_b" in str(error)
    units_b, refused_b = take_until_refused(b, "snowflake", "b")
    assert (len(units_b), refused_b.sqlstate) == (16, "53400"), refused_b
    assert "pg_flake.lease_max_per_role" in str(refused_b)
    units_c, refused_c = take_until_refused(c, "snowflake", "c")
    assert (len(units_c), refused_c.sqlstate) == (15, "53400"), refused_c
    assert "every snowflake lease unit is held" in str(refused_c)
    assert (held[1], held[2]) not in set(units_b) | set(units_c)
    # The holder's role, in another session, renews and ends its lease;
    # only it may report the last use.
    with connect_as(server, "lease_a") as again:
        renewed = again.execute("SELECT lease_id FROM pg_flake_renew(%s, '1 hour')", (held[0],))
        assert renewed.fetchone() == (held[0],)
        released = again.execute("SELECT pg_flake_release(%s, now())", (held[0],)).fetchone()
        assert released == (True,)
    rows = server.sql(
        "SELECT holder_role, count(*) FROM pg_flake_leases GROUP BY 1 ORDER BY 1", dbname="flake"
    )
    assert rows == [("lease_a", 1), ("lease_b", 16), ("lease_c", 15)]
    for conn in (a, b, c):
        conn.close()


def test_a_superusers_forced_end_keeps_the_holders_window(servers):
    """A superuser may end another role's lease but not shorten its
    window: reporting a last use is refused (42501), the holder's next
    renewal is (55000, it stops at its window's end), and the unit's next
    holder starts at the old window's expiry (one unit only, so that it is
    the same unit)."""
    server = servers("primary").init("pg_flake.lease_nodes = 'kuid96=4294967295'")
    server.start()
    server.create_database()
    grantees(server, "lease_a", "lease_b")
    a, b = connect_as(server, "lease_a"), connect_as(server, "lease_b")
    held = a.execute(
        "SELECT lease_id, node, process, expires FROM pg_flake_lease('kuid96', 'a', '1 min')"
    ).fetchone()
    with server.connect("flake") as admin:
        error = failure(admin, "SELECT pg_flake_release(%s, now())", (held[0],))
        assert error is not None and error.sqlstate == "42501", error
        ended = admin.execute("SELECT pg_flake_release(%s)", (held[0],)).fetchone()
        assert ended == (True,)
    error = failure(a, "SELECT pg_flake_renew(%s)", (held[0],))
    assert error is not None and error.sqlstate == "55000", error
    successor = b.execute(
        "SELECT node, process, not_before FROM pg_flake_lease('kuid96', 'b', '1 min')"
    ).fetchone()
    assert successor[:2] == held[1:3]
    assert successor[2] >= held[3]
    a.close()
    b.close()


def test_a_session_holding_the_grant_lock_stalls_no_renewal(servers):
    """A grantee that took a lease inside a transaction it keeps open holds
    the grant lock: other grants wait for it at most lock_timeout (5 s)
    and fail with 55P03, but renewals and releases do not wait for it
    (0.3.0 locked the whole table for every call). statement_timeout only
    turns a stall into a failure."""
    server = servers("primary").init()
    server.start()
    server.create_database()
    grantees(server, "lease_a", "lease_b", "lease_c")
    a = connect_as(server, "lease_a", options="-c statement_timeout=30s")
    held = a.execute("SELECT lease_id FROM pg_flake_lease('sno', 'a')").fetchone()[0]
    b = connect_as(server, "lease_b")
    b.execute("BEGIN")
    b.execute("SELECT lease_id FROM pg_flake_lease('sno', 'b')")
    try:
        assert a.execute("SELECT lease_id FROM pg_flake_renew(%s)", (held,)).fetchone() == (held,)
        assert a.execute("SELECT pg_flake_release(%s)", (held,)).fetchone() == (True,)
        c = connect_as(server, "lease_c", options="-c statement_timeout=30s")
        error = failure(c, "SELECT pg_flake_lease('sno', 'c')")
        assert error is not None and error.sqlstate == "55P03", error
        assert "grant lock" in str(error)
    finally:
        b.execute("COMMIT")
    assert c.execute("SELECT count(*) FROM pg_flake_lease('sno', 'c')").fetchone() == (1,)
    for conn in (a, b, c):
        conn.close()


def test_a_grant_at_repeatable_read_never_takes_a_unit_granted_meanwhile(servers):
    """0.3.0 granted one unit twice: a grant at REPEATABLE READ that waited
    for another grant's lock chose from its snapshot, which did not show
    that grant once it committed. The grant lock's row now makes it fail
    with 40001 instead, and its retry gets the other unit."""
    server = servers("primary").init(
        "pg_flake.lease_nodes = 'kuid96=4294967294-4294967295'", "pg_flake.lease_max_per_role = 2"
    )
    server.start()
    server.create_database()
    first = server.connect("flake")
    first.execute("BEGIN")
    unit = first.execute("SELECT node FROM pg_flake_lease('kuid96', 'first')").fetchone()[0]
    second = server.connect("flake")
    second.execute("SET default_transaction_isolation = 'repeatable read'")
    pid = second.info.backend_pid
    outcome: list = []

    def grant():
        try:
            outcome.append(
                second.execute("SELECT node FROM pg_flake_lease('kuid96', 'second')").fetchone()
            )
        except psycopg.Error as e:
            outcome.append(e)

    thread = threading.Thread(target=grant)
    thread.start()
    server.wait_for(f"SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = {pid}")
    first.execute("COMMIT")
    thread.join(30)
    assert len(outcome) == 1
    assert isinstance(outcome[0], psycopg.errors.SerializationFailure), outcome
    retried = second.execute("SELECT node FROM pg_flake_lease('kuid96', 'second')").fetchone()[0]
    assert retried != unit
    first.close()
    second.close()
