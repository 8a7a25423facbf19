"""The nemesis on a Citus cluster (``make nemesis NEMESIS_CITUS=1``;
docs/guarantees.md "The nemesis"; issue 46): a coordinator, two workers and
worker1's streaming standby, every server preloading ``citus,pg_flake``
with no pg_flake setting (each node's IDs carry its Citus group), the
nemesis's operations drawn against them, and its checker over every shard.

The model maps onto the nemesis's own (cluster.py): worker1 and its standby
are the line (``a`` and ``b``, primary and standby: the replication
operations fail over, fence and re-attach them as they do a plain primary,
and after each operation the coordinator's catalog is pointed at the
line's primary with ``citus_update_node``, as an operator does after a
worker's failover); the coordinator and worker2 take the role of the
nemesis's second server (writable, outside the line). Writers insert every
format through the coordinator, worker1 and worker2 into distributed
tables (each node evaluating the defaults of what it is sent), and ask the
standby for IDs (it must refuse: it has worker1's group). ``move_shard``
moves a shard between the workers while they write.

At the end every shard placement is read where it lies, from each node's
own catalog (a fenced old worker1's too, started once on the spare port
with Citus's transaction recovery off): the checker sees every row once
per placement and every ID a writer was given.

Ports: the nemesis's row of scripts/ports.txt from its seventh port on (the
Makefile moves PG_FLAKE_SERVERS_PORT), so that a Citus run and a plain one
of the same version do not meet.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from pathlib import Path

import psycopg
import registry
from cluster import DB, FIRST_FREE_NODE, FORMATS, STANDBY_NAME, Cluster, Slot
from registry import Op, pick
from runner import World
from writers import Writer

from harness import PG_BIN

ENABLED = bool(os.environ.get("PG_FLAKE_NEMESIS_CITUS"))

CONF = (
    "shared_preload_libraries = 'citus,pg_flake'",
    "citus.shard_count = 8",
    "citus.node_conninfo = 'sslmode=disable'",
    "citus.node_connection_timeout = 5000",
    "wal_level = logical",
    "max_worker_processes = 16",
    "wal_keep_size = '512MB'",
)
# target: writers (the standby's ask for IDs with SELECT; the others insert)
WRITERS = {"coordinator": 2, "worker1": 2, "worker2": 2, "worker1s": 1}
# The nemesis's operations that apply to this cluster (the clones', the
# holders', node_change and reinstall_library do not), and Citus's own.
OPS = (
    "kill_backend",
    "kill_postmaster",
    "restart",
    "clock_server",
    "clock_right",
    "damage_marks",
    "set_mark",
    "set_mark_live",
    "marks_mode_back",
    "sync_mode",
    "standby_down",
    "standby_up",
    "promote",
    "promote_stale",
    "reattach",
    "move_shard",
)
CITUS_REGISTRY: dict[str, Op] = {}


def require_citus() -> None:
    sharedir = subprocess.run(
        [str(PG_BIN / "pg_config"), "--sharedir"], check=True, capture_output=True, text=True
    ).stdout.strip()
    if not (Path(sharedir) / "extension" / "citus.control").is_file():
        raise AssertionError(
            f"NEMESIS_CITUS: Citus is not installed in {sharedir} (make prereqs-citus)"
        )


def select(spec: str) -> dict[str, Op]:
    return registry.select(spec, {**registry.REGISTRY, **CITUS_REGISTRY}, OPS)


class CitusCluster(Cluster):
    """The cluster's slots: ``coordinator``, ``a`` (worker1), ``b`` (its
    standby), ``worker2``; Cluster's operations on servers as they are."""

    citus = True

    def __init__(self, servers, history):
        self.history = history
        self.coordinator = Slot(servers("coordinator"), "coordinator")
        self.a = Slot(servers("worker1"), "worker1")
        self.b = Slot(servers("worker1s"), "worker1")
        self.worker2 = Slot(servers("worker2"), "worker2")
        self.clones = []
        self.harvest_port = servers("harvest").port
        self.sync = False
        self.next_node = FIRST_FREE_NODE
        # Citus's groups: the coordinator 0, worker1 1, worker2 2.
        self.node_owner = {0: "coordinator", 1: "line", 2: "worker2"}
        self.damaged = {}
        self.lock = threading.RLock()

    def slots(self) -> list[Slot]:
        return [self.coordinator, self.a, self.b, self.worker2]

    def resolve(self, target: str) -> Slot | None:
        slot = {
            "coordinator": self.coordinator,
            "worker2": self.worker2,
            "worker1": self.by_role("primary"),
            "worker1s": self.by_role("standby"),
        }[target]
        return slot if slot is not None and slot.up else None

    def start_for_harvest(self, slot: Slot) -> bool:
        """As Cluster's, with Citus's transaction recovery off: the old
        worker must not resolve the cluster's prepared transactions."""
        server = slot.server
        server.set_clock(slot.offset)
        done = server.pg_ctl(
            "-l",
            server.data / "server.log",
            "-o",
            f"-p {self.harvest_port} -c citus.recover_2pc_interval=-1",
            "-w",
            "-t",
            "60",
            "start",
            check=False,
        )
        return done.returncode == 0


