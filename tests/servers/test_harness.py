"""The harness itself: a preloaded server, a streaming standby cloned from
it, its promotion, a crash and a moved clock."""

import time


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
