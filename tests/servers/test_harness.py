"""The harness itself: a preloaded server, a streaming standby cloned from
it, its promotion, a crash and a moved clock; timer signals under a moved
clock."""

import threading
import time

import psycopg


def test_clone_promote_crash_and_clock(servers):
    primary = servers("primary").init()
    primary.start()
    primary.create_database()
    standby = servers("standby").clone_of(primary)
    standby.start()
    primary.sql("CREATE TABLE t AS SELECT 1 AS x", dbname="flake")
    primary.wait_for_replay(standby)
    assert standby.value("SELECT pg_is_in_recovery()") is True
    assert standby.value("SELECT count(*) FROM t", dbname="flake") == 1
    standby.promote()
    standby.wait_for("SELECT NOT pg_is_in_recovery()")
    standby.kill9()
    standby.set_clock(-3600)
    standby.start()
    lag = float(standby.value("SELECT extract(epoch FROM now())")) - time.time()
    assert -3605 < lag < -3595
    assert all(level != "PANIC" for _, level, _ in standby.log_errors())


def test_timer_signals_under_a_moved_clock(servers):
    """PostgreSQL's SIGALRM handler (statement_timeout, deadlock_timeout)
    reads the clock, so a moved clock must be read without allocating
    (shims/clock_step.c). With Debian 12's libfaketime in the shim's place
    this test's backends aborted in malloc within a second, or hung with no
    wait event, deaf to cancel; with the shim, every statement of 4 sessions
    is cancelled at its 2 ms timeout and the server lives on."""
    server = servers("primary").init(preload=False)
    server.set_clock(30)
    server.start()
    counts = []

    def session():
        with server.connect() as conn:
            conn.execute("SET statement_timeout = '2ms'")
            ended = 0
            for _ in range(400):
                try:
                    conn.execute(
                        "SELECT count(*) FROM (SELECT repeat('x', g % 700) || g"
                        " FROM generate_series(1, 30000) g ORDER BY 1) s"
                    )
                except psycopg.errors.QueryCanceled:
                    pass
                ended += 1
            counts.append(ended)

    sessions = [threading.Thread(target=session, daemon=True) for _ in range(4)]
    for thread in sessions:
        thread.start()
    for thread in sessions:
        thread.join(timeout=120)
    assert counts == [400] * 4, f"statements ended per session: {counts}"
    assert "terminated by signal" not in server.log()
    lag = float(server.value("SELECT extract(epoch FROM now())")) - time.time()
    assert 25 < lag < 35