class CitusWorld(World):
    FIRST = "coordinator"
    DESCRIPTION = "Citus: a coordinator, two workers, worker1's streaming standby"
    release = ""

    def __init__(self, *args):
        super().__init__(*args)
        self.xx000_seen: dict[str, int] = {}

    def make_cluster(self, servers, history):
        return CitusCluster(servers, history)

    def setup(self) -> None:
        cluster = self.cluster
        coordinator, worker1, worker2 = cluster.coordinator, cluster.a, cluster.worker2
        for slot, role in ((coordinator, "second"), (worker1, "primary"), (worker2, "second")):
            slot.server.init(*CONF)
            slot.role = role
            cluster.start(slot)
            slot.server.sql(f"CREATE DATABASE {DB}")
            slot.sql("CREATE EXTENSION citus")
        coordinator.sql(f"SELECT citus_set_coordinator_host('127.0.0.1', {coordinator.port})")
        for slot in (worker1, worker2):
            coordinator.sql(f"SELECT citus_add_node('127.0.0.1', {slot.port})")
        coordinator.sql("CREATE EXTENSION pg_flake")
        for slot in (coordinator, worker1, worker2):
            slot.node = slot.sql("SELECT groupid FROM pg_dist_local_group")[0][0]
        assert (coordinator.node, worker1.node, worker2.node) == (0, 1, 2)
        self.release = coordinator.sql("SELECT citus_version()")[0][0].split(" on ")[0]
        for fmt, (sql_type, generate, _) in FORMATS.items():
            coordinator.sql(
                f"CREATE TABLE t_{fmt} (id {sql_type} PRIMARY KEY DEFAULT {generate},"
                " origin text NOT NULL, ord int NOT NULL, at float8)"
            )
            coordinator.sql(f"SELECT create_distributed_table('t_{fmt}', 'id')")
        # Every format generated once on worker1, so that its standby
        # knows the line's node of each (docs/operations.md).
        worker1.sql(
            "SELECT sno_generate(), siq_generate('user'), snowflake_generate(), kuid96_generate()"
        )
        standby = cluster.b
        cluster.make_clone(standby, worker1, STANDBY_NAME)
        standby.role, standby.node, standby.may_generate = "standby", 1, False
        cluster.start(standby)
        self.deadline = time.monotonic() + self.minutes * 60
        for target, n in WRITERS.items():
            self.writers += [Writer(self, target, i) for i in range(n)]
        for writer in self.writers:
            writer.start()
        self.watchdog.start()

    def after_op(self) -> None:
        """The coordinator's catalog follows the line's primary (worker1's
        group): citus_update_node after a promotion, as the operator's
        failover does."""
        primary, coordinator = self.cluster.primary, self.cluster.coordinator
        if primary is None or not primary.up or not coordinator.up:
            return
        try:
            port = coordinator.sql("SELECT nodeport FROM pg_dist_node WHERE groupid = 1")[0][0]
            if port != primary.port:
                coordinator.sql(
                    "SELECT citus_update_node(nodeid, '127.0.0.1', %s) FROM pg_dist_node"
                    " WHERE groupid = 1",
                    (primary.port,),
                )
                self.history.note("citus_update_node after a promotion")
        except psycopg.Error as e:
            self.history.note(f"citus_update_node put off ({e.sqlstate})")

    def harvest(self, slot, port=None) -> int:
        """Every row of the placements the slot's own catalog puts on it
        (the coordinator has none), shard table by shard table."""
        total = 0
        for fmt, (_, _, decode) in FORMATS.items():
            shards = slot.sql(
                "SELECT shardid FROM pg_dist_shard JOIN pg_dist_placement USING (shardid)"
                " WHERE logicalrelid = %s::regclass"
                " AND groupid = (SELECT groupid FROM pg_dist_local_group) ORDER BY shardid",
                (f"t_{fmt}",),
                port=port,
            )
            for (shard,) in shards:
                rows = slot.sql(
                    f"SELECT id::text, origin || ':' || ord,"
                    f" (extract(epoch FROM {decode}(id)) * 1000000)::bigint, at"
                    f" FROM t_{fmt}_{shard}",
                    statement_ms=120000,
                    port=port,
                )
                self.store.add(fmt, slot.lineage, f"harvest {slot.label}", self.history.now(), rows)
                total += len(rows)
        return total

    def scan_log(self, slot) -> None:
        """As World's, and the internal errors (XX000) of the log counted
        in the figures' events by message: Citus reports many of its own
        refusals so (a node it cannot reach, a shard being moved)."""
        super().scan_log(slot)
        seen = self.xx000_seen.get(slot.label, 0)
        lines = [line for line in slot.server.log().splitlines() if " XX000 ERROR: " in line]
        for line in lines[seen:]:
            message = re.sub(r"\d+", "N", line.split(" XX000 ERROR: ", 1)[1].strip())
            self.history.note(f"XX000 in the logs: {message[:120]}")
        self.xx000_seen[slot.label] = max(seen, len(lines))


