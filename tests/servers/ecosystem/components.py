"""What the ecosystem suite (``make test-ecosystem-V``, issue 40) shares: the
formats that sort by time, where the components are installed, and a
fresh server with the test database.

A component that cannot exist for the version under test (TimescaleDB and
pg_partman 5 outside Debian 13's PostgreSQL 17, pg_partman 4.7 outside Debian
12's 15: the PyPI builds of 16 and 18 have no extension packages) skips its
module with one notice, ``test-ecosystem: skipped: …``; one that should be
there but is not is a failure (``scripts/ecosystem-prereqs.sh`` installs
them).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import psycopg
import pytest

from harness import PG_BIN, major_version

DB = "flake"

# name: (column type, generator, time decoder of one argument): every format
# whose IDs sort by time, so that a range of IDs is a range of time.
TIME_FORMATS = {
    "sno": ("sno", "sno_generate()", "sno_timestamp"),
    "siq": ("siq", "siq_generate('event')", "siq_timestamp"),
    "kuid96": ("kuid96", "kuid96_generate()", "kuid96_timestamp"),
    "flaxid": ("flaxid", "flaxid_generate()", "flaxid_timestamp"),
    "distributed_id": ("distributed_id", "distributed_id_generate()", "distributed_id_timestamp"),
    "distributed_id128": ("uuid", "distributed_id128_generate()", "distributed_id128_timestamp"),
    "snowflake": ("bigint", "snowflake_generate()", "snowflake_timestamp"),
    "kuid64": ("bigint", "kuid64_generate()", "kuid64_timestamp"),
}
# The native types (each with btree, hash and BRIN operator classes).
NATIVE_TYPES = ("sno", "siq", "kuid96", "flaxid", "distributed_id")


def pg_config(option: str) -> str:
    return subprocess.run(
        [str(PG_BIN / "pg_config"), option], check=True, capture_output=True, text=True
    ).stdout.strip()


def extension_version(name: str) -> str | None:
    """The default version of an installed extension, None if it is not
    installed for the PostgreSQL under test."""
    control = Path(pg_config("--sharedir")) / "extension" / f"{name}.control"
    if not control.is_file():
        return None
    found = re.search(r"^default_version\s*=\s*'([^']+)'", control.read_text(), re.M)
    return found.group(1) if found else "?"


def skip_module(reason: str) -> None:
    """Skips the calling module with one notice (conftest.py makes a suite
    whose every module skipped exit 0)."""
    pytest.skip(f"test-ecosystem: skipped: {reason}", allow_module_level=True)


def require_extension(name: str, packaged_for: dict[int, str]) -> str:
    """The installed version of extension ``name``; where the version under
    test has no package of it (``packaged_for``: major version -> Debian
    package), skips the module; where it has one that is not installed,
    fails (the make target installs it)."""
    major = major_version()
    version = extension_version(name)
    if version is not None:
        return version
    if major not in packaged_for:
        skip_module(
            f"{name} has no package for PostgreSQL {major} here (Debian packages it for "
            + ", ".join(f"{v} ({p})" for v, p in sorted(packaged_for.items()))
            + ")"
        )
    pytest.fail(
        f"{name} is not installed for PostgreSQL {major}: scripts/ecosystem-prereqs.sh {major}"
        f" installs {packaged_for[major]}",
        pytrace=False,
    )


def program(name: str) -> str:
    """A program of the machine (pgbouncer), or a failure naming the script
    that installs it."""
    found = shutil.which(name) or next(
        (str(p) for p in (Path("/usr/sbin") / name, Path("/usr/bin") / name) if p.is_file()), None
    )
    if found is None:
        pytest.fail(f"{name} is not installed: scripts/ecosystem-prereqs.sh installs it")
    return found


def flake_server(servers, name: str, *conf: str, preload: bool = True):
    """A fresh server (pg_flake preloaded unless ``preload`` is false; ``conf``
    added, a later shared_preload_libraries line replacing pg_flake's) with
    the database ``flake`` and the extension."""
    server = servers(name).init(*conf, preload=preload)
    server.start()
    server.create_database(DB)
    return server


def plan(server, query: str, params=None) -> str:
    """EXPLAIN (COSTS OFF) of ``query`` in the test database, as text."""
    rows = server.sql(f"EXPLAIN (COSTS OFF) {query}", params, dbname=DB)
    return "\n".join(row[0] for row in rows)


def scanned(plan_text: str, prefix: str) -> set[str]:
    """The tables named ``prefix…`` that a plan scans (not the indexes a
    Bitmap Index Scan reads)."""
    return set(re.findall(rf"(?<!Bitmap Index Scan )\bon ({re.escape(prefix)}\w*)", plan_text))


def wait_until(check, timeout: float = 60, what: str = "") -> None:
    """Until ``check()`` is true (a connection error counts as not yet: a
    server being promoted or restarted), else TimeoutError after
    ``timeout`` seconds."""
    deadline = time.time() + timeout
    while True:
        try:
            if check():
                return
        except psycopg.Error:
            pass
        if time.time() > deadline:
            raise TimeoutError(f"not within {timeout} s: {what}")
        time.sleep(0.3)


def digest(server, table: str, dbname: str = DB) -> tuple:
    """A replicated table's rows (id, v) as a count and an md5, to compare
    two servers' copies."""
    return server.sql(
        f"SELECT count(*), md5(coalesce(string_agg(id::text || ':' || v, ',' ORDER BY id), ''))"
        f" FROM {table}",
        dbname=dbname,
    )[0]


class Writer(threading.Thread):
    """Inserts IDs into ``ids_sno`` and ``ids_snowflake`` through a
    connection string (an HA manager's, which follows the primary) until
    stopped, keeping every ID whose commit it saw."""

    def __init__(self, conninfo: str):
        super().__init__()
        self.conninfo = conninfo
        self.committed: dict[str, list] = {"sno": [], "snowflake": []}
        self.errors = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        conn = None
        while not self.stopping.is_set():
            try:
                if conn is None:
                    conn = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=2)
                for name in self.committed:
                    row = conn.execute(f"INSERT INTO ids_{name} DEFAULT VALUES RETURNING id::text")
                    self.committed[name].append(row.fetchone()[0])
            except psycopg.Error:
                self.errors += 1
                if conn is not None:
                    conn.close()
                conn = None
                time.sleep(0.2)
        if conn is not None:
            conn.close()
