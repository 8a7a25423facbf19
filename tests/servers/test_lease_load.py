"""Application generators and the database never collide (issue 23; docs/applications.md
"Generating IDs in your application"): for a minute the database fills a
table per format with its own defaults while separate Rust and Python
processes lease units and insert IDs they make themselves. Holders are
killed with SIGKILL and replaced (kuid96 has two units only, so a killed
holder's unit goes to a waiting process once its lease expires), one runs
with its clock 10 s ahead and one 10 s behind (libfaketime), one is paused
past its lease's expiry (SIGSTOP, SIGCONT) and must take a new lease rather
than go on, one shares its generator between threads and forked children
(issue 36), and the TTL is short so that renewals and expiries happen all
the time. Every insert succeeds (no duplicate key) and every application ID
carries its lease's node and process and a time inside its lease's window.

``PG_FLAKE_LEASE_SECONDS`` (default 60) sets the length of the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

REPO = Path(__file__).resolve().parents[2]
SECONDS = float(os.environ.get("PG_FLAKE_LEASE_SECONDS", "60"))
TTL_MS = 2000
FAKETIME_LIB = os.environ.get("FAKETIME_LIB", "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")

# format: (column type, the database's default, the lease node and process an
# ID carries, its time): the leasable formats; kuid64 has no node field and
# takes no lease (core/src/lease.rs).
FORMATS = {
    "sno": (
        "sno",
        "sno_generate()",
        "sno_partition(id) >> 8",
        "sno_partition(id) & 255",
        "sno_timestamp(id)",
    ),
    "siq": (
        "siq",
        "siq_generate('user')",
        "siq_domain_hash(id) >> 24",
        "siq_shard(id)",
        "siq_timestamp(id)",
    ),
    "snowflake": (
        "bigint",
        "snowflake_generate()",
        "(snowflake_parts(id)).worker",
        "(snowflake_parts(id)).process",
        "snowflake_timestamp(id)",
    ),
    "kuid96": (
        "kuid96",
        "kuid96_generate()",
        "kuid96_node(id)",
        "0",
        "kuid96_timestamp(id)",
    ),
}


@pytest.fixture(scope="module")
def rust_writer() -> Path:
    """The Rust application generator's writer (``core/examples/lease_writer.rs``)."""
    subprocess.run(
        [
            "cargo",
            "build",
            "--profile",
            "test-release",
            "--quiet",
            "-p",
            "flake-core",
            "--features",
            "lease",
            "--example",
            "lease_writer",
        ],
        cwd=REPO,
        check=True,
    )
    return REPO / "target" / "test-release" / "examples" / "lease_writer"


class Writer:
    """One application process holding leases of ``fmt`` and inserting the
    IDs it makes, with its output kept for the checks."""

    def __init__(self, command: list[str], name: str, out: Path, env: dict | None = None):
        self.name = name
        self.stdout = out / f"{name}.out"
        self.stderr = out / f"{name}.err"
        self.killed = False
        self.process = subprocess.Popen(
            command,
            stdout=self.stdout.open("w"),
            stderr=self.stderr.open("w"),
            env={**os.environ, **(env or {})},
        )

    def signal(self, sig: int) -> None:
        self.process.send_signal(sig)

    def kill(self) -> None:
        self.killed = True
        self.process.kill()
        self.process.wait()

    def errors(self) -> str:
        return self.stderr.read_text(errors="replace")


def start_writer(kind, fmt, name, dsn, seconds, out, rust_writer, clock=None, extra=()) -> Writer:
    args = [
        "--dsn",
        dsn,
        "--format",
        fmt,
        "--holder",
        name,
        "--ttl-ms",
        str(TTL_MS),
        "--table",
        f"t_{fmt}",
        "--seconds",
        str(round(seconds)),
        *extra,
    ]
    env = {}
    if kind == "rust":
        command = [str(rust_writer), *args]
    else:
        command = [sys.executable, str(REPO / "tests/servers/lease_writer.py"), *args]
        env["PYTHONPATH"] = str(REPO / "python")
    if clock:
        # The application's own clock is off; its IDs must not be.
        env.update({"LD_PRELOAD": FAKETIME_LIB, "FAKETIME": clock})
    return Writer(command, name, out, env)


def database_defaults(server, stop: threading.Event, counts: dict) -> None:
    """The database's own IDs, all the while: batches of defaults per format."""
    with server.connect("flake") as conn:
        while not stop.is_set():
            for fmt in FORMATS:
                conn.execute(
                    f"INSERT INTO t_{fmt} (lease_id) SELECT NULL FROM generate_series(1, 50)"
                )
                counts[fmt] = counts.get(fmt, 0) + 50


