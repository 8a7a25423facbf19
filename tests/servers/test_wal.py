"""pg_flake's WAL records (resource manager 188) and the postmaster's
shutdown record of the marks (docs/guarantees.md "Restarts, crashes and the clock",
docs/operations.md "Standbys and failover")."""

import time

FORMATS = {
    "sno": "sno_generate()",
    "siq": "siq_generate('user')",
    "snowflake": "snowflake_generate()",
    "kuid64": "kuid64_generate()",
    "kuid96": "kuid96_generate()",
}


def generate_all(server, n=200):
    for generate in FORMATS.values():
        server.sql(f"SELECT {generate} FROM generate_series(1, {n})", dbname="flake")


def marks_ahead_of_last_unit(server):
    """Per format: how many units the mark is above the last unit used."""
    rows = server.sql(
        "SELECT format, mark_unit - last_unit FROM pg_flake_generator_state()", dbname="flake"
    )
    return dict(rows)


def test_clean_shutdown_after_a_crash_restart_records_the_exact_mark(servers):
    """A crash restart sets shared memory up again; the postmaster still
    records the exact last units at its next clean shutdown, so the start
    after it does not begin a lease (1 s) ahead."""
    server = servers("primary").init()
    server.start()
    server.create_database()
    generate_all(server)
    # A backend killed with SIGKILL: the postmaster ends every process and
    # sets shared memory up again (crash recovery).
    victim = server.connect("flake")
    server.kill9_backend(victim.info.backend_pid)
    victim.close()
    assert "all server processes terminated; reinitializing" in server.log()
    generate_all(server)
    time.sleep(0.1)
    server.stop()
    server.start()
    ahead = marks_ahead_of_last_unit(server)
    # (siq shows a row per kind once the kind is used in this run.)
    assert set(ahead) >= set(FORMATS) - {"siq"}, ahead
    # The state after a start shows the floor as both the last unit and the
    # mark: nothing above the exact last unit used.
    assert all(units == 0 for units in ahead.values()), ahead
    generate_all(server, 10)


def test_a_crashed_server_needs_pg_flake_preloaded_to_recover(servers):
    """Once preloaded, the WAL holds pg_flake's mark records: crash recovery
    (and any standby or point-in-time restore replaying them) needs pg_flake
    in shared_preload_libraries; PostgreSQL refuses to start without it and
    names the resource manager. Back in shared_preload_libraries, recovery
    completes and generation continues above every ID issued."""
    server = servers("primary").init()
    server.start()
    server.create_database()
    server.sql("CREATE TABLE ids (id sno PRIMARY KEY)", dbname="flake")
    server.sql(
        "INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 1000)", dbname="flake"
    )
    server.kill9()
    server.append_conf("shared_preload_libraries = ''")
    assert not server.start(check=False)
    assert "resource manager with ID 188 not registered" in server.log()
    server.append_conf("shared_preload_libraries = 'pg_flake'")
    server.start()
    before = server.value("SELECT max(id) FROM ids", dbname="flake")
    server.sql(
        "INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 1000)", dbname="flake"
    )
    assert server.value(f"SELECT count(*) FROM ids WHERE id > '{before}'", dbname="flake") == 1000


def test_a_clean_shutdown_lets_pg_flake_leave_shared_preload_libraries(servers):
    """After a clean shutdown nothing is replayed: the server starts without
    pg_flake preloaded (per-backend or DSM shared mode) and generates above
    the IDs it issued preloaded."""
    server = servers("primary").init()
    server.start()
    server.create_database()
    server.sql("CREATE TABLE ids (id sno PRIMARY KEY)", dbname="flake")
    server.sql(
        "INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 1000)", dbname="flake"
    )
    server.stop()
    server.append_conf("shared_preload_libraries = ''")
    server.start()
    server.sql(
        "INSERT INTO ids SELECT sno_generate() FROM generate_series(1, 1000)", dbname="flake"
    )
    assert server.value("SELECT count(*) FROM ids", dbname="flake") == 2000


def test_a_standby_needs_pg_flake_preloaded_to_replay(servers):
    """A standby of a preloaded primary replays its mark records: without
    pg_flake in its shared_preload_libraries it stops at the first one."""
    primary = servers("primary").init()
    primary.start()
    primary.create_database()
    standby = servers("standby").clone_of(primary, "shared_preload_libraries = ''")
    standby.start()
    generate_all(primary)
    deadline = time.time() + 30
    while time.time() < deadline and standby.running():
        time.sleep(0.2)
    assert not standby.running()
    assert "resource manager with ID 188 not registered" in standby.log()
