"""pg_flake_sql, the edition for managed PostgreSQL (``make test-managed-V``,
docs/managed.md): its three ways in, the vectors, a differential test
against the native extension, the native regression statements, generation
under crashes, clock steps and failover, migration to the native extension
and back, leases with the Python client, and pgspot.

One server for the session (``cluster``): the PostgreSQL under test with
pg_tle in shared_preload_libraries where pg_tle is installed
(scripts/pg-tle-build.sh), pg_flake not preloaded (its library loads in the
databases that create the native extension, beside which the edition's
results are compared). Tests that stop, kill or clone servers make their own
on the next ports (``servers``, the harness's).

Environment: ``PG_FLAKE_SERVERS_PORT`` (the first of test-managed's five
ports, scripts/ports.txt), ``PG_FLAKE_SERVERS_DATA`` (data directories).

The tests marked ``long`` (servers killed, clocks stepped, a failover,
holders waiting out a lease's TTL) run in ``make test-long``
(test-managed-long-V, ``-m long``); ``make test`` runs the rest
(test-managed-V, ``-m "not long"``). ``scripts/test-managed.sh`` alone runs both.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import Server

from managed_lib import has_pg_tle

BASE_PORT = int(os.environ.get("PG_FLAKE_SERVERS_PORT") or 25620)
DATA_ROOT = Path(os.environ.get("PG_FLAKE_SERVERS_DATA") or "/tmp/pgf-managed")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "long: killed servers, stepped clocks, failovers, lease TTLs (make test-long)"
    )


@pytest.fixture(scope="session")
def pg_tle() -> bool:
    """Whether pg_tle is installed in the PostgreSQL under test; its tests
    skip, saying so, where it is not (scripts/pg-tle-build.sh prints why)."""
    return has_pg_tle()


@pytest.fixture(scope="session")
def cluster(request, pg_tle):
    """The session's server (port PG_FLAKE_SERVERS_PORT + 4), its data
    directory kept if a test failed."""
    server = Server("main", BASE_PORT + 4, DATA_ROOT)
    conf = ["shared_preload_libraries = 'pg_tle'"] if pg_tle else []
    server.init(*conf, "max_connections = 60", preload=False)
    server.start()
    failed_before = request.session.testsfailed
    yield server
    server.stop(mode="immediate", check=False)
    if request.session.testsfailed == failed_before:
        server.remove()


def skip_without_pg_tle(pg_tle: bool) -> None:
    if not pg_tle:
        pytest.skip("pg_tle is not installed for this PostgreSQL (scripts/pg-tle-build.sh)")
