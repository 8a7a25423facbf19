"""Real PostgreSQL servers for the multi-server tests, in the manner of
PostgreSQL's own ``PostgreSQL::Test::Cluster``: a :class:`Server` is a data
directory and a port on 127.0.0.1, run by the ``postgres`` user with the
programs of one PostgreSQL version (``PG_BIN``, or the ``bin`` given to a
:class:`Server`: ``make test-upgrade`` runs two versions). Tests start, stop, kill -9,
clone (``pg_basebackup``), promote and move the clock of servers, and talk
to them over real connections (psycopg) on loopback.

Each server logs with ``log_line_prefix = '%m [%p] %e '``, so the fifth
field of a log line is its SQLSTATE (``Server.log_errors``).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import time
from decimal import Decimal
from pathlib import Path

import psycopg

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
SHIM_DIR = Path("/tmp/pg_flake-shims")
# libfaketime, for application processes whose clocks move (the nemesis's
# holders); servers use the clock shim (clock_shim).
FAKETIME_LIB = os.environ.get("FAKETIME_LIB", "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
# This version of pg_flake: Cargo.toml's (what ALTER EXTENSION UPDATE reaches).
VERSION = re.search(
    r'^version = "([^"]+)"', (Path(__file__).resolve().parents[2] / "Cargo.toml").read_text(), re.M
).group(1)
# What the postmaster logs each time it accepts connections again (start, crash restart).
READY = "database system is ready to accept connections"
COMMON_CONF = [
    "listen_addresses = '127.0.0.1'",
    "max_connections = 100",
    "fsync = off",
    "log_line_prefix = '%m [%p] %e '",
    "wal_level = replica",
    # TCP only: a data directory's path may be too long for a socket's.
    "unix_socket_directories = ''",
    "max_wal_senders = 10",
]


def as_postgres(*args: str, env: dict | None = None, check: bool = True, **kw):
    """Runs a program as the ``postgres`` user (initdb refuses root)."""
    prefix = ["runuser", "-u", "postgres", "--", "env"]
    prefix += [f"{k}={v}" for k, v in (env or {}).items()]
    return subprocess.run(
        prefix + [str(a) for a in args], check=check, capture_output=True, text=True, **kw
    )


def clock_shim() -> Path:
    """``shims/clock_step.c`` built once for every server whose clock moves
    (not libfaketime: the shim's head says why), in a directory the
    ``postgres`` user and PostgreSQL 17's chroot (which shares /tmp) reach;
    named by its source's hash, so that runs side by side share it."""
    source = Path(__file__).parent / "shims" / "clock_step.c"
    text = source.read_bytes()
    built = SHIM_DIR / f"clock_step-{hashlib.sha256(text).hexdigest()[:12]}.so"
    if not built.exists():
        SHIM_DIR.mkdir(parents=True, exist_ok=True)
        os.chmod(SHIM_DIR, 0o755)
        partial = built.with_name(f"{built.name}.{os.getpid()}")
        subprocess.run(
            ["cc", "-shared", "-fPIC", "-O2", "-Wall", "-o", str(partial), str(source), "-ldl"],
            check=True,
        )
        os.chmod(partial, 0o755)
        os.replace(partial, built)
    return built


def major_version(bin: Path = PG_BIN) -> int:
    """The major version of the PostgreSQL whose programs are in ``bin``."""
    out = subprocess.run(
        [str(Path(bin) / "pg_config"), "--version"], check=True, capture_output=True, text=True
    ).stdout
    return int(re.match(r"PostgreSQL (\d+)", out).group(1))


def psql_text(value) -> str:
    """A value as psql prints it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "t" if value else "f"
    return str(value)


def aligned(names, rows) -> list[str]:
    """Rows as psql prints them, for the figures: a header of the column
    names, a rule, then the rows, numbers to the right, a value of several
    lines on as many lines."""
    split = [[psql_text(v).split("\n") for v in row] for row in rows]
    widths = [len(name) for name in names]
    for row in split:
        widths = [max(w, *map(len, cell)) for w, cell in zip(widths, row)]

    def line(cells, values=None):
        numbers = [
            isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in values or ()
        ]
        return " | ".join(
            c.rjust(w) if number else c.ljust(w)
            for c, w, number in zip(cells, widths, numbers or [False] * len(cells))
        ).rstrip()

    lines = [line(names), "-+-".join("-" * w for w in widths)]
    for row, values in zip(split, rows):
        for i in range(max(map(len, row), default=1)):
            lines.append(line([cell[i] if i < len(cell) else "" for cell in row], values))
    return lines


def rows_of(cursor) -> list[str]:
    """A statement's result (a cursor that ran it) as psql prints it."""
    return aligned([column.name for column in cursor.description], cursor.fetchall())


class Server:
    """One server: ``Server(name, port, root)`` keeps its data in
    ``root/name``; nothing exists until :meth:`init` or :meth:`clone_of`.
    ``bin``: the directory of its PostgreSQL's programs (default ``PG_BIN``;
    another version's for ``pg_upgrade``)."""

    def __init__(self, name: str, port: int, root: Path, bin: Path | None = None):
        self.name = name
        self.port = port
        self.data = Path(root) / name
        self.bin = Path(bin) if bin else PG_BIN
        # The clock shim's file (shims/clock_step.c): writing an offset into
        # it moves the running server's real-time clock (set_clock).
        self.clock_file = Path(root) / f"{name}.clock"
        self.clock_moved = False
        # More of the server's environment (an LD_PRELOAD shim, say).
        self.env: dict[str, str] = {}

    # --- making ---------------------------------------------------------

    def init(self, *conf: str, preload: bool = True, initdb_args: tuple = ()) -> Server:
        """A fresh data directory (initdb, with ``initdb_args`` added),
        configured with ``conf`` and, with ``preload``, pg_flake in
        shared_preload_libraries."""
        self.make_data_directory()
        as_postgres(
            self.bin / "initdb",
            "-D",
            self.data,
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            *initdb_args,
        )
        lines = list(COMMON_CONF)
        if preload:
            lines.append("shared_preload_libraries = 'pg_flake'")
        self.append_conf(*lines, *conf)
        with open(self.data / "pg_hba.conf", "a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")
        return self

    def clone_of(self, primary: Server, *conf: str, standby: bool = True) -> Server:
        """A base backup of ``primary`` (``pg_basebackup -X stream``, with
        ``-R`` a streaming standby of it), its own port and ``conf`` added
        in ``postgresql.conf`` (the copied ``postgresql.auto.conf`` is kept,
        as an operator's clone keeps it)."""
        self.make_data_directory()
        args = [
            "-h",
            "127.0.0.1",
            "-p",
            primary.port,
            "-U",
            "postgres",
            "-D",
            self.data,
            "-X",
            "stream",
            "-c",
            "fast",
        ]
        if standby:
            args.append("-R")
        as_postgres(self.bin / "pg_basebackup", *args)
        (self.data / "server.log").unlink(missing_ok=True)
        self.append_conf(*conf)
        return self

    def make_data_directory(self) -> None:
        """An empty data directory for the postgres user (an earlier one
        with the same name removed)."""
        self.remove()
        self.data.parent.mkdir(parents=True, exist_ok=True)
        os.makedirs(self.data, mode=0o700)
        shutil.chown(self.data, "postgres", "postgres")

    def append_conf(self, *lines: str) -> None:
        """Lines added at the end of postgresql.conf (the last one wins);
        ``port`` always follows."""
        with open(self.data / "postgresql.conf", "a") as f:
            for line in (*lines, f"port = {self.port}"):
                f.write(line + "\n")

    def remove(self) -> None:
        self.stop(check=False)
        shutil.rmtree(self.data, ignore_errors=True)
        self.clock_file.unlink(missing_ok=True)

    # --- running --------------------------------------------------------

    def _env(self) -> dict:
        if not self.clock_moved:
            return dict(self.env)
        # Only the real-time clock moves, as when an operating system's clock
        # is stepped: PostgreSQL's waits and timeouts keep their length.
        return {
            "LD_PRELOAD": str(clock_shim()),
            "PG_FLAKE_CLOCK_FILE": str(self.clock_file),
            **self.env,
        }

    def pg_ctl(self, *args: str, check: bool = True):
        return as_postgres(
            self.bin / "pg_ctl", "-D", self.data, *args, env=self._env(), check=check
        )

    def start(self, check: bool = True) -> bool:
        """Starts the server; with ``check``, raises if it does not come up.
        Returns whether it runs."""
        done = self.pg_ctl("-l", self.data / "server.log", "-w", "-t", "60", "start", check=False)
        if check and done.returncode != 0:
            raise RuntimeError(f"{self.name} did not start:\n{self.log_tail()}")
        return done.returncode == 0

    def stop(self, mode: str = "fast", check: bool = True) -> None:
        if not (self.data / "PG_VERSION").exists():
            return
        if self.running():
            self.pg_ctl("-m", mode, "-w", "stop", check=check)

    def restart(self) -> None:
        self.stop()
        self.start()

    def running(self) -> bool:
        return self.pg_ctl("status", check=False).returncode == 0

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split("\n")[0])

    def kill9(self) -> None:
        """SIGKILL to the postmaster and all its children: a crash of the
        whole server (the next start runs crash recovery)."""
        pm = self.postmaster_pid()
        children = subprocess.run(["pgrep", "-P", str(pm)], capture_output=True, text=True)
        os.kill(pm, signal.SIGKILL)
        for pid in children.stdout.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.time() + 10
        while time.time() < deadline and self.running():
            time.sleep(0.05)
        (self.data / "postmaster.pid").unlink(missing_ok=True)

    def kill9_backend(self, pid: int, timeout: float = 60) -> None:
        """SIGKILL to one backend: the postmaster ends every process, runs
        crash recovery and sets shared memory up again. Returns once the
        server is ready again, by its log: a connection that succeeds right
        after the kill may come before the postmaster has noticed it, and
        the next one then meets "the database system is in recovery mode"."""
        ready = self.log().count(READY)
        os.kill(pid, signal.SIGKILL)
        deadline = time.time() + timeout
        while self.log().count(READY) <= ready:
            if time.time() > deadline:
                raise TimeoutError(f"{self.name}: no crash restart {timeout} s after the kill")
            time.sleep(0.1)
        self.wait_for("SELECT true", timeout)

    def kill9_children(self) -> int:
        """SIGKILL to every child of the postmaster (backends, checkpointer,
        WAL writer, ...), not to the postmaster: it sees them crash, runs
        crash recovery and goes on. Returns how many were killed."""
        killed = 0
        for pid in self.child_pids():
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        return killed

    def kill_machine(self) -> None:
        """The whole server dies at once, as with its machine: every process
        frozen (SIGSTOP), then killed; its System V shared memory removed.
        The data directory stays as it was (no restart is meant to follow)."""
        pids = [self.postmaster_pid(), *self.child_pids()]
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
        # postmaster.pid's line 7: the shared memory key and ID.
        lines = (self.data / "postmaster.pid").read_text().split("\n")
        if len(lines) > 6 and len(lines[6].split()) == 2:
            subprocess.run(["ipcrm", "-m", lines[6].split()[1]], capture_output=True)

    def child_pids(self) -> list[int]:
        found = subprocess.run(
            ["pgrep", "-P", str(self.postmaster_pid())], capture_output=True, text=True
        )
        return [int(pid) for pid in found.stdout.split()]

    def promote(self) -> None:
        self.pg_ctl("-w", "promote")

    def set_clock(self, offset_seconds: float) -> None:
        """Moves the server's real-time clock to ``offset_seconds`` from the
        machine's; takes effect at once on a server started with a moved
        clock, else from the next (re)start."""
        # Written aside and renamed into place: a running server reads the
        # file at every clock reading and must never see it half written.
        written = self.clock_file.with_name(self.clock_file.name + ".new")
        written.write_text(f"{offset_seconds:+f}s\n")
        os.chmod(written, 0o644)
        os.replace(written, self.clock_file)
        self.clock_moved = True

    # --- talking ----------------------------------------------------------

    def connect(self, dbname: str = "postgres", **kw) -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user="postgres",
            dbname=dbname,
            autocommit=True,
            **kw,
        )

    def sql(self, query: str, params=None, dbname: str = "postgres"):
        """All rows of one statement, in a connection of its own."""
        with self.connect(dbname) as conn:
            cur = conn.execute(query, params)
            return cur.fetchall() if cur.description else []

    def create_database(self, dbname: str = "flake") -> None:
        """A database with the extension."""
        self.sql(f"CREATE DATABASE {dbname}")
        self.sql("CREATE EXTENSION pg_flake", dbname=dbname)

    def table(self, query: str, params=None, dbname: str = "postgres") -> list[str]:
        """The rows of one statement as psql prints them (:func:`aligned`)."""
        with self.connect(dbname) as conn:
            return rows_of(conn.execute(query, params))

    def value(self, query: str, params=None, dbname: str = "postgres"):
        rows = self.sql(query, params, dbname)
        return rows[0][0] if rows else None

    def wait_for(self, query: str, timeout: float = 30, dbname: str = "postgres") -> None:
        """Waits until ``query`` returns true."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if self.value(query, dbname=dbname):
                    return
            except psycopg.OperationalError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"{self.name}: not true after {timeout} s: {query}")

    def pgbench(self, *args, dbname: str = "postgres") -> subprocess.Popen:
        """PG_BIN's pgbench against this server (``-n``: no vacuum of
        pgbench's own tables), started in the background with ``args``;
        ``.communicate()`` waits for it and gives (stdout, stderr)."""
        command = [PG_BIN / "pgbench", "-n", "-h", "127.0.0.1", "-p", self.port, "-U", "postgres"]
        return subprocess.Popen(
            [str(a) for a in (*command, *args, dbname)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def wait_for_replay(self, standby: Server) -> None:
        """Waits until ``standby`` has replayed everything this primary wrote."""
        lsn = self.value("SELECT pg_current_wal_lsn()")
        standby.wait_for(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'")

    # --- reading the log --------------------------------------------------

    def log(self) -> str:
        try:
            return (self.data / "server.log").read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log().splitlines()[-lines:])

    def errors_by_sqlstate(self) -> str:
        """The log's ERROR/FATAL/PANIC lines counted by SQLSTATE and level
        ("57P01 FATAL 3, …"), or "none"."""
        counts: dict[str, int] = {}
        for sqlstate, level, _ in self.log_errors():
            counts[f"{sqlstate} {level}"] = counts.get(f"{sqlstate} {level}", 0) + 1
        return ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "none"

    def log_errors(self) -> list[tuple[str, str, str]]:
        """(SQLSTATE, level, message) of every ERROR, FATAL and PANIC line."""
        found = []
        for line in self.log().splitlines():
            # date, time, zone, [pid], SQLSTATE, level, message
            parts = line.split(" ", 6)
            if len(parts) == 7 and parts[5] in ("ERROR:", "FATAL:", "PANIC:"):
                found.append((parts[4], parts[5].rstrip(":"), parts[6].lstrip()))
        return found

    def unexpected_log_errors(self, *allowed: str, limit: int = 10) -> list[str]:
        """The log's ERROR, FATAL and PANIC lines but of the SQLSTATEs in
        ``allowed`` (those a test provokes; a PANIC is never allowed), the
        first ``limit`` of them each with the lines that follow it (DETAIL,
        CONTEXT, STATEMENT, continuation lines): what a failed check shows."""
        shown: list[str] = []
        count = 0
        following = False
        for line in self.log().splitlines():
            parts = line.split(" ", 6)
            level = parts[5] if len(parts) == 7 else ""
            if level in ("ERROR:", "FATAL:", "PANIC:") and (
                parts[4] not in allowed or level == "PANIC:"
            ):
                count += 1
                following = count <= limit
                if following:
                    shown.append(line)
            elif following and (
                level in ("DETAIL:", "HINT:", "CONTEXT:", "STATEMENT:", "QUERY:")
                or not re.match(r"\d{4}-", line)
            ):
                shown.append(line)
            else:
                following = False
        return shown
