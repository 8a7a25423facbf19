"""Leases for application generators on real servers (docs/sql-reference.md "Leases"):
they are rows of an extension configuration table, so they survive a
restart, reach a streaming standby and survive its promotion, and pg_dump
keeps them. (Grants, windows and errors: tests/regress/sql/leases.sql.)"""

from __future__ import annotations

import subprocess

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
