"""failover: a streaming standby whose clock lags 10 s: it refuses the
coordination-based formats (25006) but not the random ones, and generates
with a pg_flake.node of its own (docs/operations.md "Standbys and
failover"); then the primary is killed mid-generation and the standby
promoted: no ID at or below any the primary issued. Asynchronous, then
synchronous replication; preloaded only (a standby learns its primary's
marks from the WAL, which only a preloaded primary writes). ``-k failover``
runs this part alone (``-k "failover and not asynchronous"`` the
synchronous one)."""

import threading
import time

import psycopg
import pytest
from clock_lib import (
    DB,
    FORMATS,
    RANDOM_GENERATORS,
    alter_system,
    check_above,
    check_lead,
    check_log,
    clock_server,
    compare,
    every,
    generate,
    start_generating,
    table,
    try_all,
    value,
    wait_for_setting,
)


@pytest.mark.parametrize("sync", ["asynchronous", "synchronous"])
def test_failover(servers, sync, figures, tmp_path):
    primary = clock_server(servers, "primary", "preloaded")
    # The standby: a base backup of the primary, started 10 s behind.
    standby = servers("standby").clone_of(primary)
    standby.set_clock(-10)
    standby.start()
    figures(
        f"failover ({sync} replication, preloaded): primary 127.0.0.1:{primary.port}"
        f" (real clock), standby 127.0.0.1:{standby.port} (clock 10 s behind)"
    )
    replication_streams(primary, standby, sync, figures)
    standby_refuses_then_generates_with_a_node_of_its_own(primary, standby, figures)
    seen = primary_dies_mid_generation(primary, standby, figures, tmp_path)
    promoted_continues_above(standby, seen, sync, figures, tmp_path)


def replication_streams(primary, standby, sync, figures):
    if sync == "synchronous":
        with primary.connect(DB) as conn:
            conn.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
            conn.execute("SELECT pg_reload_conf()")
    state = "sync" if sync == "synchronous" else "async"
    streaming = (
        "SELECT count(*) = 1 FROM pg_stat_replication"
        f" WHERE state = 'streaming' AND sync_state = '{state}'"
    )
    try:
        primary.wait_for(streaming)
    except TimeoutError:
        pass  # the check below fails, after the figures
    figures("replication, as the primary reports it:")
    with primary.connect(DB) as conn:
        table(
            figures,
            conn.execute(
                "SELECT application_name, state, sync_state,"
                " current_setting('synchronous_standby_names') AS synchronous_standby_names,"
                " current_setting('synchronous_commit') AS synchronous_commit"
                " FROM pg_stat_replication"
            ),
        )
    assert value(primary, streaming), f"the standby streams, {sync}"
    lag = time.time() - float(value(standby, "SELECT extract(epoch FROM now())"))
    assert abs(lag - 10) < 1, ("the standby's clock is 10 s behind the primary's", lag)


def standby_refuses_then_generates_with_a_node_of_its_own(primary, standby, figures):
    """Before promotion: refused without a node of its own, with one allowed."""
    tried = try_all(standby, figures)
    figures(f"  hint: {tried[0].hint}")

    def refused(t):
        # kuid64 has no node field: refused whatever the node.
        in_recovery = f"cannot generate {t.format} IDs on a server in recovery"
        return t.code == "25006" and (
            t.message == in_recovery
            or t.format == "kuid64"
            and t.message.startswith(f"{in_recovery}: it has no node field")
        )

    assert every(tried, refused), (
        'standby: every coordination-based format refused with 25006 "cannot generate <format>'
        ' IDs on a server in recovery" (kuid64: it has no node field)',
        tried,
    )
    random_sql = " UNION ALL ".join(
        f"SELECT '{r}' AS generator, * FROM try_generate($q${r}$q$)" for r in RANDOM_GENERATORS
    )
    with standby.connect(DB) as conn:
        table(figures, conn.execute(f"SELECT generator, code, message FROM ({random_sql}) r"))
    assert value(standby, f"SELECT bool_and(code = '00000') FROM ({random_sql}) r"), (
        "standby: the random formats generate (flaxid, distributed_id, distributed_id128)"
    )

    # A standby generates only once it knows the node its primary generates
    # each format with (docs/operations.md "Standbys and failover"): one ID
    # of each on the primary, replayed.
    for f in FORMATS:
        value(primary, f"SELECT {f.generator} IS NOT NULL")
    primary.wait_for_replay(standby)
    alter_system(standby, "SET pg_flake.node = 9")
    wait_for_setting(standby, "pg_flake.node", lambda v: v == "9")
    figures(
        "standby with ALTER SYSTEM SET pg_flake.node = 9: pg_flake_node(),"
        " and the node in IDs it generates"
    )
    with standby.connect(DB) as conn:
        table(figures, conn.execute("SELECT * FROM pg_flake_node()"))
        own_node = conn.execute(
            """SELECT sno_partition(sno_generate()) >> 8 AS sno,
                (siq_domain_hash(siq_generate('event')) >> 24)::int AS siq,
                (snowflake_parts(snowflake_generate())).worker AS snowflake,
                kuid96_node(kuid96_generate()) AS kuid96,
                (SELECT code FROM try_generate('kuid64_generate()')) AS kuid64_code"""
        )
        columns = [c.name for c in own_node.description]
        own = own_node.fetchone()
        table(figures, [own], columns)
        leads = conn.execute(
            "SELECT string_agg(format || ' clock_lead ' || clock_lead, ', ' ORDER BY format)"
            " FROM pg_flake_generator_state()"
        ).fetchone()[0]
        figures(f"standby generators: {leads}")
    assert value(
        standby,
        """SELECT count(*) = 4
            AND bool_and(node = 9 AND source = 'pg_flake.node' AND problem IS NULL)
            FROM pg_flake_node() WHERE format <> 'kuid64'""",
    ), (
        "standby with pg_flake.node = 9: pg_flake_node() says node 9 from pg_flake.node"
        " for sno, siq, snowflake and kuid96"
    )
    assert tuple(own) == (9, 9, 9, 9, "25006"), (
        "standby with pg_flake.node = 9: its IDs carry node 9 (sno, siq, snowflake, kuid96)"
        " and kuid64 refuses (25006: no node field)",
        own,
    )
    alter_system(standby, "RESET pg_flake.node")
    wait_for_setting(standby, "pg_flake.node", lambda v: v != "9")
    tried = try_all(standby)
    assert every(tried, lambda t: t.code == "25006"), (
        "standby: pg_flake.node reset: refused again"
        " (the promoted server keeps the primary's identity)",
        tried,
    )


