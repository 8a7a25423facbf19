"""A library installed while the server runs, without preloading
(docs/operations.md "Shared mode" and "Versions"; issue 36, item 6; on 15
and 16 the issue "no cliff").

Without preloading, a backend loads pg_flake's library when it first uses
it: after an install, new backends load the new library while older ones
keep the one they mapped, and on 17+ each library keeps its server-wide
generators in a named DSM segment of its own. Two generators over the same
marks and units would issue the same IDs; this version refuses instead
(``dsm_claim.rs``). Each test runs a real release (release_install.py) on
a server that does not preload pg_flake, replaces the library and scripts in
the server's own installation the way ``install`` does (each file unlinked,
then copied: the backends that mapped the old library keep it), and
checks, with a primary key on every table, that no ID is issued twice:

- ``test_new_backend_refuses``: a session of the old release generates and
  stays open; after the install a new session refuses every format with
  55000 ("pg_flake's library was replaced while the server runs: restart
  the server"), and so does ``pg_flake_set_mark`` after ``ALTER EXTENSION
  UPDATE`` (and generation after it), while the old session goes on
  generating;
- ``test_old_backend_refuses``: a session loads the old release's library
  without generating; after the install a new session generates, and then
  the old session cannot (the registry's size mismatch, XX000: the old
  library cannot be changed, this one took its segment's name first);

and after a restart (its clock 30 s behind) every format generates from
several sessions above every ID issued before.

On 15 and 16 the releases kept a generator per backend, with a slot in the
marks file; this version keeps one per server all the same (a pinned DSM
segment). There ``test_new_backend_refuses`` finds the old session's slots
taken (55000, the detail says an earlier library generated), and
``test_old_backend_refuses`` becomes ``test_old_backend_starts_above``: the
old session's per-backend generators start above the run floor, which the
new server-wide generator keeps at its mark, so its IDs are new (primary
keys), and once it has taken its slots the new sessions refuse (55000) when
they next need a mark. That one is 0.3.0's only: 0.2.0's library reads a
marks file of this version's layout as its own (it checks no layout), so
after an install over 0.2.0 the server must restart before a session that
loaded 0.2.0's library generates (docs/operations.md "Versions").

``test_other_layout_refuses``, the claim between two libraries of 0.4.0 on
(in both orders, 55000 either way), runs where PG_FLAKE_OTHER_LAYOUT_LIB
names this version's pg_flake.so built with another DSM_LAYOUT_VERSION
(src/plumbing/shmem/mod.rs): in a copy of the repository with that constant
raised, ``cargo pgrx package --pg-config "$PG_CONFIG" --features pg18
--no-default-features --out-dir DIR``, then
``PG_FLAKE_OTHER_LAYOUT_LIB=$(find DIR -name pg_flake.so)``.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import psycopg
import pytest
from release_install import pg_config, release_bin
from test_releases import (
    CLOCK_BEHIND,
    DB,
    FORMATS,
    ROWS,
    check_above,
    generate,
    highest,
    make_tables,
)

from conftest import DATA_ROOT
from harness import PG_BIN, VERSION, major_version

# 15 and 16: the releases ran per-backend generators without preloading,
# this version a server-wide one in a pinned DSM segment.
PER_BACKEND_RELEASES = major_version() < 17
RELEASES = ("0.2.0", "0.3.0")
REFUSAL = "pg_flake's library was replaced while the server runs: restart the server"


@pytest.fixture
def release_server(servers, request):
    """``release_server(version)``: a server, not preloaded, running that
    release from an installation of its own (which the test changes; in
    DATA_ROOT, where the postgres user reaches it, removed afterwards),
    with the extension and a table per format; and that installation's
    programs."""
    root = DATA_ROOT / "installs-in-place" / request.node.name.replace("[", "-").replace("]", "")
    made = []

    def make(version: str):
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        os.chmod(DATA_ROOT, 0o755)
        bin = release_bin(version, root)
        server = servers("inplace", bin).init(preload=False)
        made.append(server)
        server.start()
        server.create_database(DB)
        assert (
            server.value(
                "SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'", dbname=DB
            )
            == version
        )
        make_tables(server)
        return server, bin

    yield make
    # Stopped before its programs go (the servers fixture stops it after).
    for server in made:
        server.stop(mode="immediate", check=False)
    shutil.rmtree(root, ignore_errors=True)


def install_in_place(bin: Path) -> None:
    """This version's library and scripts (PG_BIN's installation) over the
    release's in the installation of ``bin``, as ``install`` replaces a
    file: unlinked, then copied; a backend's mapping of the old library
    stays valid."""
    bindir, pkglibdir, sharedir = pg_config(PG_BIN, "--bindir", "--pkglibdir", "--sharedir")
    tree = str(bin)[: -len(bindir)]
    extension = Path(f"{tree}{sharedir}/extension")
    for old in [*extension.glob("pg_flake*"), Path(f"{tree}{pkglibdir}/pg_flake.so")]:
        old.unlink()
    for source in [Path(pkglibdir) / "pg_flake.so", *Path(sharedir, "extension").glob("pg_flake*")]:
        shutil.copy2(source, Path(f"{tree}{source}"))


def insert(conn, phase: str, rows: int = ROWS) -> None:
    """``rows`` IDs of every format by DEFAULT in one session."""
    for name in FORMATS:
        conn.execute(
            f"INSERT INTO t_{name} (phase) SELECT %s FROM generate_series(1, {rows})", (phase,)
        )


def refusals(conn, phase: str) -> dict[str, psycopg.Error]:
    """Every format's refusal in this session (none may generate)."""
    refused = {}
    for name in FORMATS:
        try:
            conn.execute(f"INSERT INTO t_{name} (phase) VALUES (%s)", (phase,))
        except psycopg.Error as e:
            refused[name] = e
        else:
            pytest.fail(f"{name}: {phase} generated an ID beside the other library's generators")
    return refused