def test_application_and_database_ids_never_collide(servers, rust_writer, tmp_path):
    # Two kuid96 units only: a killed holder's unit must go to the next
    # holder once its lease expires (53400 until then). Every holder is the
    # role app, which may take both (the default limit is half).
    db = servers("primary").init(
        "pg_flake.lease_nodes = 'kuid96=4294967294-4294967295'",
        "pg_flake.lease_max_per_role = 1000",
    )
    db.start()
    db.create_database()
    # The application's role: leases and inserts, nothing else.
    db.sql("CREATE ROLE app LOGIN", dbname="flake")
    for fn in ("pg_flake_lease", "pg_flake_renew", "pg_flake_release"):
        db.sql(f"GRANT EXECUTE ON FUNCTION {fn} TO app", dbname="flake")
    for fmt, (kind, default, *_) in FORMATS.items():
        db.sql(
            f"CREATE TABLE t_{fmt} (id {kind} PRIMARY KEY DEFAULT {default}, lease_id bigint)",
            dbname="flake",
        )
        db.sql(f"GRANT INSERT ON t_{fmt} TO app", dbname="flake")
    dsn = f"host=127.0.0.1 port={db.port} user=app dbname=flake"

    stop = threading.Event()
    counts: dict = {}
    defaults = threading.Thread(target=database_defaults, args=(db, stop, counts))
    defaults.start()

    def start(kind, fmt, name, seconds=SECONDS, clock=None, extra=()):
        return start_writer(kind, fmt, name, dsn, seconds, tmp_path, rust_writer, clock, extra)

    writers = [
        start("rust", "sno", "rust-sno"),
        start("python", "sno", "py-sno"),
        start("rust", "snowflake", "rust-snowflake"),
        start("python", "snowflake", "py-snowflake"),
        start("rust", "kuid96", "rust-kuid96-ahead", clock="+10s"),
        start("python", "kuid96", "py-kuid96"),
        start("rust", "siq", "rust-siq"),
        start("python", "siq", "py-siq-behind", clock="-10s"),
        # One generator shared by 2 threads, inherited by 2 forked children
        # (each takes a lease of its own on its first ID; issue 36).
        start(
            "python", "snowflake", "py-snowflake-forked", extra=("--threads", "2", "--fork", "2")
        ),
    ]
    began = time.monotonic()

    def at(second: float) -> None:
        time.sleep(max(0.0, began + second - time.monotonic()))

    # Holders killed mid-lease, and successors that take their units once
    # the leases expire.
    at(SECONDS * 0.2)
    for name in ("rust-sno", "py-snowflake", "rust-kuid96-ahead"):
        victim = next(w for w in writers if w.name == name)
        victim.kill()
    rest = SECONDS * 0.75
    writers.append(start("rust", "sno", "rust-sno-2", seconds=rest))
    writers.append(start("python", "snowflake", "py-snowflake-2", seconds=rest))
    writers.append(start("rust", "kuid96", "rust-kuid96-2", seconds=rest))
    writers.append(start("python", "kuid96", "py-kuid96-3", seconds=rest))

    # A holder paused well past its lease's expiry.
    at(SECONDS * 0.35)
    paused = next(w for w in writers if w.name == "rust-snowflake")
    paused.signal(signal.SIGSTOP)
    time.sleep(3 * TTL_MS / 1000)
    paused.signal(signal.SIGCONT)

    at(SECONDS * 0.5)
    writers.append(start("python", "sno", "py-sno-late", seconds=SECONDS * 0.45))
    writers.append(start("rust", "snowflake", "rust-snowflake-late", seconds=SECONDS * 0.45))

    for writer in writers:
        if not writer.killed:
            writer.process.wait(timeout=SECONDS + 60)
    stop.set()
    defaults.join()

    # Every insert succeeded: no holder met a duplicate key (exit 3) or
    # another error.
    for writer in writers:
        if not writer.killed:
            assert writer.process.returncode == 0, (writer.name, writer.errors()[-2000:])
    # The paused holder stopped using its lease rather than go on.
    assert "expired" in paused.errors(), paused.errors()[-2000:]

    for fmt, (_, _, node, process, stamp) in FORMATS.items():
        made_here, made_by_apps = db.sql(
            f"SELECT count(*) FILTER (WHERE lease_id IS NULL), count(lease_id) FROM t_{fmt}",
            dbname="flake",
        )[0]
        assert made_here > 1000 and made_by_apps > 1000, (fmt, made_here, made_by_apps)
        # Each application ID: its lease's unit, a time inside its window.
        outside = db.value(
            f"""SELECT count(*) FROM t_{fmt} t JOIN pg_flake_leases l USING (lease_id)
                WHERE {node} <> l.node OR {process} <> l.process
                   OR {stamp} < l.not_before OR {stamp} >= l.expires""",
            dbname="flake",
        )
        assert outside == 0, fmt
        unleased = db.value(
            f"""SELECT count(*) FROM t_{fmt} t
                WHERE lease_id IS NOT NULL
                  AND NOT EXISTS (SELECT FROM pg_flake_leases l WHERE l.lease_id = t.lease_id)""",
            dbname="flake",
        )
        assert unleased == 0, fmt
    # Successive holders of a unit own disjoint windows.
    overlapping = db.value(
        """SELECT count(*) FROM pg_flake_leases a JOIN pg_flake_leases b
             ON a.format = b.format AND a.node = b.node AND a.process = b.process
            AND a.lease_id < b.lease_id
           WHERE b.not_before < a.expires
             AND (a.last_used IS NULL OR b.not_before <= a.last_used)""",
        dbname="flake",
    )
    assert overlapping == 0
    # Units were handed on: the killed kuid96 holder's unit went to a
    # waiting holder once its lease had expired.
    reused = db.value(
        "SELECT count(*) FROM (SELECT 1 FROM pg_flake_leases"
        " GROUP BY format, node, process HAVING count(*) > 1) u",
        dbname="flake",
    )
    assert reused > 0
    leases = db.value("SELECT count(*) FROM pg_flake_leases", dbname="flake")
    print(f"lease load: {counts} database IDs; {leases} leases")


def test_a_lease_is_an_error_for_a_role_without_the_grant(servers):
    db = servers("primary").init(preload=True)
    db.start()
    db.create_database()
    db.sql("CREATE ROLE stranger LOGIN", dbname="flake")
    with psycopg.connect(
        host="127.0.0.1", port=db.port, user="stranger", dbname="flake", autocommit=True
    ) as conn:
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("SELECT * FROM pg_flake_lease('sno', 'x')")
    assert refused.value.sqlstate == "42501"
