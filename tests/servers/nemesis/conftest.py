"""The nemesis (``make nemesis``, ``make nemesis-V``; a short run in ``make
test-long``): a randomized, seeded, reproducible explorer of operations and
faults on real servers (docs/guarantees.md "The nemesis").

Options (pytest's, or the environment's):
``--nemesis-seed`` / ``PG_FLAKE_NEMESIS_SEED``: a seed, or several
separated by commas (one test each; default 1);
``--nemesis-minutes`` / ``PG_FLAKE_NEMESIS_MINUTES``: minutes per seed
(default 3);
``--nemesis-ops`` / ``PG_FLAKE_NEMESIS_OPS``: operations added (``+name``)
or left out (``-name``), ``all``, ``none`` (registry.select).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def pytest_addoption(parser):
    group = parser.getgroup("nemesis")
    group.addoption("--nemesis-seed", default=os.environ.get("PG_FLAKE_NEMESIS_SEED") or "1")
    group.addoption("--nemesis-minutes", default=os.environ.get("PG_FLAKE_NEMESIS_MINUTES") or "3")
    group.addoption("--nemesis-ops", default=os.environ.get("PG_FLAKE_NEMESIS_OPS") or "")


def pytest_generate_tests(metafunc):
    if "seed" in metafunc.fixturenames:
        seeds = [int(s) for s in str(metafunc.config.getoption("nemesis_seed")).split(",") if s]
        metafunc.parametrize("seed", seeds, ids=[f"seed{s}" for s in seeds])


@pytest.fixture(scope="session")
def minutes(request) -> float:
    return float(request.config.getoption("nemesis_minutes"))


@pytest.fixture(scope="session")
def ops_spec(request) -> str:
    return request.config.getoption("nemesis_ops")


@pytest.fixture(scope="session")
def rust_writer() -> Path:
    """The Rust lease holder (``core/examples/lease_writer.rs``)."""
    subprocess.run(
        [
            *("cargo", "build", "--profile", "test-release", "--quiet"),
            *("-p", "flake-core", "--features", "lease", "--example", "lease_writer"),
        ],
        cwd=REPO,
        check=True,
    )
    return REPO / "target" / "test-release" / "examples" / "lease_writer"