def count(server, phase: str) -> int:
    return sum(
        server.value(f"SELECT count(*) FROM t_{name} WHERE phase = %s", (phase,), dbname=DB)
        for name in FORMATS
    )


def restart_above(server, figures, label: str) -> None:
    """A restart with the installed library, the clock behind the last
    IDs: every format generates at once above every ID issued before."""
    before = highest(server)
    server.stop("fast")
    stopped = time.time()
    server.set_clock(-(time.time() - stopped + CLOCK_BEHIND))
    server.start()
    server.sql("ALTER EXTENSION pg_flake UPDATE", dbname=DB)
    assert (
        server.value("SELECT extversion FROM pg_extension WHERE extname = 'pg_flake'", dbname=DB)
        == VERSION
    )
    generate(server, "restarted")
    check_above(server, before, "restarted", figures, label)


@pytest.mark.parametrize("release", RELEASES)
def test_new_backend_refuses(release_server, figures, release):
    server, bin = release_server(release)
    old = server.connect(DB)
    insert(old, "old")
    install_in_place(bin)
    with server.connect(DB) as new:
        refused = refusals(new, "new")
    for name, e in refused.items():
        assert e.sqlstate == "55000" and e.diag.message_primary == REFUSAL, (
            f"{name}: {e.sqlstate} {e}"
        )
    detail = next(iter(refused.values())).diag.message_detail
    if PER_BACKEND_RELEASES:
        assert "earlier pg_flake library generated" in detail, detail
    else:
        assert f"pg_flake {release}'s library" in detail, detail
    # Nor does a set mark put this version's generator back to work beside
    # the old library's (issue 49, item 7: 0.4.0 replaced the marks file,
    # and with it the slots that kept it off, then issued IDs beside them),
    # also once the catalog is updated.
    with server.connect(DB) as setter:
        setter.execute("ALTER EXTENSION pg_flake UPDATE")
        try:
            setter.execute("SELECT pg_flake_set_mark('sno', now())")
        except psycopg.Error as e:
            assert e.sqlstate == "55000" and e.diag.message_primary == REFUSAL, (
                f"pg_flake_set_mark: {e.sqlstate} {e}"
            )
        else:
            pytest.fail("pg_flake_set_mark was taken beside the old library's generators")
        refusals(setter, "after the set")
    # The old session goes on with the library it mapped; new ones keep
    # refusing, also once it is gone.
    insert(old, "old, after the install")
    old.close()
    with server.connect(DB) as later:
        refusals(later, "later")
    made = count(server, "old") + count(server, "old, after the install")
    assert made == 2 * ROWS * len(FORMATS)
    figures(
        f"{release}: the old session made {made} IDs,"
        f" the new ones refused every format: 55000, {detail}"
    )
    restart_above(server, figures, f"{release} in place, restarted")
    problems = server.unexpected_log_errors("55000")
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(PER_BACKEND_RELEASES, reason="15 and 16: test_old_backend_starts_above")
@pytest.mark.parametrize("release", RELEASES)
def test_old_backend_refuses(release_server, figures, release):
    server, bin = release_server(release)
    old = server.connect(DB)
    # The old library, loaded and not yet generating.
    old.execute("LOAD 'pg_flake'")
    install_in_place(bin)
    with server.connect(DB) as new:
        insert(new, "new")
    refused = refusals(old, "old")
    for name, e in refused.items():
        assert e.sqlstate == "XX000" and "size" in str(e), f"{name}: {e.sqlstate} {e}"
    old.close()
    with server.connect(DB) as later:
        insert(later, "new, later")
    made = count(server, "new") + count(server, "new, later")
    assert made == 2 * ROWS * len(FORMATS) and count(server, "old") == 0
    figures(
        f"{release}: the new sessions made {made} IDs,"
        f" the old one refused every format: {next(iter(refused.values())).diag.message_primary}"
    )
    restart_above(server, figures, f"{release} in place, old backend after the new, restarted")
    problems = server.unexpected_log_errors("XX000")
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(not PER_BACKEND_RELEASES, reason="17+: test_old_backend_refuses")
@pytest.mark.parametrize("release", RELEASES)
def test_old_backend_starts_above(release_server, figures, release):
    if release == "0.2.0":
        # 0.2.0 reads any marks file as its own layout (it checks none), so
        # it misreads the files this version writes: the limit
        # docs/operations.md "Versions" names (restart after installing).
        pytest.skip("0.2.0 misreads 0.4.0's marks files: restart before its sessions generate")
    server, bin = release_server(release)
    old = server.connect(DB)
    # The old library, loaded and not yet generating.
    old.execute("LOAD 'pg_flake'")
    install_in_place(bin)
    with server.connect(DB) as new:
        insert(new, "new")
    # Its per-backend generators start above the run floor, the new
    # server-wide generator's mark: every ID new (primary keys).
    insert(old, "old")
    old.close()
    # Past the new generator's lease (1 s), its next ID needs a mark, which
    # it no longer records beside the old library's generators.
    time.sleep(3)
    with server.connect(DB) as later:
        refused = refusals(later, "later")
    for name, e in refused.items():
        assert e.sqlstate == "55000" and e.diag.message_primary == REFUSAL, f"{name}: {e}"
    made = count(server, "new") + count(server, "old")
    assert made == 2 * ROWS * len(FORMATS)
    figures(
        f"{release} on {major_version()}: the new sessions, then the old one, made {made} IDs,"
        f" none twice; later sessions refused every format: 55000"
    )
    restart_above(server, figures, f"{release} in place, old backend after the new, restarted")
    problems = server.unexpected_log_errors("55000")
    assert not problems, "\n".join(problems)


