"""Marks under synchronous replication (docs/operations.md "Standbys and failover"): a
mark above the previous one is used only once the synchronous standbys
confirmed it, whatever the session's ``synchronous_commit``; the wait for it
ends with an error at a cancel, ``statement_timeout`` or terminate, for the
backend recording the mark and for every backend behind it, and extends
nothing. And the PostgreSQL 17+ DSM segment (no preloading): a failed set-up
is not used as it is, and the next backend sets it up again."""

import fcntl
import os
import threading
import time

import psycopg
import pytest

# Every commit local: the server's commits do not wait for the missing
# standby, only pg_flake's marks do (any user may set this in a session).
SYNC_CONF = ("synchronous_standby_names = 'ghost'", "synchronous_commit = local")


def sno_marks(server, dbname="flake"):
    """(last_unit, mark_unit) of the server's sno generator."""
    return tuple(
        server.sql(
            "SELECT last_unit, mark_unit FROM pg_flake_generator_state() WHERE format = 'sno'",
            dbname=dbname,
        )[0]
    )


class Generating(threading.Thread):
    """A session generating in the background: ``outcome`` is the IDs or the
    exception that ended the statement, ``ended`` when (time.monotonic)."""

    def __init__(self, server, query="SELECT sno_generate()", setup=()):
        super().__init__(daemon=True)
        self.conn = server.connect("flake")
        for statement in setup:
            self.conn.execute(statement)
        self.pid = self.conn.info.backend_pid
        self.query = query
        self.outcome = None
        self.ended = None
        self.start()

    def run(self):
        try:
            self.outcome = self.conn.execute(self.query).fetchall()
        except psycopg.Error as e:
            self.outcome = e
        self.ended = time.monotonic()

    def close(self):
        try:
            self.conn.close()
        except psycopg.Error:
            pass


def waiting_pids(server):
    """Backends running a generation and waiting: for the standbys (SyncRep)
    or for the backend recording the mark (Extension)."""
    rows = server.sql(
        "SELECT pid FROM pg_stat_activity WHERE state = 'active'"
        " AND query LIKE '%generate%' AND wait_event IN ('SyncRep', 'Extension')"
    )
    return {pid for (pid,) in rows}


def wait_until_waiting(server, sessions, timeout=10):
    deadline = time.time() + timeout
    pids = {s.pid for s in sessions}
    while time.time() < deadline:
        if pids <= waiting_pids(server):
            return
        time.sleep(0.05)
    raise TimeoutError(f"not all waiting: {pids - waiting_pids(server)}")


def make_standby(servers, primary, name="ghost"):
    standby = servers("standby").clone_of(primary)
    # pg_basebackup -R wrote primary_conninfo into postgresql.auto.conf,
    # which postgresql.conf cannot override: the name goes there.
    with open(standby.data / "postgresql.auto.conf", "a") as f:
        f.write(
            f"primary_conninfo = 'host=127.0.0.1 port={primary.port} user=postgres"
            f" application_name={name}'\n"
        )
    return standby


def wait_for_sync(primary, name="ghost"):
    primary.wait_for(
        f"SELECT sync_state = 'sync' FROM pg_stat_replication WHERE application_name = '{name}'"
    )


