"""The marks file is never trusted blindly (docs/guarantees.md "Restarts, crashes and
the clock"): damaged, truncated, empty, foreign and missing files refuse
the format's generation (XX001) while the server and the other formats go
on, until a superuser sets the mark deliberately; crash recovery makes a
missing file again from the WAL; 0.2.0's files carry over; a failed fsync
is a PANIC and nothing unsynced is used."""

import os
import shutil
import subprocess
import time

import psycopg
import pytest

FORMATS = {
    "sno": ("sno", "sno_generate()", "sno_timestamp"),
    "siq": ("siq", "siq_generate('user')", "siq_timestamp"),
    "snowflake": ("bigint", "snowflake_generate()", "snowflake_timestamp"),
    "kuid64": ("bigint", "kuid64_generate()", "kuid64_timestamp"),
    "kuid96": ("kuid96", "kuid96_generate()", "kuid96_timestamp"),
}


def setup(server):
    server.create_database()
    for name, (sql_type, generate, _) in FORMATS.items():
        server.sql(
            f"CREATE TABLE t_{name} (id {sql_type} PRIMARY KEY DEFAULT {generate}, phase int)",
            dbname="flake",
        )


def generate(server, phase, n=200, formats=FORMATS):
    for name in formats:
        server.sql(
            f"INSERT INTO t_{name} (phase) SELECT {phase} FROM generate_series(1, {n})",
            dbname="flake",
        )


def error_of(server, sql):
    """(SQLSTATE, message, hint) of the error `sql` raises, in a new session."""
    with server.connect("flake") as conn:
        with pytest.raises(psycopg.Error) as raised:
            conn.execute(sql)
    diag = raised.value.diag
    return raised.value.sqlstate, diag.message_primary, diag.message_hint


def marks_path(server, name="sno"):
    return server.data / "pg_flake" / f"{name}.marks"


def set_mark_to_stored(server, name="sno"):
    """The documented step: the mark at the highest stored ID's time."""
    _, _, decode = FORMATS[name]
    return server.value(
        f"SELECT pg_flake_set_mark('{name}', (SELECT max({decode}(id)) FROM t_{name}))",
        dbname="flake",
    )


def all_above(server, old_phases, new_phase, formats=FORMATS):
    for name in formats:
        below = server.value(
            f"SELECT count(*) FROM t_{name} WHERE phase = {new_phase} "
            f"AND id <= (SELECT max(id) FROM t_{name} WHERE phase IN ({old_phases}))",
            dbname="flake",
        )
        assert below == 0, name


def damage(path, how, other):
    if how == "random":
        path.write_bytes(os.urandom(path.stat().st_size or 600))
    elif how == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[:100])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "foreign":
        shutil.copyfile(other, path)
    elif how == "missing":
        path.unlink()
    shutil.chown(path.parent, "postgres", "postgres")
    if path.exists():
        shutil.chown(path, "postgres", "postgres")


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "not-preloaded"])
def test_a_damaged_or_missing_file_refuses_until_the_mark_is_set(servers, preload):
    server = servers("primary").init(preload=preload)
    server.start()
    setup(server)
    generate(server, 1)
    phase = 1
    for how, expected in [
        ("random", "is damaged"),
        ("truncated", "is damaged: it is truncated"),
        ("empty", "is damaged: it is empty"),
        ("foreign", "is damaged: it holds the marks of siq"),
        ("missing", "is missing"),
    ]:
        server.stop()
        damage(marks_path(server), how, marks_path(server, "siq"))
        # The server starts: an operator must be able to mend it.
        server.start()
        code, message, hint = error_of(server, "SELECT sno_generate()")
        assert code == "XX001", (how, code, message)
        assert "pg_flake/sno.marks" in message and expected in message, (how, message)
        assert "pg_flake_set_mark('sno'" in hint
        # The other formats go on.
        generate(server, phase + 1, formats=["siq", "kuid96"])
        # Only a superuser may set a mark.
        server.sql("DROP ROLE IF EXISTS plain; CREATE ROLE plain LOGIN")
        with psycopg.connect(
            host="127.0.0.1", port=server.port, user="plain", dbname="flake", autocommit=True
        ) as plain:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                plain.execute("SELECT pg_flake_set_mark('sno', now())")
        set_mark_to_stored(server)
        assert "the sno mark was set to unit" in server.log()
        phase += 1
        generate(server, phase, formats=["sno"])
        all_above(server, ",".join(str(p) for p in range(1, phase)), phase, formats=["sno"])
    assert marks_path(server).read_bytes()[:8] == b"PGFLAKE2"