def register_citus(cls: type[Op]) -> type[Op]:
    CITUS_REGISTRY[cls.name] = cls()
    return cls


@register_citus
class MoveShard(Op):
    """A shard of a format's table moved between worker1 (the line's
    primary) and worker2 while the writers go on:
    ``citus_move_shard_placement``, writes blocked during the copy or by
    logical replication."""

    name = "move_shard"

    def plan(self, world, rng):
        cluster = world.cluster
        primary = cluster.primary
        if primary is None or not (primary.up and cluster.worker2.up and cluster.coordinator.up):
            return None
        return {
            "format": pick(rng, list(FORMATS)),
            "pick": round(rng.random(), 3),
            "mode": pick(rng, ["block_writes", "force_logical"]),
        }

    def run(self, world, plan):
        cluster = world.cluster
        fmt = plan["format"]
        ports = {cluster.primary.port, cluster.worker2.port}
        shards = [
            (shard, port)
            for shard, port in cluster.coordinator.sql(
                "SELECT shardid, nodeport FROM pg_dist_shard_placement JOIN pg_dist_shard"
                " USING (shardid) WHERE logicalrelid = %s::regclass ORDER BY shardid",
                (f"t_{fmt}",),
            )
            if port in ports
        ]
        if not shards:
            return "skipped: no placement on the workers in the catalog"
        shard, source = shards[int(plan["pick"] * len(shards))]
        (target,) = ports - {source}
        cluster.coordinator.sql(
            f"SELECT citus_move_shard_placement({shard}, '127.0.0.1', {source},"
            f" '127.0.0.1', {target}, shard_transfer_mode => %s)",
            (plan["mode"],),
            statement_ms=180000,
        )
        return f"t_{fmt} shard {shard} moved from :{source} to :{target} ({plan['mode']})"