def test_a_missing_synchronous_standby_holds_marks_cancellably(servers):
    primary = servers("primary").init(*SYNC_CONF)
    primary.start()
    primary.create_database()
    primary.sql("CREATE TABLE ids (id sno PRIMARY KEY)", dbname="flake")
    before = sno_marks(primary)

    # (a) The first generation of a fresh server needs a mark: it waits for
    # the standby, although the session's synchronous_commit is local.
    first = Generating(primary, setup=["SET synchronous_commit = local"])
    wait_until_waiting(primary, [first])
    time.sleep(1)
    assert first.outcome is None, first.outcome
    primary.sql(f"SELECT pg_cancel_backend({first.pid})")
    first.join(2)
    assert isinstance(first.outcome, psycopg.errors.QueryCanceled), first.outcome
    first.close()

    # (b) statement_timeout ends the wait with 57014 within about a second,
    # and the generator's mark has not moved.
    with primary.connect("flake") as conn:
        conn.execute("SET statement_timeout = '500ms'")
        started = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled) as raised:
            conn.execute("SELECT sno_generate()")
        assert time.monotonic() - started < 1.5
        assert raised.value.sqlstate == "57014"
        assert "statement timeout" in str(raised.value)
    assert sno_marks(primary) == before

    # (c) Five sessions block (one recording the mark, four behind it); a
    # cancel ends each within a second, then the same with terminate.
    for end, error in (
        ("pg_cancel_backend", psycopg.errors.QueryCanceled),
        ("pg_terminate_backend", psycopg.OperationalError),
    ):
        sessions = [Generating(primary) for _ in range(5)]
        wait_until_waiting(primary, sessions)
        assert all(s.outcome is None for s in sessions)
        for s in sessions:
            sent = time.monotonic()
            primary.sql(f"SELECT {end}({s.pid})")
            s.join(3)
            assert s.ended is not None, f"{end}: still waiting"
            assert s.ended - sent < 2, f"{end}: {s.ended - sent:.2f} s"
            assert isinstance(s.outcome, error), (end, s.outcome)
        for s in sessions:
            s.close()
        # None left waiting (a terminated backend may take a moment to
        # leave pg_stat_activity after its client saw the FATAL).
        deadline = time.time() + 2
        while waiting_pids(primary) and time.time() < deadline:
            time.sleep(0.05)
        assert not waiting_pids(primary)
        assert sno_marks(primary) == before

    # statement_timeout ends each of five waiting sessions too (the one
    # recording the mark and those behind it).
    sessions = [Generating(primary, setup=["SET statement_timeout = '1s'"]) for _ in range(5)]
    started = time.monotonic()
    for s in sessions:
        s.join(4)
        assert isinstance(s.outcome, psycopg.errors.QueryCanceled), s.outcome
        assert s.ended - started < 2.5, f"{s.ended - started:.2f} s"
        s.close()
    assert sno_marks(primary) == before

    # A session whose wait was cancelled, kept open for (e).
    survivor = primary.connect("flake")
    survivor.execute("SET statement_timeout = '300ms'")
    with pytest.raises(psycopg.errors.QueryCanceled):
        survivor.execute("SELECT sno_generate()")
    assert sno_marks(primary) == before

    # (d) The standby named 'ghost' comes: generation proceeds.
    standby = make_standby(servers, primary)
    standby.start()
    wait_for_sync(primary)
    primary.sql(
        "INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 1000)", dbname="flake"
    )
    # (e) The session whose wait was cancelled generates too.
    survivor.execute("SET statement_timeout = '10s'")
    survivor.execute("INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 1000)")
    survivor.close()
    assert primary.value("SELECT count(*) FROM ids", dbname="flake") == 2000
    last, mark = sno_marks(primary)
    assert mark > before[1]
    # The standby has every mark the primary used IDs under.
    primary.wait_for_replay(standby)
    assert sno_marks(standby)[1] >= last
    # Nothing but cancels and terminates went wrong.
    unexpected = [e for e in primary.log_errors() if e[0] not in ("57014", "57P01")]
    assert not unexpected, unexpected


