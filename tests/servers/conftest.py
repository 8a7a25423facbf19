"""Fixtures of the multi-server tests (``make test-servers``): ``servers``
makes :class:`harness.Server` objects on ports of their own and stops them
after the test (``module_servers`` after the module's last test, for a suite
whose tests check the steps of one run); ``pg_major`` is the version under
test; ``figures`` keeps the lines a test measures, printed in a "figures"
section at the end of the run.

Suites with make targets of their own live in directories of this one
(``clock/``: ``make test-clock``, ``load/``: ``make test-long``, ``citus/``:
``make test-citus``, ``upgrade/``: ``make test-upgrade``, ``nemesis/``:
``make nemesis``, ``ecosystem/``: ``make test-ecosystem``, ``managed/``:
``make test-managed``); ``make
test-servers`` runs the tests at this level and leaves them out
(:data:`SUITES`).

Environment: ``PG_BIN`` (the PostgreSQL under test), ``PG_FLAKE_SERVERS_PORT``
(first port; a test uses the next ones), ``PG_FLAKE_SERVERS_DATA`` (where data
directories go; a failed test's are kept there with their ``server.log``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import Server, major_version

PORT_TABLE = Path(__file__).resolve().parents[2] / "scripts" / "ports.txt"


def table_port(suite: str) -> int:
    """``suite``'s PostgreSQL 15 port in the one port table, scripts/ports.txt."""
    for line in PORT_TABLE.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == suite:
            return int(fields[1])
    raise LookupError(f"no suite {suite} in {PORT_TABLE}")


# scripts/test-servers.sh sets both; these defaults are for pytest run by hand.
BASE_PORT = int(os.environ.get("PG_FLAKE_SERVERS_PORT") or table_port("test-servers"))
DATA_ROOT = Path(
    os.environ.get("PG_FLAKE_SERVERS_DATA")
    or Path(os.environ.get("PG_FLAKE_TMP") or "/tmp") / "pgf-servers"
)
SUITES = ("clock", "load", "citus", "upgrade", "releases", "nemesis", "ecosystem", "managed")
FIGURES: list[str] = []


def pytest_ignore_collect(collection_path, config):
    """A suite's directory is collected only when named on the command line."""
    if collection_path.name in SUITES and collection_path.parent == Path(__file__).parent:
        named = {Path(arg.split("::")[0]).resolve() for arg in config.args}
        inside = any(collection_path.resolve() in (p, *p.parents) for p in named)
        return None if inside else True
    return None


@pytest.fixture
def figures(request):
    """``figures(line)``: a measured figure, printed after the run with its test's name."""

    def keep(line: str) -> None:
        FIGURES.append(f"{request.node.name}: {line}")

    return keep


def pytest_terminal_summary(terminalreporter):
    if FIGURES:
        terminalreporter.section("figures")
        for line in FIGURES:
            terminalreporter.write_line(line)


SKIPPED_MODULES: list[str] = []


def pytest_collectreport(report):
    if report.skipped:
        SKIPPED_MODULES.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    """A module that skips itself whole (``pytest.skip(...,
    allow_module_level=True)``: ``citus/`` without Citus) leaves pytest
    nothing collected, exit status 5: for a suite that is a skip, status 0."""
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and SKIPPED_MODULES:
        session.exitstatus = pytest.ExitCode.OK


@pytest.fixture(scope="session")
def pg_major() -> int:
    return major_version()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.test_failed = report.failed
    return report


class ServerSet:
    """The servers of one test (or module): ``make(name[, bin])`` gives a
    Server on the next port from ``PG_FLAKE_SERVERS_PORT``, in
    ``root/<name>``; ``close(keep)`` stops them all and, unless ``keep``,
    removes their data directories (and ``root`` once empty)."""

    def __init__(self, root: Path):
        self.root = root
        self.made: list[Server] = []

    def make(self, name: str, bin: Path | None = None) -> Server:
        server = Server(name, BASE_PORT + len(self.made), self.root, bin)
        self.made.append(server)
        return server

    def close(self, keep: bool) -> None:
        for server in self.made:
            server.stop(mode="immediate", check=False)
        if keep:
            return
        for server in self.made:
            server.remove()
        if self.root.is_dir() and not any(self.root.iterdir()):
            self.root.rmdir()


@pytest.fixture
def servers(request):
    """``servers(name[, bin])``: a Server on the next free port of this test,
    in ``DATA_ROOT/<test>/<name>``, of the PostgreSQL whose programs are in
    ``bin`` (default ``PG_BIN``). Every one is stopped at the end; the data
    directories are removed unless the test failed."""
    made = ServerSet(DATA_ROOT / request.node.name.replace("[", "-").replace("]", ""))
    yield made.make
    made.close(keep=getattr(request.node, "test_failed", False))


@pytest.fixture(scope="module")
def module_servers(request):
    """``module_servers(name[, bin])``: as ``servers``, for a module whose
    tests check one run step by step (``citus/``: one cluster, formed once):
    the servers live until the module's last test, in
    ``DATA_ROOT/<module>/<name>``; their data directories are kept if any
    test of the module failed."""
    failed_before = request.session.testsfailed
    made = ServerSet(DATA_ROOT / request.module.__name__)
    yield made.make
    made.close(keep=request.session.testsfailed != failed_before)
