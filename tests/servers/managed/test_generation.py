"""Generation without shared memory (docs/managed.md "Generation without shared memory"): every
coordination-based format of the domain edition, on its counters, under
concurrent sessions, a kill -9 of the server, restarts with the clock behind
(within pg_flake.max_clock_lag and beyond it), live steps of the clock, a
standby, and a failover to a synchronous standby whose clock lags: no ID
twice, each session's IDs increasing, refusals with the native SQLSTATEs.
The node settings as placeholders (pg_flake.node, the format settings,
pg_flake.lease_nodes), read by generation and pg_flake_node()."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from managed_lib import SCHEMA, connect, create_database, install, sqlstate_of

# (format, the generator as bytea): the five coordination-based formats.
FORMATS = [
    ("sno", "sno_generate()::bytea"),
    ("siq", "siq_generate('message')::bytea"),
    ("snowflake", "int8send(snowflake_generate())"),
    ("kuid64", "int8send(kuid64_generate())"),
    ("kuid96", "kuid96_generate()::bytea"),
]


def ids_tables(conn) -> None:
    conn.execute(f"SET search_path = {SCHEMA}, public")
    for fmt, _ in FORMATS:
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS public.ids_{fmt} (id bytea PRIMARY KEY, session int, n int, made_at timestamptz DEFAULT clock_timestamp())"
        )


def insert(conn, fmt: str, call: str, rows: int, session: int = 0) -> None:
    conn.execute(
        f"INSERT INTO public.ids_{fmt} (id, session, n) SELECT {call}, %s, g FROM generate_series(1, %s) g",
        (session, rows),
    )


def check_unique_increasing(conn, fmt: str) -> int:
    """Every ID once (the primary key saw to that), and each session's IDs
    increasing in the order it made them. Returns the count."""
    decreasing = conn.execute(
        f"""SELECT count(*) FROM (
                SELECT id < lag(id) OVER (PARTITION BY session ORDER BY n) AS down
                FROM public.ids_{fmt}) t WHERE down"""
    ).fetchone()[0]
    assert decreasing == 0, f"{fmt}: {decreasing} IDs below their session's previous one"
    return conn.execute(f"SELECT count(*) FROM public.ids_{fmt}").fetchone()[0]


def edition_server(servers, name: str, *conf: str, clock: float | None = None):
    server = servers(name)
    server.init(*conf, preload=False)
    if clock is not None:
        server.set_clock(clock)
    server.start()
    create_database(server, "gen", "psql")
    with server.connect("gen") as conn:
        ids_tables(conn)
    return server


def test_concurrent_sessions(cluster, figures):
    """Eight sessions at once, each INSERT ... SELECT by the generator: every
    ID distinct, each session's increasing; the counters' slow path (one
    advance per unit) taken by whichever session finds the unit passed."""
    create_database(cluster, "gen_concurrent", "psql")
    with cluster.connect("gen_concurrent") as conn:
        ids_tables(conn)
    sessions, rows = 8, 2000
    errors: list[BaseException] = []

    def work(session: int) -> None:
        try:
            with cluster.connect("gen_concurrent") as conn:
                conn.execute(f"SET search_path = {SCHEMA}, public")
                for fmt, call in FORMATS:
                    insert(conn, fmt, call, rows, session)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    started = time.monotonic()
    threads = [threading.Thread(target=work, args=(s,)) for s in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    assert not errors, errors[:3]
    with cluster.connect("gen_concurrent") as conn:
        for fmt, _ in FORMATS:
            assert check_unique_increasing(conn, fmt) == sessions * rows
    figures(
        f"{sessions} sessions x {rows} IDs x {len(FORMATS)} formats at once: all distinct, each session increasing ({elapsed:.1f} s)"
    )


@pytest.mark.long
def test_kill_and_restarts_with_the_clock_behind(servers, figures):
    """kill -9 while four sessions generate; restarts with the clock 5 s
    behind (logical time: above every committed ID) and 2 minutes behind
    (beyond pg_flake.max_clock_lag: 55000 until it is raised)."""
    server = edition_server(servers, "crash", clock=0)
    stop = threading.Event()

    def writer(session: int) -> None:
        try:
            with server.connect("gen") as conn:
                conn.execute(f"SET search_path = {SCHEMA}, public")
                n = 0
                while not stop.is_set():
                    for fmt, call in FORMATS:
                        conn.execute(
                            f"INSERT INTO public.ids_{fmt} (id, session, n) SELECT {call}, %s, %s + g FROM generate_series(1, 50) g",
                            (session, n),
                        )
                    n += 50
        except psycopg.OperationalError:
            pass  # the server went away

    threads = [threading.Thread(target=writer, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    time.sleep(3)
    server.kill9()
    stop.set()
    for t in threads:
        t.join()
    with_clock = {}
    for behind in (5, 120):
        server.set_clock(-behind)
        server.start()
        with server.connect("gen") as conn:
            conn.execute(f"SET search_path = {SCHEMA}, public")
            before = {
                fmt: conn.execute(f"SELECT count(*) FROM public.ids_{fmt}").fetchone()[0]
                for fmt, _ in FORMATS
            }
            for fmt, call in FORMATS:
                state = sqlstate_of(
                    conn,
                    f"INSERT INTO public.ids_{fmt} (id, session, n) SELECT {call}, 10, g FROM generate_series(1, 2000) g",
                )
                if behind < 60:
                    assert state is None, f"{fmt}: {state}"
                else:
                    assert state == "55000", f"{fmt}: {state}"
                    conn.execute("SET pg_flake.max_clock_lag = '10min'")
                    insert(conn, fmt, call, 2000, 11)
                    conn.execute("RESET pg_flake.max_clock_lag")
                # Above every ID issued before the restart.
                below = conn.execute(
                    f"""SELECT count(*) FROM public.ids_{fmt} new
                        WHERE new.session >= 10 AND new.id <= (SELECT old.id FROM public.ids_{fmt} old WHERE old.session < 10 ORDER BY old.id DESC LIMIT 1)"""
                ).fetchone()[0]
                assert below == 0, f"{fmt}: {below} new IDs not above the old ones"
                conn.execute(
                    f"UPDATE public.ids_{fmt} SET session = session - 100 WHERE session >= 10"
                )
            with_clock[behind] = sum(before.values())
        server.stop("immediate")
    figures(
        f"kill -9 under 4 writers ({with_clock[5]} rows), restart 5 s behind: above every ID; 120 s behind: 55000, then above with max_clock_lag 10min"
    )


@pytest.mark.long
def test_live_clock_steps(servers, figures):
    """The clock stepped back 10 s and then forward 30 s under four sessions
    generating (no duplicate, each session increasing), then back 2 min (the
    bound: 55000)."""
    server = edition_server(servers, "steps", clock=0)
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer(session: int) -> None:
        try:
            with server.connect("gen") as conn:
                conn.execute(f"SET search_path = {SCHEMA}, public")
                n = 0
                while not stop.is_set():
                    for fmt, call in FORMATS:
                        conn.execute(
                            f"INSERT INTO public.ids_{fmt} (id, session, n) SELECT {call}, %s, %s + g FROM generate_series(1, 100) g",
                            (session, n),
                        )
                    n += 100
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    server.set_clock(-10)
    time.sleep(2)
    server.set_clock(30)
    time.sleep(1.5)
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    counts = {}
    with server.connect("gen") as conn:
        for fmt, _ in FORMATS:
            counts[fmt] = check_unique_increasing(conn, fmt)
    server.set_clock(-90)
    with server.connect("gen") as conn:
        conn.execute(f"SET search_path = {SCHEMA}, public")
        for fmt, call in FORMATS:
            assert sqlstate_of(conn, f"SELECT {call}") == "55000", fmt
        message = conn.execute("SELECT 1").fetchone()
        assert message
    figures(
        f"steps -10 s, +30 s under 4 writers ({sum(counts.values())} IDs): distinct, increasing; -90 s: 55000"
    )


@pytest.mark.long
def test_standby_and_synchronous_failover(servers, figures):
    """A standby cannot generate (25006: its sequences are read-only). A
    synchronous standby promoted after its primary's kill -9, its clock 10 s
    behind, goes on above every ID the primary's clients had committed."""
    primary = edition_server(servers, "primary", clock=0)
    standby = servers("standby")
    standby.clone_of(primary)
    standby.set_clock(-10)
    standby.start()
    primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
    primary.sql("SELECT pg_reload_conf()")
    primary.wait_for("SELECT count(*) = 1 FROM pg_stat_replication WHERE sync_state = 'sync'")
    with primary.connect("gen") as conn:
        conn.execute(f"SET search_path = {SCHEMA}, public")
        for fmt, call in FORMATS:
            insert(conn, fmt, call, 3000)
    primary.wait_for_replay(standby)
    with standby.connect("gen") as conn:
        conn.execute(f"SET search_path = {SCHEMA}, public")
        for fmt, call in FORMATS:
            assert sqlstate_of(conn, f"SELECT {call}") == "25006", fmt
        problems = conn.execute(
            "SELECT count(*) FROM pg_flake_node() WHERE problem LIKE '%recovery%'"
        ).fetchone()[0]
        assert problems == 5
    # IDs the clients saw committed just before the primary dies.
    seen: dict[str, bytes] = {}
    with primary.connect("gen") as conn:
        conn.execute(f"SET search_path = {SCHEMA}, public")
        for fmt, call in FORMATS:
            seen[fmt] = conn.execute(
                f"INSERT INTO public.ids_{fmt} (id, session, n) SELECT {call}, 1, 1 RETURNING id"
            ).fetchone()[0]
    primary.kill9()
    standby.promote()
    standby.wait_for("SELECT NOT pg_is_in_recovery()")
    with standby.connect("gen") as conn:
        conn.execute(f"SET search_path = {SCHEMA}, public")
        for fmt, call in FORMATS:
            new = conn.execute(
                f"INSERT INTO public.ids_{fmt} (id, session, n) SELECT {call}, 2, g FROM generate_series(1, 1000) g RETURNING id"
            ).fetchall()
            assert min(r[0] for r in new) > seen[fmt], fmt
            assert check_unique_increasing(conn, fmt) == 3000 + 1 + 1000
    figures(
        "standby: 25006 for every format; synchronous failover with the clock 10 s behind: above every committed ID"
    )


