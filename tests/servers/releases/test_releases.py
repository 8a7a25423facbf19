"""Upgrades from the real previous releases (docs/operations.md "Versions",
issue 41), the way PostgreSQL tests pg_upgrade against real old binaries:
each release built from its own commit (release_install.py), run on a real
server, then replaced by this version's library as an operator does.

For each release, mode (pg_flake preloaded or not) and kind of stop (clean:
``pg_ctl stop -m fast``; crash: kill -9 of the whole server):

 1. the old release generates every coordination-based format (sno, siq,
    Snowflake, kuid64, kuid96) by DEFAULT into a table per format with a
    primary key, from several sessions;
 2. the server stops that way; this version's library is installed (the
    server's programs switch to the installation that has it) and the
    server starts with its clock 30 s behind the last IDs;
 3. ``ALTER EXTENSION pg_flake UPDATE``; from 0.1.0, which kept no marks,
    first the documented step (``pg_flake_set_mark`` per format, from the
    newest ID's time);
 4. every format generates again from several sessions: no refusal, no ID
    at or below one issued before, no duplicate key.

Also a streaming standby upgraded after its primary (it replays the new
library's records with the old one, then is upgraded and promoted), and, on
PostgreSQL 15 with PG_NEW_CONFIG set, pg_upgrade from a release on 15 to
this version on the later PostgreSQL.

``make test-releases-V`` (scripts/test-servers.sh releases), part of
``make test-long`` for PostgreSQL 15 and 18. Environment as for every suite
of tests/servers; PG_FLAKE_RELEASES (scripts/build-release.sh's cache).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from release_install import REPO, pg_config, release_bin, release_files, releases

from conftest import DATA_ROOT
from harness import PG_BIN, VERSION, major_version
from upgrade.test_pg_upgrade import clear_attver, new_cluster, pg_upgrade, pg_upgrade_directory

DB = "flake"
CLOCK_BEHIND = 30
SESSIONS = 4
ROWS = 2500  # per session and phase
# format: (SQL type, generator, the time of an ID (`{}`) in this version's SQL)
FORMATS = {
    "sno": ("sno", "sno_generate()", "sno_timestamp({})"),
    "siq": ("siq", "siq_generate('user')", "siq_timestamp({})"),
    "snowflake": ("bigint", "snowflake_generate()", "snowflake_timestamp({}, 1420070400000)"),
    "kuid64": ("bigint", "kuid64_generate()", "kuid64_timestamp({})"),
    "kuid96": ("kuid96", "kuid96_generate()", "kuid96_timestamp({}, 8)"),
}
RELEASES = releases()
MODES = ("preloaded", "plain")
STOPS = ("clean", "crash")


@pytest.fixture(scope="module")
def installs():
    """``installs(version[, bin])``: the programs of a PostgreSQL that runs
    that release (made once per module, in DATA_ROOT/installs, where the
    postgres user reaches them; removed afterwards)."""
    root = DATA_ROOT / "installs"
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(DATA_ROOT, 0o755)
    made: dict[tuple[str, Path], Path] = {}

    def install(version: str, bin: Path = PG_BIN) -> Path:
        if (version, bin) not in made:
            made[(version, bin)] = release_bin(version, root / bin.parent.name, bin)
        return made[(version, bin)]

    yield install
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("release", RELEASES)
def test_release_is_the_pinned_one(release):
    """The commit scripts/releases.txt names for a release builds the
    install script pinned in sql/ (pgrx orders its statements differently
    from build to build: the lines are compared as a multiset, its
    source-location comments left out)."""
    files = release_files(release)
    built = next(files.rglob(f"pg_flake--{release}.sql")).read_text()
    pinned = (REPO / f"sql/releases/pg_flake--{release}.sql").read_text()

    def lines(script: str) -> list[str]:
        return sorted(line for line in script.splitlines() if not line.startswith("--"))

    assert lines(built) == lines(pinned), (
        f"{release}'s commit does not build sql/releases/pg_flake--{release}.sql"
    )


def make_tables(server) -> None:
    with server.connect(DB) as conn:
        for name, (kind, generate, _) in FORMATS.items():
            conn.execute(
                f"CREATE TABLE t_{name} (id {kind} PRIMARY KEY DEFAULT {generate},"
                " phase text NOT NULL)"
            )


def generate(server, phase: str) -> None:
    """SESSIONS sessions at once, each ROWS rows per format: a refusal or a
    duplicate key fails the test with its SQLSTATE."""

    def one_session(_):
        with server.connect(DB) as conn:
            for name in FORMATS:
                conn.execute(
                    f"INSERT INTO t_{name} (phase) SELECT %s FROM generate_series(1, {ROWS})",
                    (phase,),
                )

    with ThreadPoolExecutor(SESSIONS) as pool:
        list(pool.map(one_session, range(SESSIONS)))


def highest(server) -> dict[str, str]:
    return {
        name: server.value(f"SELECT max(id)::text FROM t_{name}", dbname=DB) for name in FORMATS
    }


def check_above(server, before: dict[str, str], phase: str, figures, label: str) -> None:
    """Every ID of ``phase`` above every ID issued before it."""
    counts = []
    for name, (kind, _, _) in FORMATS.items():
        at_or_below, made = server.sql(
            f"SELECT count(*) FILTER (WHERE id <= %s::{kind}), count(*) FROM t_{name}"
            " WHERE phase = %s",
            (before[name], phase),
            dbname=DB,
        )[0]
        assert made == SESSIONS * ROWS, f"{label}: {name} made {made} IDs in {phase}"
        assert at_or_below == 0, (
            f"{label}: {at_or_below} {name} IDs of {phase} at or below {before[name]},"
            " the highest issued before"
        )
        counts.append(f"{name} {made}")
    figures(f"{label}: {phase} above every earlier ID ({', '.join(counts)})")


def set_marks_from_ids(server) -> None:
    """0.1.0 kept no marks: the documented step (docs/operations.md
    "Versions"), each format's mark at its newest ID's time."""
    for name, (_, _, time_of) in FORMATS.items():
        server.sql(
            f"SELECT pg_flake_set_mark('{name}', max({time_of.format('id')})) FROM t_{name}",
            dbname=DB,
        )


def marks_files(server) -> str:
    """The marks files' sizes: what layout the next start reads (0.2.0's
    shared mode leaves 32 bytes at a clean stop, issue 41)."""
    sizes = [f"{p.stem} {p.stat().st_size}" for p in sorted(server.data.glob("pg_flake/*.marks"))]
    return "marks files (bytes): " + (", ".join(sizes) or "none")


def stop(server, how: str) -> float:
    if how == "clean":
        server.stop("fast")
    else:
        server.kill9()
    return time.time()


def upgrade(server, release: str, stopped: float) -> None:
    """This version's library, the clock behind, ALTER EXTENSION UPDATE
    (and from 0.1.0 the marks step)."""
    server.bin = PG_BIN
    server.set_clock(-(time.time() - stopped + CLOCK_BEHIND))
    server.start()
    server.sql("ALTER EXTENSION pg_flake UPDATE", dbname=DB)
    assert (
        server.value("SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'", dbname=DB)
        == VERSION
    )
    if release == "0.1.0":
        set_marks_from_ids(server)


@pytest.mark.parametrize("stop_kind", STOPS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("release", RELEASES)
def test_upgrade_from_release(servers, installs, figures, release, mode, stop_kind):
    label = f"{release} {mode} {stop_kind}"
    server = servers("old", installs(release)).init(preload=mode == "preloaded")
    server.start()
    server.create_database(DB)
    assert (
        server.value("SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'", dbname=DB)
        == release
    )
    make_tables(server)
    generate(server, "old")
    before = highest(server)
    stopped = stop(server, stop_kind)
    figures(f"{label}: the old release left {marks_files(server)}")
    upgrade(server, release, stopped)
    generate(server, "new")
    check_above(server, before, "new", figures, label)
    assert not server.unexpected_log_errors(), "\n".join(server.unexpected_log_errors())


@pytest.mark.parametrize("release", [r for r in RELEASES if r != "0.1.0"])
def test_standby_upgraded_after_primary(servers, installs, figures, release):
    """The primary is upgraded first while its standby still runs the old
    release and replays what the new library writes; then the standby is
    upgraded, the primary dies, the standby is promoted with its clock
    behind and generates above everything."""
    old_bin = installs(release)
    primary = servers("primary", old_bin).init()
    primary.start()
    primary.create_database(DB)
    make_tables(primary)
    generate(primary, "old")
    standby = servers("standby", old_bin).clone_of(primary)
    standby.start()
    primary.wait_for_replay(standby)

    upgrade(primary, release, stop(primary, "clean"))
    generate(primary, "new primary")
    before = highest(primary)
    primary.wait_for_replay(standby)
    assert standby.running(), f"the standby of {release} stopped:\n{standby.log_tail()}"
    figures(f"{release}: the old standby replayed the upgraded primary's records")

    stopped = stop(standby, "clean")
    standby.bin = PG_BIN
    standby.set_clock(-(time.time() - stopped + CLOCK_BEHIND))
    standby.start()
    primary.wait_for_replay(standby)
    primary.kill9()
    standby.promote()
    standby.wait_for("SELECT NOT pg_is_in_recovery()")
    generate(standby, "promoted")
    check_above(standby, before, "promoted", figures, f"{release} standby upgraded after")
    # The standby's connection to the killed primary ends (08006, XX000
    # "could not receive data from WAL stream").
    problems = standby.unexpected_log_errors("08006", "XX000", "57P01")
    assert not problems, "\n".join(problems)


NEW_CONFIG = os.environ.get("PG_NEW_CONFIG")


@pytest.mark.skipif(
    not NEW_CONFIG or major_version() != 15,
    reason="pg_upgrade from a release runs on 15 with PG_NEW_CONFIG (make test-releases-15)",
)
@pytest.mark.parametrize("release", RELEASES)
def test_pg_upgrade_from_release(servers, installs, figures, release):
    """pg_upgrade from a release on PostgreSQL 15 to this version on the
    later PostgreSQL, with the marks copied (docs/operations.md "Versions")."""
    new_bin = Path(pg_config(Path(NEW_CONFIG).parent, "--bindir")[0])
    new_major = major_version(new_bin)
    script = Path(pg_config(new_bin, "--sharedir")[0]) / f"extension/pg_flake--{VERSION}.sql"
    if not script.exists():
        pytest.skip(
            f"pg_flake {VERSION} is not installed in PostgreSQL {new_major}"
            f" (make install-{new_major})"
        )
    old = servers("pg15", installs(release)).init()
    old.start()
    old.create_database(DB)
    make_tables(old)
    generate(old, "old")
    before = highest(old)
    clear_attver(old, figures)
    old.stop("fast")
    stopped = time.time()
    new = new_cluster(servers, new_bin, new_major)
    work = pg_upgrade_directory(DATA_ROOT / f"pg_upgrade-{release}")
    pg_upgrade(old, new, work, "--link")
    if (old.data / "pg_flake").is_dir():
        shutil.rmtree(new.data / "pg_flake", ignore_errors=True)
        subprocess.run(["cp", "-a", str(old.data / "pg_flake"), str(new.data)], check=True)
    new.set_clock(-(time.time() - stopped + CLOCK_BEHIND))
    new.start()
    new.sql("ALTER EXTENSION pg_flake UPDATE", dbname=DB)
    if release == "0.1.0":
        set_marks_from_ids(new)
    generate(new, "new")
    check_above(new, before, "new", figures, f"{release} on 15 -> {VERSION} on {new_major}")