def test_a_synchronous_standby_leaving_mid_load(servers):
    """The standby goes away while sessions generate: generation that needs
    a mark waits (cancellably: statement_timeout ends it), the rest goes on;
    back, generation continues, with no duplicate IDs."""
    primary = servers("primary").init(*SYNC_CONF)
    primary.start()
    primary.create_database()
    primary.sql("CREATE TABLE ids (id sno PRIMARY KEY)", dbname="flake")
    standby = make_standby(servers, primary)
    standby.start()
    wait_for_sync(primary)

    stop = threading.Event()
    counts = {"ok": 0, "timeout": 0}
    other = []

    def load():
        with primary.connect("flake") as conn:
            conn.execute("SET statement_timeout = '500ms'")
            while not stop.is_set():
                try:
                    conn.execute(
                        "INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 100)"
                    )
                    counts["ok"] += 1
                except psycopg.errors.QueryCanceled:
                    counts["timeout"] += 1
                except psycopg.Error as e:  # pragma: no cover - reported below
                    other.append(e)
                    return

    loaders = [threading.Thread(target=load, daemon=True) for _ in range(2)]
    for t in loaders:
        t.start()
    time.sleep(1)
    assert counts["ok"] > 0
    standby.stop(mode="immediate")
    # Within a lease (1 s) the mark is reached: from then on every statement
    # waits and its statement_timeout ends it.
    time.sleep(2.5)
    mark_while_down = sno_marks(primary)[1]
    timeouts_while_down, ok_while_down = counts["timeout"], counts["ok"]
    time.sleep(1)
    assert counts["timeout"] > timeouts_while_down
    assert counts["ok"] == ok_while_down
    assert sno_marks(primary)[1] == mark_while_down
    standby.start()
    wait_for_sync(primary)
    time.sleep(1.5)
    stop.set()
    for t in loaders:
        t.join(10)
    assert not other, other
    assert counts["ok"] > ok_while_down
    rows = primary.value("SELECT count(*) FROM ids", dbname="flake")
    assert rows == 100 * counts["ok"]
    last, _ = sno_marks(primary)
    primary.wait_for_replay(standby)
    assert sno_marks(standby)[1] >= last


def test_a_dsm_set_up_without_a_readable_mark_is_not_used(servers, pg_major):
    """Without preloading (a named DSM segment on 17+, a pinned one on 15
    and 16): a marks file that cannot be read when the segment is set up
    leaves that format's generator without its mark; no backend uses it so
    (each new one refuses, naming the file, while the other formats
    generate), and once the file is readable
    generation goes on above the IDs issued before, with the clock 30 s
    behind them (docs/operations.md "Shared mode", docs/guarantees.md
    "Restarts, crashes and the clock")."""
    server = servers("primary").init(preload=False)
    server.start()
    server.create_database()
    server.sql("CREATE TABLE ids (id sno PRIMARY KEY)", dbname="flake")
    server.sql("INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 100)", dbname="flake")
    server.sql("CREATE TABLE old AS SELECT max(id) AS id FROM ids", dbname="flake")
    server.stop()
    marks = server.data / "pg_flake" / "sno.marks"
    os.chmod(marks, 0o000)
    server.set_clock(-30)
    server.start()
    for _ in range(2):
        # Each a new backend: the second finds the segment the first set up.
        with pytest.raises(psycopg.Error) as raised:
            server.sql("SELECT sno_generate()", dbname="flake")
        assert "sno.marks" in str(raised.value), raised.value
        assert raised.value.sqlstate == "42501", raised.value
        assert server.value("SELECT kuid64_generate() > 0", dbname="flake")
    os.chmod(marks, 0o600)
    server.sql("INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 100)", dbname="flake")
    assert server.value("SELECT count(*) FROM ids", dbname="flake") == 200
    assert (
        server.value("SELECT count(*) FROM ids WHERE id > (SELECT id FROM old)", dbname="flake")
        == 100
    )


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "not-preloaded"])
def test_a_held_marks_file_lock_is_waited_for_cancellably(servers, preload):
    """Another process holding the marks file's lock (as a backend does for
    its file I/O and fsync) makes a generation that needs a mark wait, in
    either mode; a cancel ends that wait with 57014 within a second, and once
    the lock is free the same session generates."""
    server = servers("primary").init(preload=preload)
    server.start()
    server.create_database()
    conn = server.connect("flake")
    conn.execute("SELECT sno_generate()")
    # Past the mark (a lease, 1 s): the next generation records one.
    time.sleep(1.5)
    fd = os.open(server.data / "pg_flake" / "sno.marks", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        session = Generating(server)
        time.sleep(1)
        assert session.outcome is None, session.outcome
        sent = time.monotonic()
        server.sql(f"SELECT pg_cancel_backend({session.pid})")
        session.join(3)
        assert isinstance(session.outcome, psycopg.errors.QueryCanceled), session.outcome
        assert session.ended - sent < 2
        session.close()
    finally:
        os.close(fd)
    assert (
        conn.execute(
            "SELECT count(DISTINCT sno_generate()) FROM generate_series(1, 100)"
        ).fetchone()[0]
        == 100
    )
    conn.close()
