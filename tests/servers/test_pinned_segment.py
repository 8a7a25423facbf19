"""Shared mode without preloading (docs/operations.md "Shared mode"; issue
"no cliff"): one server-wide generator per format whatever the version, in
a DSM segment the first generating backend makes — named on 17+, pinned for
the server's run and recorded in ``pg_flake/pgsql_tmp_segment`` on 15 and
16. Every session counts on it; a crash restart (which destroys every DSM
segment while the postmaster lives on) and a restart leave a record whose
handle is stale, which is never used: the next backend makes a new
segment, above every ID issued before."""

import pytest

RECORD = "pg_flake/pgsql_tmp_segment"
FORMATS = {
    "sno": ("sno", "sno_generate()"),
    "siq": ("siq", "siq_generate('user')"),
    "snowflake": ("bigint", "snowflake_generate()"),
    "kuid64": ("bigint", "kuid64_generate()"),
    "kuid96": ("kuid96", "kuid96_generate()"),
}


def make_tables(server):
    for name, (type, generate) in FORMATS.items():
        server.sql(
            f"CREATE TABLE t_{name} (id {type} PRIMARY KEY DEFAULT {generate}, n int)",
            dbname="flake",
        )


def highest(server) -> dict[str, str]:
    return {
        name: server.value(f"SELECT max(id)::text FROM t_{name}", dbname="flake")
        for name in FORMATS
    }


def insert_above(server, before: dict[str, str], phase: int, rows: int = 2000) -> None:
    """``rows`` IDs of every format in phase ``phase``, each above every ID
    issued before (primary keys: none issued twice)."""
    for name, (type, _) in FORMATS.items():
        server.sql(
            f"INSERT INTO t_{name} (n) SELECT %s FROM generate_series(1, {rows})",
            (phase,),
            dbname="flake",
        )
        if before.get(name) is not None:
            above = server.value(
                f"SELECT min(id) > %s::{type} FROM t_{name} WHERE n = %s",
                (before[name], phase),
                dbname="flake",
            )
            assert above, f"{name}: phase {phase} has IDs at or below {before[name]}"


def record(server):
    path = server.data / RECORD
    return path.read_bytes() if path.exists() else None


@pytest.fixture
def server(servers, pg_major):
    server = servers("primary").init(preload=False)
    server.start()
    server.create_database()
    make_tables(server)
    return server


def test_sessions_share_one_counter_without_preloading(server, pg_major, figures):
    """Four sessions taking turns: their IDs strictly increase across them,
    and the state shows one generator (slot 0 of 1) with every ID issued."""
    conns = [server.connect("flake") for _ in range(4)]
    ids = []
    for turn in range(200):
        conn = conns[turn % 4]
        ids.append(conn.execute("SELECT sno_generate()::text").fetchone()[0])
    for conn in conns:
        conn.close()
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    mode, slot, nslots, issued = server.sql(
        "SELECT mode, slot, nslots, issued FROM pg_flake_generator_state() WHERE format = 'sno'",
        dbname="flake",
    )[0]
    assert (mode, slot, nslots) == ("shared", 0, 1) and issued >= 200
    if pg_major < 17:
        assert record(server) is not None, f"{RECORD} was not written"
    figures(f"without preloading on {pg_major}: 4 sessions x 50 sno IDs in turn, one counter")


def test_a_crash_restart_and_a_restart_make_a_new_segment(server, pg_major, figures):
    """A backend killed with -9 makes the postmaster restart every process
    and destroy every DSM segment; later a clean restart. Each time the
    record's handle is stale, and the next IDs of every format come from a
    new segment, above every ID issued before."""
    insert_above(server, {}, 1)
    first = record(server)
    victim = server.connect("flake")
    pid = victim.info.backend_pid
    victim.execute("SELECT sno_generate()")
    server.kill9_backend(pid)
    before = highest(server)
    insert_above(server, before, 2)
    after_crash = record(server)
    if pg_major < 17:
        assert after_crash != first, "the crash restart's backends used the old record"
    before = highest(server)
    server.restart()
    insert_above(server, before, 3)
    if pg_major < 17:
        assert record(server) not in (first, after_crash)
    figures(
        f"without preloading on {pg_major}: a crash restart and a restart,"
        " every format above its IDs before each"
    )
