"""The nemesis's run: the cluster set up, writers, holders and the watchdog
started, then operations drawn one after another from a seeded
``random.Random`` until the time is up, then everything stopped, every
server's rows harvested, and the checker's verdict.

Reproducibility: the operation at step n is drawn by the run's generator
among the operations whose ``plan`` applies to the model, and each plan's
parameters come from a generator of its own seeded with (seed, n, name), so
a seed gives one sequence of operations, timing differences aside (an
operation finding reality unlike the model says "skipped").
"""

from __future__ import annotations

import random
import shutil
import threading
import time
from pathlib import Path

import managed_edition
import ops_clock  # noqa: F401  (each ops_* module registers its operations)
import ops_clone  # noqa: F401
import ops_leases  # noqa: F401
import ops_marks  # noqa: F401
import ops_nodes  # noqa: F401
import ops_partitions
import ops_process  # noqa: F401
import ops_replication  # noqa: F401
import psycopg
from checker import CheckResult, Store, check
from cluster import DB, FORMATS, LEASED, LINE_CONF, STANDBY_NAME, Cluster, ServerFailed
from history import History
from holders import Holder
from ops_leases import INTRUDER
from watchdog import Watchdog
from writers import Writer

ROLES = ("app_rust", "app_py", "app_ts", "app_go", "app_java", INTRUDER)
WRITERS = {"primary": 2, "second": 2, "standby": 1, "clone1": 1, "clone2": 1}


