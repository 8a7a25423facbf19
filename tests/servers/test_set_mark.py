"""`pg_flake_set_mark` lowering a mark (issue 36, item 7; docs/guarantees.md
"Restarts, crashes and the clock"): the lowered mark holds after crash
recovery and on a standby (a set record in the WAL, replayed exactly), a
standby that generates with a node of its own keeps its mark, a recorder in
flight cannot carry the old generator's mark past the set, nor can a
primary announcing its node (issue 49, item 8).

The scene of each: the clock ran 120 s ahead, so the marks ran ahead with
it; the clock is put right and the operator lowers the mark to the present,
having thrown the IDs of that time away (`pg_flake.max_clock_lag` is 300 s
so that the ahead IDs can be made at all)."""

import os
import subprocess
import threading
import time
from pathlib import Path

from conftest import DATA_ROOT
from harness import clock_shim
from test_standby import tell_preloaded

LAG = "pg_flake.max_clock_lag = '300s'"
# No checkpoint of its own during a test: crash recovery then replays every
# mark record since the start, the old high ones included.
NO_CHECKPOINT = "checkpoint_timeout = '1h'"


def setup(server):
    server.create_database()
    server.sql(
        "CREATE TABLE t (id sno PRIMARY KEY DEFAULT sno_generate(), phase int)", dbname="flake"
    )


def insert(server, phase, n=200):
    server.sql(f"INSERT INTO t (phase) SELECT {phase} FROM generate_series(1, {n})", dbname="flake")


def ahead_then_lowered(server):
    """IDs made 120 s ahead (then thrown away), the clock put right, the
    mark lowered to now; then phase 2, IDs made after the set."""
    insert(server, 1)
    server.sql("DELETE FROM t", dbname="flake")
    server.set_clock(0)
    server.sql("SELECT pg_flake_set_mark('sno', now())", dbname="flake")
    insert(server, 2)


def lead(server):
    """How far (s) the newest ID of phase 3 is ahead of the server's clock."""
    return server.value(
        "SELECT extract(epoch FROM max(sno_timestamp(id)) - clock_timestamp()) "
        "FROM t WHERE phase = 3",
        dbname="flake",
    )


def assert_above(server, phase, below_phases):
    below = server.value(
        f"SELECT count(*) FROM t WHERE phase = {phase} "
        f"AND id <= (SELECT max(id) FROM t WHERE phase IN ({below_phases}))",
        dbname="flake",
    )
    assert below == 0, (phase, below)


def mark_lead(server, dbname="flake"):
    """How far (s) the sno mark is ahead of the server's clock."""
    return server.value(
        "SELECT extract(epoch FROM mark_time - clock_timestamp()) "
        "FROM pg_flake_generator_state() WHERE format = 'sno'",
        dbname=dbname,
    )


def test_a_lowered_mark_holds_after_a_crash(servers):
    """Crash recovery replays the mark records since the last checkpoint,
    the old high ones too: the set record after them puts the mark back
    where the operator set it (before 0.4.0 the replay raised it again, and
    the next IDs were 120 s ahead)."""
    server = servers("primary").init(LAG, NO_CHECKPOINT)
    server.set_clock(120)
    server.start()
    setup(server)
    ahead_then_lowered(server)
    server.kill9()
    server.start()
    insert(server, 3)
    assert_above(server, 3, "2")
    assert lead(server) < 30


def test_a_lowered_mark_reaches_the_standby(servers):
    """A streaming standby replays the set record: its mark is the lowered
    one (before 0.4.0 it kept the high mark), and once promoted it goes on
    above every ID its primary issued after the set, near the clock."""
    primary = servers("primary").init(LAG, NO_CHECKPOINT)
    primary.set_clock(120)
    primary.start()
    setup(primary)
    insert(primary, 1)
    standby = servers("standby").clone_of(primary, LAG)
    standby.start()
    primary.wait_for_replay(standby)
    assert mark_lead(standby) > 100
    primary.sql("DELETE FROM t", dbname="flake")
    primary.set_clock(0)
    primary.sql("SELECT pg_flake_set_mark('sno', now())", dbname="flake")
    insert(primary, 2)
    primary.wait_for_replay(standby)
    assert mark_lead(standby) < 30
    assert "set to unit" in standby.log()
    primary.stop()
    standby.promote()
    standby.wait_for("SELECT NOT pg_is_in_recovery()")
    insert(standby, 3)
    assert_above(standby, 3, "2")
    assert lead(standby) < 30


def test_a_standby_with_a_node_of_its_own_keeps_its_mark(servers):
    """A standby that generated sno with its own node holds IDs up to its
    own mark: a set record its primary writes lowers nothing there (it only
    learns the record's mark), so its next IDs are above its earlier ones."""
    primary = servers("primary").init(LAG, NO_CHECKPOINT)
    primary.set_clock(120)
    primary.start()
    setup(primary)
    insert(primary, 1)
    standby = servers("standby").clone_of(primary, LAG, "pg_flake.node = 7")
    standby.start()
    tell_preloaded(primary, standby)
    mine = [standby.value("SELECT sno_generate()", dbname="flake") for _ in range(50)]
    primary.set_clock(0)
    primary.sql("SELECT pg_flake_set_mark('sno', now())", dbname="flake")
    insert(primary, 2)
    primary.wait_for_replay(standby)
    later = [standby.value("SELECT sno_generate()", dbname="flake") for _ in range(50)]
    assert min(later) > max(mine)
    assert mark_lead(standby) > 100


