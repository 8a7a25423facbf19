"""Fixtures of the multi-server tests (``make test-servers``): ``servers``
makes :class:`harness.Server` objects on ports of their own and stops them
after the test; ``pg_major`` is the version under test.

Environment: ``PG_BIN`` (the PostgreSQL under test), ``PG_FLAKE_SERVERS_PORT``
(first port; a test uses the next ones), ``PG_FLAKE_SERVERS_DATA`` (where data
directories go; a failed test's are kept there with their ``server.log``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import Server, major_version

BASE_PORT = int(os.environ.get("PG_FLAKE_SERVERS_PORT", "25500"))
DATA_ROOT = Path(os.environ.get("PG_FLAKE_SERVERS_DATA", "/tmp/pgf-servers"))


@pytest.fixture(scope="session")
def pg_major() -> int:
    return major_version()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.test_failed = report.failed
    return report


@pytest.fixture
def servers(request):
    """``servers(name)``: a Server on the next free port of this test, in
    ``DATA_ROOT/<test>/<name>``. Every one is stopped at the end; the data
    directories are removed unless the test failed."""
    made: list[Server] = []
    root = DATA_ROOT / request.node.name.replace("[", "-").replace("]", "")

    def make(name: str) -> Server:
        server = Server(name, BASE_PORT + len(made), root)
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop(mode="immediate", check=False)
    if not getattr(request.node, "test_failed", False):
        for server in made:
            server.remove()
