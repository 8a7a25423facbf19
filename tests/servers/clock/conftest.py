"""The clock suite (``make test-clock``, ``make test-clock-V``): durable
marks, logical time and node identity against real servers whose clocks
the clock shim moves (harness.py, shims/clock_step.c; docs/guarantees.md
"Guarantees"). A part of the old script is a test file,
``test_clock_<part>.py``, and its test functions are named after the part,
so that pytest's ``-k`` picks parts as the script's arguments did:

    PG_BIN=... scripts/test-servers.sh clock -k "restart or crash"
    PG_BIN=... scripts/test-servers.sh clock -k "step and plain"

Parts: restart, crash, databases, failover, bound, step, time; each runs in both
modes, ``preloaded`` (shared mode) and ``plain`` (not preloaded; PostgreSQL
15/16: per-backend generators, 17+: shared mode in a DSM segment), but
failover, which needs preloading and runs with ``asynchronous`` and
``synchronous`` replication. Shared code: clock_lib.py.

Environment (besides conftest.py's one level up): ``STEP_MARGIN_MS``
(clock_lib.py).
"""

import time

import pytest


@pytest.fixture(autouse=True)
def part_seconds(figures):
    """How long each part took, a figure as the script printed it."""
    started = time.monotonic()
    yield
    figures(f"{time.monotonic() - started:.1f} s")