def test_a_missing_file_is_recovered_from_the_wal_after_a_crash(servers):
    """Preloaded, crash recovery replays the marks recorded since the last
    checkpoint: a file removed before it is made again from them."""
    server = servers("primary").init()
    server.start()
    setup(server)
    server.sql("CHECKPOINT")
    generate(server, 1)
    server.kill9()
    marks_path(server).unlink()
    server.start()
    assert "made again from the mark" in server.log()
    generate(server, 2)
    all_above(server, "1", 2)


def test_a_file_of_0_2_0_carries_over(servers):
    """A data directory of 0.2.0 (version-1 marks files): its marks hold,
    and the file is written again in version 2."""
    server = servers("primary").init()
    server.start()
    setup(server)
    generate(server, 1)
    mark = server.value(
        "SELECT mark_unit FROM pg_flake_generator_state() WHERE format = 'sno'", dbname="flake"
    )
    server.stop()
    # 0.2.0's layout: magic, run pid, run start, global mark, run floor,
    # then per-backend slots from 64. A mark 20 s (5000 units) further on.
    ahead = mark + 5000
    v1 = bytearray(64 + 32)
    v1[:8] = b"PGFLAKE1"
    v1[24:32] = ahead.to_bytes(8, "little")
    v1[32:40] = ahead.to_bytes(8, "little")
    v1[64:72] = (ahead + 10**9).to_bytes(8, "little")  # a slot of that run: ignored
    marks_path(server).write_bytes(bytes(v1))
    server.start()
    generate(server, 2, formats=["sno"])
    first_new = server.value(
        "SELECT min(sno_timestamp(id)) FROM t_sno WHERE phase = 2", dbname="flake"
    )
    state = server.value(
        "SELECT mark_unit FROM pg_flake_generator_state() WHERE format = 'sno'", dbname="flake"
    )
    assert state >= ahead
    assert first_new.timestamp() > time.time() + 10  # above the carried-over mark
    assert marks_path(server).read_bytes()[:8] == b"PGFLAKE2"


SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* fsync and fdatasync fail with EIO for files under a pg_flake/ directory
   while the file named by PGF_FSYNC_FAIL exists. */