def test_node_settings(cluster, figures):
    """The node from the placeholder settings (no library): pg_flake.node in
    every format's node field, the format settings over it, a node wider than
    a field or reserved for leases refused (55000), pg_flake_node()."""
    create_database(cluster, "gen_nodes", "psql")
    with cluster.connect("gen_nodes") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        conn.execute("SET pg_flake.node = 7")
        row = conn.execute(
            """SELECT sno_partition(sno_generate()) >> 8, siq_domain_hash(siq_generate('user')) >> 24,
                      (snowflake_generate() >> 17) & 31, kuid96_node(kuid96_generate())"""
        ).fetchone()
        assert row == (7, 7, 7, 7)
        conn.execute(
            "SET pg_flake.sno_node = 9; SET pg_flake.snowflake_worker = 3; SET pg_flake.kuid_node = 'uid@127.0.0.1'"
        )
        row = conn.execute(
            "SELECT sno_partition(sno_generate()) >> 8, (snowflake_generate() >> 17) & 31, kuid96_node(kuid96_generate())"
        ).fetchone()
        assert row == (9, 3, 65742641)
        nodes = conn.execute(
            "SELECT format, node, source, problem FROM pg_flake_node() ORDER BY format"
        ).fetchall()
        assert ("sno", 9, "pg_flake.sno_node", None) in nodes
        conn.execute(
            "RESET pg_flake.sno_node; RESET pg_flake.snowflake_worker; RESET pg_flake.kuid_node"
        )
        conn.execute("SET pg_flake.node = 255")
        assert sqlstate_of(conn, "SELECT sno_generate()") == "55000"  # reserved for sno leases
        conn.execute("SET pg_flake.node = 40")
        assert sqlstate_of(conn, "SELECT snowflake_generate()") == "55000"  # wider than 5 bits
        assert sqlstate_of(conn, "SELECT sno_generate()") is None
        conn.execute("SET pg_flake.lease_nodes = 'sno=30-50'")
        assert sqlstate_of(conn, "SELECT sno_generate()") == "55000"
        conn.execute("SET pg_flake.lease_nodes = 'sno=x'")
        assert sqlstate_of(conn, "SELECT sno_generate()") == "22023"
        conn.execute("RESET pg_flake.lease_nodes; SET pg_flake.node = 'seven'")
        assert sqlstate_of(conn, "SELECT sno_generate()") == "22023"
    # Beside the native library (a migration): its format settings are real
    # ones whose default 0 means unset, so pg_flake.node still applies; a
    # format setting set to 0 explicitly overrides it.
    create_database(cluster, "gen_nodes_native", "psql", native=True)
    with cluster.connect("gen_nodes_native") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        conn.execute("LOAD 'pg_flake'")
        assert conn.execute("SHOW pg_flake.sno_node").fetchone()[0] == "0"
        conn.execute("SET pg_flake.node = 7")
        row = conn.execute(
            """SELECT sno_partition(sno_generate()) >> 8, siq_domain_hash(siq_generate('user')) >> 24,
                      (snowflake_generate() >> 17) & 31, kuid96_node(kuid96_generate())"""
        ).fetchone()
        assert row == (7, 7, 7, 7)
        conn.execute("SET pg_flake.sno_node = 0; SET pg_flake.snowflake_worker = 0")
        row = conn.execute(
            "SELECT sno_partition(sno_generate()) >> 8, (snowflake_generate() >> 17) & 31"
        ).fetchone()
        assert row == (0, 0)
    figures(
        "pg_flake.node and the format settings in every node field, also beside the native library;"
        " 55000 for wide and reserved nodes, 22023 for bad values"
    )