class World:
    # The first server made (its data directory's parent holds the run's
    # files) and what the figures call the cluster; citus_world.CitusWorld
    # has its own.
    FIRST = "a"
    DESCRIPTION = "a preloaded primary, its streaming standby, a second server, clones"
    release = ""  # a component's release the figures name (CitusWorld: Citus's)

    def __init__(self, servers, seed: int, minutes: float, ops: dict, rust_writer: Path):
        self.seed = seed
        self.minutes = minutes
        self.ops = ops
        self.rust_writer = rust_writer
        self.stop = threading.Event()
        self.model: dict = {}
        self.step = 0
        self.holders: list[Holder] = []
        probe = servers(self.FIRST)
        self.root = probe.data.parent / "nemesis"
        shutil.rmtree(self.root, ignore_errors=True)  # an earlier run's
        self.root.mkdir(parents=True)
        self.history = History(self.root / "history.txt")
        self.store = Store(self.root / "issued")
        self.cluster = self.make_cluster(_Reuse(servers, probe), self.history)
        self.writers: list[Writer] = []
        self.watchdog = Watchdog(self)
        self.panics_seen: dict[str, int] = {}
        self.deadline = time.monotonic() + minutes * 60
        self.all_ops: list[str] = []

    def make_cluster(self, servers, history):
        return Cluster(servers, history)

    # --- lookups -----------------------------------------------------------

    def slot(self, name: str):
        return next(s for s in self.cluster.slots() if s.name == name)

    def holder(self, name: str) -> Holder:
        return next(h for h in self.holders if h.name == name)

    def seconds_left(self) -> float:
        return self.deadline - time.monotonic()

    def add_holder(self, holder: Holder, seconds: float) -> str:
        self.holders.append(holder)
        holder.start(seconds)
        return holder.label

    # --- setting up --------------------------------------------------------

    def setup(self) -> None:
        cluster = self.cluster
        a, b, second = cluster.a, cluster.b, cluster.second
        a.server.init(*LINE_CONF)
        a.role = "primary"
        cluster.start(a)
        a.server.create_database(DB)
        make_tables(a, holders=True)
        cluster.set_node(a, 1)
        # Every format generated once on the primary, so that its standby
        # knows the line's node of each (docs/operations.md).
        for fmt in FORMATS:
            a.sql(f"INSERT INTO t_{fmt} (origin, ord) VALUES ('setup', 1)")
        # pg_flake_sql beside it, one more writer (managed_edition.py).
        managed_edition.setup(self, a)
        cluster.make_clone(b, a, STANDBY_NAME)
        b.role, b.node, b.may_generate = "standby", 1, False
        cluster.start(b)
        second.server.init(preload=False)
        second.role = "second"
        cluster.start(second)
        second.server.create_database(DB)
        make_tables(second, holders=False)
        cluster.set_node(second, 2)
        self.deadline = time.monotonic() + self.minutes * 60
        for target, n in WRITERS.items():
            self.writers += [Writer(self, target, i) for i in range(n)]
        self.writers += managed_edition.writers(self)
        for fmt in LEASED:
            for kind, role in (
                ("rust", "app_rust"),
                ("python", "app_py"),
                ("typescript", "app_ts"),
                ("go", "app_go"),
                ("java", "app_java"),
            ):
                self.holders.append(Holder(self, f"{kind}-{fmt}", kind, fmt, role))
        for writer in self.writers:
            writer.start()
        self.watchdog.start()

    # --- running -------------------------------------------------------------

    def maintain(self) -> None:
        for holder in self.holders:
            holder.maintain(self.seconds_left())

    def run(self) -> None:
        rng = random.Random(self.seed)
        while time.monotonic() < self.deadline:
            self.maintain()
            self.step += 1
            planned = []
            for name, op in self.ops.items():
                plan = op.plan(self, random.Random(f"{self.seed}:{self.step}:{name}"))
                if plan is not None:
                    planned.append((op, plan, op.weight(self)))
            if not planned:
                time.sleep(1)
                continue
            op, plan = choose(rng, planned)
            params = ", ".join(f"{k}={v}" for k, v in plan.items())
            entry = self.history.begin(self.step, op.name, params)
            try:
                outcome = op.run(self, plan)
            except ServerFailed as e:
                self.history.find("server-failed", str(e))
                self.history.end(entry, "server failed")
                return
            except Exception as e:  # an operation that failed: recorded, the run goes on
                outcome = f"failed: {type(e).__name__}: {e}"[:400]
                self.history.failed[op.name] += 1
            self.history.end(entry, outcome)
            self.after_op()
            if outcome.startswith("skipped"):
                self.history.skipped[op.name] += 1
            elif not outcome.startswith("failed"):
                self.history.ops[op.name] += 1
            pause = time.monotonic() + rng.uniform(0.3, 2.5)
            while time.monotonic() < min(pause, self.deadline):
                self.maintain()
                time.sleep(0.1)

    def after_op(self) -> None:
        """What follows every operation (citus_world.CitusWorld: Citus's
        catalog follows a promotion)."""

    # --- finishing -------------------------------------------------------------

    def finish(self) -> None:
        """Writers, holders and the watchdog stopped; every server's rows
        harvested and its log read for PANICs."""
        self.stop.set()
        for writer in self.writers:
            writer.join(30)
        for holder in self.holders:
            holder.stop()
        if self.watchdog.is_alive():
            self.watchdog.join(30)
        for slot in self.cluster.slots():
            if slot.role is None:
                continue
            if slot.role == "fenced":
                self.harvest_stopped(slot)
            elif slot.up and slot.role in ("primary", "second"):
                try:
                    self.harvest(slot)
                    if slot.role == "primary":
                        managed_edition.harvest(self, slot)
                except psycopg.Error as e:
                    self.history.note(f"harvest of {slot.label} failed: {e.sqlstate}")
                self.read_stats(slot)
            self.scan_log(slot)

    def check(self) -> CheckResult:
        self.history.close()
        return check(self.store, self.root / "holders")

    def harvest(self, slot, port=None) -> int:
        """Every row of the slot's tables, as issuances (a row recorded by
        its writer already is the same issuance)."""
        total = 0
        for fmt, (_, _, decode) in FORMATS.items():
            rows = slot.sql(
                f"SELECT id::text, origin || ':' || ord,"
                f" (extract(epoch FROM {decode}(id)) * 1000000)::bigint, at FROM t_{fmt}",
                statement_ms=120000,
                port=port,
            )
            self.store.add(fmt, slot.lineage, f"harvest {slot.label}", self.history.now(), rows)
            total += len(rows)
        # The line's partitioned sno table (ops_partitions.py), where it is.
        if slot.sql(f"SELECT to_regclass('{ops_partitions.TABLE}') IS NOT NULL", port=port)[0][0]:
            rows = slot.sql(
                "SELECT id::text, origin || ':' || ord,"
                " (extract(epoch FROM sno_timestamp(id)) * 1000000)::bigint, at"
                f" FROM {ops_partitions.TABLE}",
                statement_ms=120000,
                port=port,
            )
            self.store.add("sno", slot.lineage, f"harvest {slot.label}", self.history.now(), rows)
            total += len(rows)
        return total

    def read_stats(self, slot) -> None:
        """pg_flake_stats of a live server after everything the run did to it
        (docs/sql-reference.md "Statistics"): a row per format, counted in
        the notes; an internal error (XX000) or a format missing is a
        finding. Other errors (a library replaced by reinstall_library
        refuses until a restart, 55000) are noted."""
        try:
            rows = slot.sql("SELECT format, issued, refusals FROM pg_flake_stats")
        except psycopg.Error as e:
            if e.sqlstate == "XX000":
                self.history.find("stats", f"{slot.label}: pg_flake_stats: {e}")
            else:
                self.history.note(f"pg_flake_stats refused: {e.sqlstate}")
            return
        missing = set(FORMATS) - {fmt for fmt, _, _ in rows}
        if missing:
            self.history.find("stats", f"{slot.label}: pg_flake_stats has no row of {missing}")
        self.history.note("IDs counted by pg_flake_stats", sum(issued for _, issued, _ in rows))
        self.history.note("refusals counted by pg_flake_stats", sum(r for _, _, r in rows))

    def harvest_stopped(self, slot) -> int:
        """A stopped server started once on the spare port, harvested, stopped."""
        self.scan_log(slot)
        if not self.cluster.start_for_harvest(slot):
            self.history.note(f"harvest of {slot.label}: it did not start")
            return 0
        try:
            return self.harvest(slot, port=self.cluster.harvest_port)
        except psycopg.Error as e:
            self.history.note(f"harvest of {slot.label} failed: {e.sqlstate}")
            return 0
        finally:
            slot.server.pg_ctl("-m", "immediate", "-w", "stop", check=False)
            self.scan_log(slot)

    def scan_log(self, slot) -> None:
        """A PANIC in a server's log is a finding (each reported once)."""
        panics = [line for line in slot.server.log().splitlines() if " PANIC: " in line]
        seen = self.panics_seen.get(slot.label, 0)
        for line in panics[seen:]:
            self.history.find("panic", f"{slot.label}: {line}")
        self.panics_seen[slot.label] = max(seen, len(panics))