static int failing(int fd) {
    const char *trigger = getenv("PGF_FSYNC_FAIL");
    char link[64], path[4096];
    ssize_t n;
    if (!trigger || access(trigger, F_OK) != 0) return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, path, sizeof path - 1);
    if (n < 0) return 0;
    path[n] = 0;
    return strstr(path, "/pg_flake/") != NULL || (strlen(path) >= 9
        && strcmp(path + strlen(path) - 9, "/pg_flake") == 0);
}
int fsync(int fd) {
    static int (*real)(int);
    if (failing(fd)) { errno = EIO; return -1; }
    if (!real) real = (int (*)(int)) dlsym(RTLD_NEXT, "fsync");
    return real(fd);
}
int fdatasync(int fd) {
    static int (*real)(int);
    if (failing(fd)) { errno = EIO; return -1; }
    if (!real) real = (int (*)(int)) dlsym(RTLD_NEXT, "fdatasync");
    return real(fd);
}
"""


def test_a_failed_fsync_of_the_marks_is_a_panic(servers):
    """With fsync = on, a failing fsync of a marks file stops the server
    (PANIC) before any ID relies on the mark; after crash recovery the
    generators go on above every ID issued."""
    server = servers("primary")
    root = server.data.parent
    root.mkdir(parents=True, exist_ok=True)
    shim, trigger = root / "fsync_fail.so", root / "fsync_fail.trigger"
    (root / "fsync_fail.c").write_text(SHIM)
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O2", "-o", shim, root / "fsync_fail.c", "-ldl"], check=True
    )
    trigger.unlink(missing_ok=True)
    server.env = {"LD_PRELOAD": str(shim), "PGF_FSYNC_FAIL": str(trigger)}
    server.init("fsync = on")
    server.start()
    setup(server)
    generate(server, 1)
    trigger.write_text("fail\n")
    failed = None
    deadline = time.time() + 20
    while time.time() < deadline and failed is None:
        try:
            generate(server, 2, n=50, formats=["sno"])
        except psycopg.Error as e:
            failed = e
        time.sleep(0.05)
    assert failed is not None, "generation went on with fsync failing"
    trigger.unlink()
    time.sleep(1)
    # The postmaster restarts after the PANIC; if its startup process
    # already met the failing fsync too, it gave up: start it again.
    if not server.running():
        server.start()
    assert 'PANIC:  pg_flake: could not fsync file "pg_flake/' in server.log()
    server.wait_for("SELECT NOT pg_is_in_recovery()", timeout=60)
    generate(server, 3)
    all_above(server, "1,2", 3)


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "not-preloaded"])
def test_a_file_mended_while_the_server_runs_is_read_again(servers, preload):
    """A generator set up while its marks file was damaged has no floor: once
    the file is sound again (restored from a backup while the server runs),
    its mark is read before any ID, so IDs go on above the old ones even
    with the clock 30 s behind them."""
    server = servers("primary").init(preload=preload)
    server.set_clock(0)
    server.start()
    setup(server)
    generate(server, 1)
    server.stop()
    saved = marks_path(server).read_bytes()
    damage(marks_path(server), "random", None)
    server.set_clock(-30)
    server.start()
    code, _, _ = error_of(server, "SELECT sno_generate()")
    assert code == "XX001"
    marks_path(server).write_bytes(saved)
    generate(server, 2, formats=["sno"])
    all_above(server, "1", 2, formats=["sno"])


def test_a_mark_unread_at_start_is_not_lowered_at_shutdown(servers):
    """Shared mode records the exact last unit at a clean shutdown. A
    generator that never read its mark (the file could not be opened when
    the server started, and nothing was generated since) knows no last unit:
    the mark on disk must stay, so that a restart with the clock 30 s behind
    still goes on above every ID issued before (issue 36, item 5)."""
    server = servers("primary").init()
    server.set_clock(0)
    server.start()
    setup(server)
    generate(server, 1, n=20000, formats=["sno"])
    server.stop()
    os.chmod(marks_path(server), 0)
    server.start()
    code, message, _ = error_of(server, "SELECT sno_generate()")
    assert code == "42501", (code, message)
    # Mended while the server runs; then a clean shutdown.
    os.chmod(marks_path(server), 0o600)
    server.stop()
    server.set_clock(-30)
    server.start()
    # The mark covers the highest ID issued (before 0.4.0: unit 0).
    covered = server.value(
        "SELECT mark_time >= (SELECT max(sno_timestamp(id)) FROM t_sno) "
        "FROM pg_flake_generator_state() WHERE format = 'sno'",
        dbname="flake",
    )
    generate(server, 2, formats=["sno"])
    below = server.value(
        "SELECT count(*) FROM t_sno WHERE phase = 2 "
        "AND id <= (SELECT max(id) FROM t_sno WHERE phase = 1)",
        dbname="flake",
    )
    assert (covered, below) == (True, 0)
