"""The nemesis's cluster: two data directories that take turns as primary
and streaming standby (``a`` and ``b``, preloaded), a second server that
does not preload pg_flake (``second``), up to two base-backup clones
(``clone1``, ``clone2``), and a spare port on which a fenced old primary is
started once, to harvest its rows before its data directory is made anew.

A :class:`Slot` is one of those data directories with what the nemesis
means it to be (its role, its clock, its node, whether it should run): the
operations change that *model* and the servers together, and writers,
holders and the watchdog read it. Every server runs with the clock shim
(shims/clock_step.c) from its first start (``Server.set_clock``), so its clock moves live.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import psycopg

from harness import Server, as_postgres

DB = "flake"
# format: (column type, the server's generator, its timestamp decoder)
FORMATS = {
    "sno": ("sno", "sno_generate()", "sno_timestamp"),
    "siq": ("siq", "siq_generate('user')", "siq_timestamp"),
    "snowflake": ("bigint", "snowflake_generate()", "snowflake_timestamp"),
    "kuid64": ("bigint", "kuid64_generate()", "kuid64_timestamp"),
    "kuid96": ("kuid96", "kuid96_generate()", "kuid96_timestamp"),
}
LEASED = ("sno", "siq", "snowflake", "kuid96")
STANDBY_NAME = "nem_standby"
# Two kuid96 units only: a unit freed (or taken away) goes at once to a
# holder waiting for one (53400 until then).
LINE_CONF = (
    "pg_flake.lease_nodes = 'kuid96=4294967294-4294967295'",
    "wal_keep_size = '512MB'",
)
# Nodes: the line's first primary 1, the second server 2; fresh ones from 3.
# Snowflake's worker field holds 0-30 (31 is the leases'): a node above 30
# refuses snowflake (an allowed refusal), so they are handed out last.
FIRST_FREE_NODE = 3
LAST_NODE = 254
CTL = "nem_ctl"  # application_name of the nemesis's own sessions


class ServerFailed(Exception):
    """A server that must run did not come up (the run cannot go on)."""


class Gate:
    """Writers pass it around each statement; an operation that needs a
    server quiet (a mark set from the highest stored ID) closes it and
    waits for the statements in flight."""

    def __init__(self):
        self.cond = threading.Condition()
        self.inside = 0
        self.closed = False

    @contextmanager
    def passage(self, stop: threading.Event):
        with self.cond:
            while self.closed and not stop.is_set():
                self.cond.wait(0.1)
            self.inside += 1
        try:
            yield
        finally:
            with self.cond:
                self.inside -= 1
                self.cond.notify_all()

    def close(self, timeout: float = 30) -> bool:
        with self.cond:
            self.closed = True
            return self.cond.wait_for(lambda: self.inside == 0, timeout)

    def open(self) -> None:
        with self.cond:
            self.closed = False
            self.cond.notify_all()


class Slot:
    """A data directory of the cluster and what the nemesis means it to be."""

    def __init__(self, server: Server, lineage: str):
        self.server = server
        self.name = server.name
        self.lineage = lineage  # whose IDs (kuid64 is unique per lineage only)
        self.role: str | None = None  # primary, standby, second, clone, fenced; None: absent
        self.incarnation = 0  # a new data directory, a new one
        self.up = False  # meant to run
        self.offset = 0.0  # its clock, seconds from the machine's
        self.node: int | None = None
        self.may_generate = True  # False: every coordination-based format must refuse
        self.preloaded = True
        self.gate = Gate()

    @property
    def label(self) -> str:
        return f"{self.name}#{self.incarnation}"

    @property
    def port(self) -> int:
        return self.server.port

    def connect(self, timeout: float = 5, statement_ms: int = 30000, port=None):
        return psycopg.connect(
            host="127.0.0.1",
            port=port or self.port,
            user="postgres",
            dbname=DB,
            autocommit=True,
            connect_timeout=max(1, round(timeout)),
            application_name=CTL,
            options=f"-c statement_timeout={statement_ms}",
        )

    def sql(self, query: str, params=None, statement_ms: int = 30000, port=None):
        with self.connect(statement_ms=statement_ms, port=port) as conn:
            cur = conn.execute(query, params)
            return cur.fetchall() if cur.description else []


class Cluster:
    def __init__(self, servers, history):
        self.history = history
        self.a = Slot(servers("a"), "line")
        self.b = Slot(servers("b"), "line")
        self.second = Slot(servers("second"), "second")
        self.second.preloaded = False
        self.clones = [Slot(servers("clone1"), "clone1"), Slot(servers("clone2"), "clone2")]
        self.harvest_port = servers("harvest").port
        self.sync = False  # synchronous_standby_names names the standby
        self.next_node = FIRST_FREE_NODE
        self.node_owner: dict[int, str] = {1: "line", 2: "second"}
        # (slot name, format) -> how its marks file was damaged, until a mark is set
        self.damaged: dict[tuple[str, str], str] = {}
        self.lock = threading.RLock()

    # --- the model ---------------------------------------------------------

    def slots(self) -> list[Slot]:
        return [self.a, self.b, self.second, *self.clones]

    def by_role(self, role: str) -> Slot | None:
        for slot in (self.a, self.b):
            if slot.role == role:
                return slot
        return None

    @property
    def primary(self) -> Slot:
        return self.by_role("primary")

    @property
    def standby(self) -> Slot | None:
        return self.by_role("standby")

    @property
    def fenced(self) -> Slot | None:
        return self.by_role("fenced")

    def resolve(self, target: str) -> Slot | None:
        """The slot a writer of ``target`` writes to now (primary, standby,
        second, clone1, clone2), if it is meant to run."""
        if target in ("primary", "standby"):
            slot = self.by_role(target)
        elif target == "second":
            slot = self.second
        else:
            slot = next(c for c in self.clones if c.name == target)
            slot = slot if slot.role == "clone" else None
        return slot if slot is not None and slot.up else None

    def running_slots(self) -> list[Slot]:
        return [s for s in self.slots() if s.up and s.role is not None]

    def fresh_node(self, owner: str) -> int | None:
        """A node no server has used, or None once they are used up."""
        with self.lock:
            if self.next_node > LAST_NODE:
                return None
            node = self.next_node
            self.next_node += 1
            self.node_owner[node] = owner
            return node

    def nodes_of(self, owner: str) -> list[int]:
        return sorted(n for n, o in self.node_owner.items() if o == owner)

    # --- servers -------------------------------------------------------------

    def start(self, slot: Slot, attempts: int = 2) -> None:
        """Starts the slot's server with its clock; ServerFailed if it does
        not come up."""
        slot.server.set_clock(slot.offset)
        for attempt in range(attempts):
            if slot.server.start(check=False):
                slot.up = True
                return
            time.sleep(2 * (attempt + 1))
            if slot.server.running():
                slot.up = True
                return
            self.mend_unreadable(slot)
        if self.lost_upstream(slot):
            return
        raise ServerFailed(f"{slot.label} did not start:\n{slot.server.log_tail(40)}")

    # A clone streams without a replication slot: one that falls further
    # behind than its upstream keeps WAL, or that its upstream's promotion
    # left on the old timeline, can never catch up (PostgreSQL's own
    # limit, not pg_flake's): an operator makes it anew.
    LOST_UPSTREAM = (
        "has already been removed",
        "does not contain minimum recovery point",
    )

    def lost_upstream(self, slot: Slot) -> bool:
        """A clone that cannot start for want of its upstream's WAL is
        removed, as ``drop_clone`` removes one (it stored nothing: its IDs
        are the writers'), and counted, not a finding."""
        if slot.role != "clone":
            return False
        log = slot.server.log_tail(40)
        if not any(reason in log for reason in self.LOST_UPSTREAM):
            return False
        self.stop(slot, "immediate")
        slot.role = None
        slot.server.remove()
        self.history.note("clones that lost their upstream's WAL, removed")
        return True

    def mend_unreadable(self, slot: Slot) -> None:
        """After a crash, the redo of a mark record writes the marks file:
        one the nemesis made unreadable (chmod 000) stops crash recovery
        (FATAL 42501) and the server does not start. The hint's remedy, the
        file readable again, is the operator's; it is counted, not a finding."""
        log = slot.server.log_tail(20)
        for (name, fmt), how in list(self.damaged.items()):
            path = slot.server.data / "pg_flake" / f"{fmt}.marks"
            if name == slot.name and how == "chmod000" and f"{fmt}.marks" in log:
                if path.exists():
                    os.chmod(path, 0o600)
                del self.damaged[(name, fmt)]
                self.history.note("starts that needed an unreadable marks file readable again")

    def stop(self, slot: Slot, mode: str = "fast", timeout: int = 20) -> str:
        """Stops the slot's server; a fast shutdown that does not end within
        ``timeout`` (it can hang under a stepped fake clock) becomes an
        immediate one, and that a kill -9. Returns how it ended."""
        server = slot.server
        slot.up = False
        if not (server.data / "PG_VERSION").exists() or not server.running():
            return "not running"
        done = server.pg_ctl("-m", mode, "-w", "-t", str(timeout), "stop", check=False)
        if done.returncode == 0:
            return mode
        if server.running():
            server.pg_ctl("-m", "immediate", "-w", "-t", "30", "stop", check=False)
        if server.running():
            server.kill9()
            return f"{mode} timed out; kill -9"
        return f"{mode} timed out; immediate"

    def kill_postmaster(self, slot: Slot) -> str:
        """SIGKILL to the postmaster alone; its children notice and exit (a
        child still there after 10 s is killed too)."""
        server = slot.server
        pm = server.postmaster_pid()
        children = server.child_pids()
        os.kill(pm, signal.SIGKILL)
        deadline = time.monotonic() + 10
        alive = children
        while alive and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [p for p in alive if pid_alive(p)]
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.2)
        return f"{len(children)} children, {len(alive)} killed after 10 s"

    def wait_up(self, slot: Slot, timeout: float = 60) -> None:
        """Waits until the slot's server accepts connections (after crash
        recovery); ServerFailed if it does not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                slot.sql("SELECT 1", statement_ms=5000)
                return
            except psycopg.Error:
                if not slot.server.running():
                    break
                time.sleep(0.3)
        if not slot.server.running():
            self.start(slot)
            return
        raise ServerFailed(f"{slot.label} accepts no connection:\n{slot.server.log_tail(40)}")

    def make_clone(self, slot: Slot, source: Slot, app_name: str) -> None:
        """``slot`` made anew as a streaming standby of ``source``
        (pg_basebackup -R), with ``app_name`` its application_name."""
        server = slot.server
        self.stop(slot, "immediate")
        for key in [k for k in self.damaged if k[0] == slot.name]:
            del self.damaged[key]
        slot.incarnation += 1
        server.make_data_directory()
        done = as_postgres(
            server.bin / "pg_basebackup",
            *("-h", "127.0.0.1", "-p", source.port, "-U", "postgres", "-D", server.data),
            *("-X", "stream", "-c", "fast", "-R"),
            timeout=180,
            check=False,
        )
        if done.returncode != 0:
            # (A marks file made unreadable, say: the base backup cannot read it.)
            raise RuntimeError(f"pg_basebackup of {source.label}: {done.stderr.strip()[-300:]}")
        (server.data / "server.log").unlink(missing_ok=True)
        server.append_conf()
        # pg_basebackup -R wrote primary_conninfo into postgresql.auto.conf,
        # which postgresql.conf cannot override: the name goes there.
        with open(server.data / "postgresql.auto.conf", "a") as f:
            f.write(
                f"primary_conninfo = 'host=127.0.0.1 port={source.port} user=postgres"
                f" application_name={app_name}'\n"
            )

    def set_sync(self, on: bool) -> None:
        """The primary's synchronous_standby_names: the standby, or none."""
        names = STANDBY_NAME if on else ""
        with self.primary.connect() as conn:
            conn.execute(f"ALTER SYSTEM SET synchronous_standby_names = '{names}'")
            conn.execute("SELECT pg_reload_conf()")
        self.sync = on

    def set_node(self, slot: Slot, node: int) -> None:
        """``ALTER SYSTEM SET pg_flake.node`` and a reload, as
        docs/operations.md says; returns once new sessions see it."""
        with slot.connect() as conn:
            conn.execute("LOAD 'pg_flake'")
            conn.execute(f"ALTER SYSTEM SET pg_flake.node = {node}")
            conn.execute("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with slot.connect() as conn:
                conn.execute("LOAD 'pg_flake'")
                if conn.execute("SHOW pg_flake.node").fetchone()[0] == str(node):
                    break
            time.sleep(0.1)
        slot.node = node

    def streaming_sync(self) -> bool:
        """Whether the standby streams from the primary as its synchronous standby."""
        try:
            rows = self.primary.sql(
                "SELECT sync_state FROM pg_stat_replication WHERE application_name = %s",
                (STANDBY_NAME,),
                statement_ms=5000,
            )
        except psycopg.Error:
            return False
        return bool(rows) and rows[0][0] == "sync"

    def wait_replayed(self, timeout: float = 30) -> bool:
        """Waits until the standby has replayed all the primary wrote."""
        try:
            lsn = self.primary.sql("SELECT pg_current_wal_lsn()::text", statement_ms=5000)[0][0]
        except psycopg.Error:
            return False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                done = self.standby.sql(
                    "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (lsn,), statement_ms=5000
                )[0][0]
                if done:
                    return True
            except psycopg.Error:
                pass
            time.sleep(0.2)
        return False

    def start_for_harvest(self, slot: Slot) -> bool:
        """Starts a stopped server on the spare port, where nothing but the
        harvest connects (never as a primary anyone writes to)."""
        server = slot.server
        server.set_clock(slot.offset)
        done = server.pg_ctl(
            "-l",
            server.data / "server.log",
            "-o",
            f"-p {self.harvest_port}",
            "-w",
            "-t",
            "60",
            "start",
            check=False,
        )
        return done.returncode == 0


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (not reaped yet) counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def backend_pids(slot: Slot, any_kind: bool = False) -> list[tuple[int, str]]:
    """(pid, backend_type) of the slot's server's client backends (but the
    nemesis's own), or of every process pg_stat_activity shows."""
    where = "pid <> pg_backend_pid() AND backend_type <> 'startup'"
    if not any_kind:
        where += f" AND backend_type = 'client backend' AND application_name <> '{CTL}'"
    rows = slot.sql(
        f"SELECT pid, backend_type FROM pg_stat_activity WHERE {where} ORDER BY pid",
        statement_ms=5000,
    )
    return [(pid, kind) for pid, kind in rows]