def choose(rng: random.Random, planned: list):
    """One (op, plan) of ``planned`` ((op, plan, weight) in the registry's
    order), by weight."""
    x = rng.random() * sum(w for _, _, w in planned)
    for op, plan, w in planned:
        x -= w
        if x < 0:
            return op, plan
    return planned[-1][0], planned[-1][1]


class _Reuse:
    """The ``servers`` fixture, giving back the server already made under a name."""

    def __init__(self, servers, first):
        self.servers = servers
        self.made = {first.name: first}

    def __call__(self, name: str):
        if name not in self.made:
            self.made[name] = self.servers(name)
        return self.made[name]


def make_tables(slot, holders: bool) -> None:
    """A table per format filled by DEFAULT (the row's writer statement and
    number: the issuance key); on the line, the holders' tables and roles."""
    with slot.connect() as conn:
        for fmt, (sql_type, generate, _) in FORMATS.items():
            conn.execute(
                f"CREATE TABLE t_{fmt} (id {sql_type} PRIMARY KEY DEFAULT {generate},"
                " origin text NOT NULL, ord int NOT NULL, at float8)"
            )
        if not holders:
            return
        # The line's partitioned table (ops_partitions.py).
        ops_partitions.create_table(conn)
        for role in ROLES:
            conn.execute(f"CREATE ROLE {role} LOGIN")
        roles = ", ".join(ROLES)
        conn.execute(
            "GRANT EXECUTE ON FUNCTION pg_flake_lease(text, text, interval),"
            " pg_flake_renew(bigint, interval), pg_flake_release(bigint, timestamptz)"
            f" TO {roles}"
        )
        conn.execute(f"GRANT SELECT ON pg_flake_leases TO {roles}")
        for fmt in LEASED:
            sql_type = FORMATS[fmt][0]
            conn.execute(f"CREATE TABLE h_{fmt} (id {sql_type} PRIMARY KEY, lease_id bigint)")
            conn.execute(f"GRANT INSERT ON h_{fmt} TO {roles}")