class Recorder(threading.Thread):
    """A session generating one format on a server, one row a statement
    (committed: autocommit), recording every ID it got back, until the
    server goes away."""

    def __init__(self, server, fmt):
        super().__init__(daemon=True)
        self.server = server
        self.format = fmt
        self.seen: list[str] = []

    def run(self):
        insert = f"INSERT INTO t_{self.format.name} (phase) VALUES (1) RETURNING id::text"
        try:
            with self.server.connect(DB) as conn:
                while True:
                    self.seen.append(conn.execute(insert).fetchone()[0])
        except psycopg.Error:
            pass


def primary_dies_mid_generation(primary, standby, figures, tmp_path):
    """The primary generates, a session per format recording the IDs it
    got, and pgbench; the whole primary dies mid-generation. Returns the
    recorders."""
    figures(
        "the primary generates (a session per format, each recording the IDs it got),"
        " then dies (SIGSTOP, SIGKILL of every process)"
    )
    recorders = [Recorder(primary, f) for f in FORMATS]
    for recorder in recorders:
        recorder.start()
    bench = start_generating(primary, tmp_path, 1, 60, clients=4)
    time.sleep(3)
    # The marks the standby has replayed (its generators show once used:
    # they generated with node 9), next to the primary's, a moment before
    # the primary dies.
    figures(
        "marks a moment before the primary dies"
        " (mark_time per format; the standby's are replayed from the WAL):"
    )
    marks = "SELECT format, mark_time FROM pg_flake_generator_state() ORDER BY format"
    on_standby = dict(standby.sql(marks, dbname=DB))
    for fmt, mark in primary.sql(marks, dbname=DB):
        if fmt in on_standby:
            figures(f"  {fmt:<10} primary {mark}   standby {on_standby[fmt]}")
    primary.kill_machine()
    bench.communicate()
    for recorder in recorders:
        recorder.join()
    return recorders


def promoted_continues_above(standby, recorders, sync, figures, tmp_path):
    lsn = value(standby, "SELECT pg_last_wal_receive_lsn()")
    figures(f"the standby had received WAL up to {lsn}")
    standby.promote()
    assert value(standby, "SELECT NOT pg_is_in_recovery()"), "the standby is promoted"
    old_primary_ids(standby, recorders)
    figures(
        "IDs of the old primary: committed rows the standby has,"
        " IDs the clients got back, and those it lacks"
    )
    lost_sql = " UNION ALL ".join(
        f"""SELECT '{f.name}' AS format, (SELECT count(*) FROM t_{f.name}) AS replicated,
            (SELECT count(*) FROM seen_{f.name}) AS seen_by_clients,
            (SELECT count(*) FROM seen_{f.name} s
             WHERE NOT EXISTS (SELECT FROM t_{f.name} t WHERE t.id = s.id))
                AS seen_not_replicated"""
        for f in FORMATS
    )
    with standby.connect(DB) as conn:
        conn.execute(f"CREATE TABLE lost AS {lost_sql}")
        table(figures, conn.execute("TABLE lost"))
    assert value(standby, "SELECT bool_and(seen_by_clients > 0) FROM lost"), (
        "the clients recorded IDs of every format"
    )
    if sync == "synchronous":
        assert value(standby, "SELECT sum(seen_not_replicated) = 0 FROM lost"), (
            "synchronous: every ID a client got back is on the promoted server"
        )
    generate(standby, tmp_path, figures, 2, 2)
    figures(
        "new IDs of the promoted server (clock 10 s behind) against every ID of the old primary:"
    )
    compare(standby, figures, "1", 2, "promoted", prefix="old_")
    check_above(
        standby,
        "promoted",
        "promoted: every format generated, no new ID at or below one the old primary issued",
    )
    check_lead(
        standby,
        "promoted",
        "clock_lead > '0 s' AND clock_lead < '11 s'",
        "promoted: IDs ahead of its clock, by no more than its 10 s and a lease"
        " (0 < clock_lead < 11 s for every format)",
    )
    # The walreceiver loses its primary (08006) and is stopped at promotion (57P01).
    check_log(standby, "08006", "57P01")


def old_primary_ids(standby, recorders):
    """Tables seen_<format> (the IDs the clients got back) and old_<format>
    (those and the committed rows the standby has) on the promoted server."""
    with standby.connect(DB) as conn:
        for recorder in recorders:
            f = recorder.format
            conn.execute(f"CREATE TABLE seen_{f.name} (id {f.sql_type}, phase int DEFAULT 1)")
            with conn.cursor().copy(f"COPY seen_{f.name} (id) FROM STDIN") as copy:
                for seen in recorder.seen:
                    copy.write_row((seen,))
            conn.execute(
                f"""CREATE TABLE old_{f.name} AS
                SELECT id, phase FROM t_{f.name} UNION SELECT id, phase FROM seen_{f.name}"""
            )
