"""Leases in pg_flake_sql (docs/managed.md "Leases"): the Python package's
LeasedGenerator (python/pg_flake/lease.py), unchanged, against the edition's
pg_flake_lease, pg_flake_renew and pg_flake_release, for every leasable
format: two holders get different units, their IDs carry the reserved nodes,
they renew through a short TTL and release; with the server generating at the
same time into the same tables, no ID twice. A lease belongs to its role: the
wrong role's renewal is 42501, an ended lease's renewal 55000."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from managed_lib import REPO, SCHEMA, create_database, sqlstate_of

sys.path.insert(0, str(REPO / "python"))
from pg_flake.lease import LeasedGenerator  # noqa: E402

# (format, the server's generator as bytea). Every leased format: kuid64 has no node
# field and is refused a lease (managed/src/leases.sql), as by the native extension.
FORMATS = [
    ("sno", "sno_generate()::bytea"),
    ("siq", "siq_generate('user')::bytea"),
    ("snowflake", "int8send(snowflake_generate())"),
    ("kuid96", "kuid96_generate()::bytea"),
]


def as_bytes(fmt: str, value) -> bytes:
    if fmt == "snowflake":
        return int(value).to_bytes(8, "big")
    return bytes(value)


@pytest.fixture(scope="module")
def leases_db(cluster):
    create_database(cluster, "leases", "psql")
    cluster.sql("DROP ROLE IF EXISTS holder; DROP ROLE IF EXISTS other")
    cluster.sql("CREATE ROLE holder LOGIN; CREATE ROLE other LOGIN")
    functions = (
        f"{SCHEMA}.pg_flake_lease(text, text, interval), {SCHEMA}.pg_flake_renew(bigint, interval), "
        f"{SCHEMA}.pg_flake_release(bigint, timestamptz)"
    )
    cluster.sql(
        f"GRANT USAGE ON SCHEMA {SCHEMA} TO holder, other; GRANT EXECUTE ON FUNCTION {functions} TO holder, other;"
        f"ALTER ROLE holder SET search_path = {SCHEMA}, public; ALTER ROLE other SET search_path = {SCHEMA}, public",
        dbname="leases",
    )
    for fmt, _ in FORMATS:
        cluster.sql(
            f"CREATE TABLE public.ids_{fmt} (id bytea PRIMARY KEY, source text)", dbname="leases"
        )
    cluster.sql("GRANT INSERT ON ALL TABLES IN SCHEMA public TO holder", dbname="leases")
    return cluster


def conninfo(server, user: str) -> str:
    return f"host=127.0.0.1 port={server.port} dbname=leases user={user}"


@pytest.mark.long
def test_leased_generators_beside_the_server(leases_db, figures):
    """Every leasable format at once (the holders' TTL is waited for once):
    two holders per format, the server generating each format meanwhile."""
    server = leases_db
    # A TTL of 3 s: the holders renew at half of it, also on a loaded machine.
    ttl = 3.0
    made: dict[tuple[str, str], list[bytes]] = {}
    leases: dict[tuple[str, str], object] = {}
    errors: list[BaseException] = []
    stop = threading.Event()

    def holder(fmt: str, name: str) -> None:
        try:
            with LeasedGenerator.take(
                conninfo(server, "holder"), fmt, f"test-{fmt}-{name}", ttl
            ) as gen:
                leases[fmt, name] = gen.lease
                ids = made.setdefault((fmt, name), [])
                while not stop.is_set():
                    ids.append(as_bytes(fmt, gen.generate()))
                    if len(ids) % 50 == 0:
                        # Enough IDs (a few thousand a second), and the other
                        # holders' turn (one GIL).
                        time.sleep(0.01)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [
        threading.Thread(target=holder, args=(fmt, n)) for fmt, _ in FORMATS for n in ("a", "b")
    ]
    for t in threads:
        t.start()
    # The server generates into the same tables meanwhile, for longer than
    # the TTL: the holders renew.
    with server.connect("leases") as conn:
        conn.execute(f"SET search_path = {SCHEMA}, public")
        deadline = time.monotonic() + 2.2 * ttl
        while time.monotonic() < deadline:
            for fmt, server_call in FORMATS:
                conn.execute(
                    f"INSERT INTO public.ids_{fmt} SELECT {server_call}, 'server' FROM generate_series(1, 100)"
                )
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors
    reserved = {
        "sno": (255, 255),
        "siq": (255, 255),
        "snowflake": (31, 31),
        "kuid96": (4294967040, 4294967295),
    }
    lines = []
    for fmt, _ in FORMATS:
        lease_a, lease_b = leases[fmt, "a"], leases[fmt, "b"]
        assert (lease_a.node, lease_a.process) != (lease_b.node, lease_b.process)
        assert reserved[fmt][0] <= lease_a.node <= reserved[fmt][1]
        with server.connect("leases") as conn:
            with conn.cursor() as cur:
                with cur.copy(f"COPY public.ids_{fmt} (id, source) FROM STDIN") as copy:
                    for name in ("a", "b"):
                        for i in made[fmt, name]:
                            copy.write_row((i, name))
            counts = dict(
                conn.execute(
                    f"SELECT source, count(*) FROM public.ids_{fmt} GROUP BY source"
                ).fetchall()
            )
            states = dict(
                conn.execute(
                    f"SELECT lease_id, state FROM {SCHEMA}.pg_flake_leases WHERE lease_id IN (%s, %s)",
                    (lease_a.lease_id, lease_b.lease_id),
                ).fetchall()
            )
            renewals = conn.execute(
                f"SELECT sum(renewals) FROM {SCHEMA}.pg_flake_lease_grants WHERE lease_id IN (%s, %s)",
                (lease_a.lease_id, lease_b.lease_id),
            ).fetchone()[0]
        assert states == {lease_a.lease_id: "released", lease_b.lease_id: "released"}
        assert renewals >= 2, f"{fmt}: {renewals} renewals"
        lines.append(
            f"{fmt}: 2 Python holders ({counts.get('a', 0)} + {counts.get('b', 0)} IDs, {renewals} renewals)"
            f" and the server ({counts.get('server', 0)} IDs) into one primary key: no ID twice"
        )
    for line in lines:
        figures(line)


def test_roles_and_ended_leases(leases_db):
    server = leases_db
    with server.connect("leases") as admin:
        lease_id = None
        from managed_lib import connect

        with connect(server, "leases", "holder") as conn:
            lease_id = conn.execute(
                "SELECT lease_id FROM pg_flake_lease('sno', 'roles', '2 s')"
            ).fetchone()[0]
        with connect(server, "leases", "other") as conn:
            assert sqlstate_of(conn, "SELECT * FROM pg_flake_renew(%s)", (lease_id,)) == "42501"
            assert sqlstate_of(conn, "SELECT pg_flake_release(%s, now())", (lease_id,)) == "42501"
            assert sqlstate_of(conn, "SELECT * FROM pg_flake_lease('kuid64', 'x')") == "22023"
        with connect(server, "leases", "holder") as conn:
            assert conn.execute("SELECT pg_flake_release(%s)", (lease_id,)).fetchone()[0] is True
            assert sqlstate_of(conn, "SELECT * FROM pg_flake_renew(%s)", (lease_id,)) == "55000"
        # The server refuses a node reserved for leases.
        admin.execute(f"SET search_path = {SCHEMA}; SET pg_flake.node = 255")
        assert sqlstate_of(admin, "SELECT sno_generate()") == "55000"


@pytest.mark.long
def test_lease_across_a_synchronous_failover(servers, figures):
    """A lease granted on a primary (its commit confirmed by the synchronous
    standby), the primary killed, the standby promoted: the next lease of the
    same unit starts no earlier than the first one's window ends."""
    from managed_lib import connect

    primary = servers("lease-primary")
    primary.init(preload=False)
    primary.start()
    create_database(primary, "leases", "psql")
    standby = servers("lease-standby")
    standby.clone_of(primary)
    standby.start()
    primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
    primary.sql("SELECT pg_reload_conf()")
    primary.wait_for("SELECT count(*) = 1 FROM pg_stat_replication WHERE sync_state = 'sync'")
    primary.sql("ALTER DATABASE leases SET pg_flake.lease_nodes = 'sno=255'")
    with connect(primary, "leases") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        first = conn.execute(
            "SELECT lease_id, node, process, expires FROM pg_flake_lease('sno', 'before', '30 s')"
        ).fetchone()
    primary.kill9()
    standby.promote()
    standby.wait_for("SELECT NOT pg_is_in_recovery()")
    with connect(standby, "leases") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        rows = conn.execute(
            "SELECT lease_id, node, process, not_before FROM pg_flake_lease('sno', 'after', '30 s')"
        ).fetchone()
    # A different lease; whatever unit it has, its window starts at or
    # after the first's end (the fence), since the timeline changed.
    assert rows[0] != first[0]
    assert rows[3] >= first[3], (first, rows)
    figures(
        "lease before a synchronous failover: the promoted standby's next grant starts at the fence (the first window's end)"
    )
