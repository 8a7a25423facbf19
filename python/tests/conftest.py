"""Shared test helpers: the reference vectors, RFC 3339 times past year 9999,
and the server the integration tests run against (``PG_FLAKE_TEST_DSN``, a
libpq connection string; those tests are skipped without it)."""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"


def vectors(file: str, *kinds: str) -> list[dict[str, Any]]:
    """The vectors of ``tests/vectors/<file>.jsonl`` (of the given kinds), as pytest params."""
    rows = [
        json.loads(line) for line in (VECTORS / f"{file}.jsonl").read_text().splitlines() if line
    ]
    return [pytest.param(r, id=r["name"]) for r in rows if not kinds or r["kind"] in kinds]


def integer(value: Any) -> int:
    """Vectors write integers above 2^53 as strings."""
    return int(value)


_RFC3339 = re.compile(r"(\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z")


def _days_from_civil(year: int, month: int, day: int) -> int:
    # H. Hinnant's algorithm, as core/src/time.rs: exact for any year.
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def micros(text: str) -> int:
    """Microseconds since 1970 of an RFC 3339 UTC time (rounded down), any year."""
    m = _RFC3339.fullmatch(text)
    assert m, text
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    fraction = (m.group(7) or "").ljust(9, "0")
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return seconds * 1_000_000 + int(fraction) // 1000


# --- the server ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def dsn() -> str:
    value = os.environ.get("PG_FLAKE_TEST_DSN")
    if not value:
        pytest.skip("PG_FLAKE_TEST_DSN is not set")
    import psycopg

    with psycopg.connect(value, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_flake")
    return value


@pytest.fixture
def lease_dsn(dsn: str) -> str:
    """``dsn``, where the server's pg_flake has leases (0.3.0 and later)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        found = conn.execute(
            "SELECT to_regprocedure('pg_flake_lease(text,text,interval)') IS NOT NULL"
        ).fetchone()
        if not found or not found[0]:
            pytest.skip("the server's pg_flake has no pg_flake_lease (0.3.0)")
    return dsn


def conninfo(dsn: str) -> dict[str, Any]:
    from psycopg.conninfo import conninfo_to_dict

    return conninfo_to_dict(dsn)


def asyncpg_args(dsn: str) -> dict[str, Any]:
    """asyncpg.connect() keyword arguments for a libpq connection string."""
    info = conninfo(dsn)
    names = {
        "host": "host",
        "port": "port",
        "user": "user",
        "password": "password",
        "dbname": "database",
    }
    args = {names[k]: v for k, v in info.items() if k in names}
    if "port" in args:
        args["port"] = int(args["port"])
    return args


def sqlalchemy_url(dsn: str, driver: str) -> Any:
    from sqlalchemy.engine import URL

    info = conninfo(dsn)
    return URL.create(
        f"postgresql+{driver}",
        username=info.get("user"),
        password=info.get("password"),
        host=info.get("host"),
        port=int(info["port"]) if "port" in info else None,
        database=info.get("dbname"),
    )


@pytest.fixture
def table_name(dsn: str):
    """A fresh table name in the test database, dropped afterwards."""
    import psycopg

    name = f"pgf_test_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {name}")


@pytest.fixture
def scratch_dsn(dsn: str):
    """A database of its own, for tests that drop the extension or move it; dropped afterwards.

    It has no pg_flake yet: each test creates the extension as it needs it.
    """
    import psycopg
    from psycopg.conninfo import make_conninfo

    name = f"pgf_scratch_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield make_conninfo(dsn, dbname=name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")