def test_lowering_waits_for_a_recorder_in_flight(servers):
    """A backend recording a mark (here held in its wait for a synchronous
    standby that is absent) computed it from the old generator. The set
    waits for it (cancellably) and then puts its own mark in place, so the
    recorder's mark does not land in the new generator: IDs issued after
    the set are covered by a recorded mark, and a crash, whose replay ends
    with the set record, then a restart with the clock 30 s behind, goes on
    above them."""
    server = servers("primary").init(LAG, NO_CHECKPOINT)
    server.set_clock(120)
    server.start()
    setup(server)
    insert(server, 1)
    script = server.data.parent / "generate.sql"
    script.write_text("SELECT count(sno_generate()) FROM generate_series(1, 1000);\n")
    server.sql("ALTER SYSTEM SET synchronous_standby_names = 'absent'")
    server.sql("SELECT pg_reload_conf()")
    load = server.pgbench("-c", "1", "-T", "300", "-f", script, dbname="flake")
    server.wait_for(
        "SELECT count(*) = 1 FROM pg_stat_activity "
        "WHERE application_name = 'pgbench' AND wait_event = 'SyncRep'"
    )
    server.set_clock(0)
    setter = subprocess.Popen(
        [server.bin / "psql", "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres"]
        + ["-X", "-d", "flake", "-c", "SELECT pg_flake_set_mark('sno', now())"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    server.wait_for(
        "SELECT count(*) = 1 FROM pg_stat_activity "
        "WHERE application_name = 'psql' AND wait_event IN ('Extension', 'SyncRep')"
    )
    server.sql("ALTER SYSTEM RESET synchronous_standby_names")
    server.sql("SELECT pg_reload_conf()")
    out = setter.communicate()[0]
    assert setter.returncode == 0, out
    server.sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pgbench'"
    )
    load.communicate()
    insert(server, 2)
    server.kill9()
    server.set_clock(-30)
    server.start()
    insert(server, 3)
    assert_above(server, 3, "2")


def pause_shim() -> Path:
    """``tests/servers/shims/pause_after_close.c`` built for the servers
    (once per run, in DATA_ROOT, which the postgres user reaches)."""
    source = Path(__file__).parent / "shims" / "pause_after_close.c"
    DATA_ROOT.mkdir(parents=True, exist_ok=True)
    built = DATA_ROOT / "pause_after_close.so"
    if not built.exists() or built.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(
            ["cc", "-shared", "-fPIC", "-O2", "-o", str(built), str(source), "-ldl"], check=True
        )
        os.chmod(built, 0o755)
    return built


def test_a_set_during_an_announcement_holds(servers):
    """A primary announces its node once per run, in a mark record that
    carries the mark as it read it. A ``pg_flake_set_mark`` that lowers the
    mark while that record is on its way must come after it in the WAL:
    before 0.5.0 the announcement read the high mark, let the marks file go,
    and logged it after the set record, so crash recovery raised the
    lowered mark again and the next IDs were 120 s ahead. The announcing
    backend is paused (the shim) as it lets the marks file go, which it now
    does after its mark record; the set runs meanwhile, then the server is
    killed and restarted."""
    pause_dir = DATA_ROOT / "pause"
    pause_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(pause_dir, 0o777)
    server = servers("primary").init(LAG, NO_CHECKPOINT)
    server.env = {
        "LD_PRELOAD": f"{pause_shim()} {clock_shim()}",
        "PG_FLAKE_PAUSE_DIR": str(pause_dir),
    }
    server.set_clock(120)
    server.start()
    setup(server)
    insert(server, 1)
    server.sql("DELETE FROM t", dbname="flake")
    # A new run (the clock put right): its first ID announces the node again.
    server.stop()
    server.set_clock(0)
    server.start()
    announcing = server.connect("flake")
    pid = announcing.execute("SELECT pg_backend_pid()").fetchone()[0]
    (pause_dir / f"pause-{pid}").touch()
    announced = threading.Thread(
        target=lambda: announcing.execute("INSERT INTO t (phase) VALUES (2)")
    )
    announced.start()
    deadline = time.monotonic() + 30
    while not (pause_dir / f"paused-{pid}").exists():
        assert time.monotonic() < deadline, "the announcement never let the marks file go"
        time.sleep(0.01)
    setter = threading.Thread(
        target=lambda: server.sql("SELECT pg_flake_set_mark('sno', now())", dbname="flake")
    )
    setter.start()
    # Long enough for the set to finish if nothing holds it back.
    setter.join(2)
    (pause_dir / f"resume-{pid}").touch()
    announced.join(30)
    setter.join(30)
    assert not announced.is_alive() and not setter.is_alive()
    announcing.close()
    server.kill9()
    server.start()
    insert(server, 3)
    assert lead(server) < 30