# This version's pg_flake.so built with another DSM_LAYOUT_VERSION (the
# module's docstring says how).
OTHER_LAYOUT = os.environ.get("PG_FLAKE_OTHER_LAYOUT_LIB")


@pytest.mark.skipif(
    not OTHER_LAYOUT, reason="PG_FLAKE_OTHER_LAYOUT_LIB: this version built with another layout"
)
@pytest.mark.parametrize("first", ["installed", "other"])
def test_other_layout_refuses(release_server, figures, first):
    server, bin = release_server("0.3.0")
    install_in_place(bin)
    server.restart()
    server.sql("ALTER EXTENSION pg_flake UPDATE", dbname=DB)
    bindir, pkglibdir = pg_config(PG_BIN, "--bindir", "--pkglibdir")
    library = Path(f"{str(bin)[: -len(bindir)]}{pkglibdir}/pg_flake.so")
    early = server.connect(DB)
    if first == "installed":
        insert(early, "early")
    else:
        early.execute("LOAD 'pg_flake'")
    library.unlink()
    shutil.copy2(OTHER_LAYOUT, library)
    with server.connect(DB) as late:
        if first == "installed":
            refused = refusals(late, "late")
            insert(early, "early, after the install")
        else:
            insert(late, "late")
            refused = refusals(early, "early")
    early.close()
    for name, e in refused.items():
        assert e.sqlstate == "55000" and e.diag.message_primary == REFUSAL, f"{name}: {e}"
    detail = next(iter(refused.values())).diag.message_detail
    assert "layout" in detail, detail
    phases = ("early", "early, after the install") if first == "installed" else ("late",)
    made = sum(count(server, phase) for phase in phases)
    assert made == len(phases) * ROWS * len(FORMATS)
    figures(f"{first} first: {made} IDs made, the other library refused every format: {detail}")
    before = highest(server)
    server.restart()
    generate(server, "restarted")
    check_above(server, before, "restarted", figures, f"{first} first, restarted")
    problems = server.unexpected_log_errors("55000")
    assert not problems, "\n".join(problems)
