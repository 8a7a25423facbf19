"""Faults around the marks that need no damaged file (issue 36, item 9): an
immediate shutdown while backends generate (one may die holding the shared
generator's spinlock), and the list of formats, `pg_flake/formats`, changed
by several sessions at once."""

import shutil
import subprocess
import time

import pytest

GENERATE = "SELECT count(sno_generate()) FROM generate_series(1, 10000);"


def psql(server, sql):
    """A psql session of its own running `sql` in the database flake."""
    return subprocess.Popen(
        [server.bin / "psql", "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres"]
        + ["-X", "-d", "flake", "-c", sql],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def wait_for_file(path, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline and not path.exists():
        time.sleep(0.05)
    assert path.exists(), what


def test_an_immediate_shutdown_after_a_backend_died_holding_the_spinlock(servers, figures):
    """The shared generator's spinlock is held for one step of a generator
    and, once per mark, for two clock readings. `pg_ctl -m immediate stop`
    sends SIGQUIT, and a backend ends at once (`quickdie`) wherever it is:
    also while it holds that spinlock. The postmaster, exiting, must not
    take it then (before 0.4.0 it recorded the exact last unit under it and
    spun until PostgreSQL's "stuck spinlock" PANIC, minutes later).

    Made certain rather than likely: gdb stops a generating backend at its
    reading of CLOCK_BOOTTIME (clock id 7), which it makes only under the
    spinlock (the check of the clock before a mark), the immediate shutdown
    is requested, and gdb lets the backend go into its SIGQUIT."""
    if shutil.which("gdb") is None:
        pytest.fail("gdb is needed (scripts/test-servers.sh installs it)")
    server = servers("primary").init()
    server.start()
    server.create_database()
    server.sql("CREATE TABLE ids (id sno PRIMARY KEY, phase int)", dbname="flake")
    insert = "INSERT INTO ids SELECT sno_generate(), {} FROM generate_series(1, 1000)"
    server.sql(insert.format(1), dbname="flake")
    root = server.data.parent
    script, held, go = root / "generate.sql", root / "held", root / "go"
    script.write_text(GENERATE + "\n")
    held.unlink(missing_ok=True)
    go.unlink(missing_ok=True)
    load = server.pgbench("-c", "1", "-T", "120", "-f", script, dbname="flake")
    # pgbench's session once it runs the script (not a connection of its
    # set-up, which ends).
    running = (
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' "
        "AND query LIKE '%sno_generate%'"
    )
    server.wait_for(f"SELECT EXISTS ({running})")
    pid = server.value(running)
    assert pid is not None
    gdb = subprocess.Popen(
        # The backend's own root (a chroot's, for PostgreSQL 17 here) holds
        # the libraries it runs, which gdb must read for their symbols.
        ["timeout", "120", "gdb", "-p", str(pid), "-batch", "-nx"]
        + ["-iex", f"set sysroot /proc/{pid}/root"]
        + ["-ex", "break clock_gettime if $rdi == 7", "-ex", "continue", "-ex", "bt 16"]
        + ["-ex", f"shell touch {held}"]
        + ["-ex", f"shell while [ ! -e {go} ]; do sleep 0.05; done", "-ex", "detach"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    wait_for_file(held, "the backend never read CLOCK_BOOTTIME")
    stop = subprocess.Popen(
        ["runuser", "-u", "postgres", "--", server.bin / "pg_ctl", "-D", server.data]
        + ["-m", "immediate", "-w", "-t", "30", "stop"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # The postmaster has sent its SIGQUIT (pending while gdb holds the backend).
    wait_for_file(server.data / "server.log", "no log")
    deadline = time.time() + 30
    while time.time() < deadline and "immediate shutdown request" not in server.log():
        time.sleep(0.05)
    go.write_text("go\n")
    traced = gdb.communicate()[0]
    assert "extend_shared" in traced, traced
    stopped = stop.communicate()[0]
    load.communicate()
    assert stop.returncode == 0, (stopped, server.log_tail(5))
    assert "stuck spinlock" not in server.log()
    # The next start runs crash recovery and goes on above every ID.
    server.start()
    server.sql(insert.format(2), dbname="flake")
    below = server.value(
        "SELECT count(*) FROM ids WHERE phase = 2 "
        "AND id <= (SELECT max(id) FROM ids WHERE phase = 1)",
        dbname="flake",
    )
    assert below == 0
    figures("a backend killed by an immediate shutdown while holding the spinlock: stopped at once")


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "not-preloaded"])
def test_the_list_of_formats_keeps_every_format(servers, pg_major, preload):
    """The first session that generates a format makes its marks file and
    adds it to `pg_flake/formats`. Sessions that do so for different formats
    at once must not lose each other's entries: a format missing from the
    list has its removed marks file made again silently instead of refused.
    Without preloading the generators' segment is set up by one backend
    for every format at once (serially), so the race is the preloaded
    server's."""
    if not preload:
        pytest.skip("without preloading the set-up of every format is serial")
    server = servers("primary").init(preload=preload)
    server.start()
    server.create_database()
    formats = ["sno", "siq", "snowflake", "kuid64", "kuid96"]
    calls = {
        "sno": "sno_generate()",
        "siq": "siq_generate('user')",
        "snowflake": "snowflake_generate()",
        "kuid64": "kuid64_generate()",
        "kuid96": "kuid96_generate()",
    }
    for attempt in range(20):
        server.stop()
        shutil.rmtree(server.data / "pg_flake", ignore_errors=True)
        server.start()
        sessions = [psql(server, f"SELECT {calls[name]}") for name in formats]
        for session in sessions:
            _, err = session.communicate()
            assert session.returncode == 0, err
        listed = (server.data / "pg_flake" / "formats").read_text().split()
        assert sorted(listed) == sorted(formats), (attempt, listed)