def test_time_of_ids(cluster, figures):
    """Each ID's unit holds an instant of its call: between clock readings
    taken before and after it."""
    create_database(cluster, "gen_time", "psql")
    with cluster.connect("gen_time") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        checks = {
            "sno": "sno_timestamp(sno_generate())",
            "siq": "siq_timestamp(siq_generate('user'))",
            "snowflake": "snowflake_timestamp(snowflake_generate())",
            "kuid64": "kuid64_timestamp(kuid64_generate())",
            "kuid96": "kuid96_timestamp(kuid96_generate())",
        }
        units = {
            "sno": "4 ms",
            "siq": "16 microseconds",
            "snowflake": "1 ms",
            "kuid64": "1024 microseconds",
            "kuid96": "1024 microseconds",
        }
        for fmt, call in checks.items():
            outside = conn.execute(
                f"""SELECT count(*) FROM (
                        SELECT clock_timestamp() AS before, {call} AS t, clock_timestamp() AS after
                        FROM generate_series(1, 3000)) s
                    WHERE t > after OR t + interval '{units[fmt]}' <= before"""
            ).fetchone()[0]
            assert outside == 0, f"{fmt}: {outside} IDs outside their call"
    figures("3000 IDs per format: each one's unit holds an instant of its call")


@pytest.mark.parametrize("edition", ["psql"])
def test_counters_survive_reinstall_guard(cluster, edition):
    """psql -f run again over an installed edition changes nothing: the
    counters keep their values (a fresh install would start them at 0)."""
    create_database(cluster, "gen_rerun", edition)
    with cluster.connect("gen_rerun") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        before = conn.execute("SELECT sno_generate()::bytea").fetchone()[0]
    install(cluster, "gen_rerun", edition)
    with connect(cluster, "gen_rerun") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        assert conn.execute("SELECT sno_generate()::bytea").fetchone()[0] > before
