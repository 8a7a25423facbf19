"""A Citus worker killed (kill -9) while writers insert through every node,
its synchronous streaming standby promoted and put in its place
(``citus_update_node``), the writers going on through the promoted worker:
its pg_flake IDs stay distinct from the dead worker's and from every other
node's (``make test-citus``; issue 46). Citus fixed duplicate values of its
own sequences in exactly this case (citusdata/citus#8654).

The standby shares the worker's group id (Citus's catalog is replicated),
so while in recovery it must refuse every coordination-based format (25006,
docs/operations.md "Standbys and failover"), and once promoted it takes the
dead worker's node and continues above every mark it replayed: the
worker's standby is synchronous (``synchronous_standby_names``), as the
documentation asks of a standby that is to be promoted.

Checked: every ID any writer was given, and every row found afterwards in
the cluster's shards and in the dead worker's own data directory (started
once on a spare port), given once; the promoted worker's IDs above every ID
of the dead one, format by format; kuid64 refused everywhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import psycopg
import pytest
from citus_cluster import (
    DB,
    FORMATS,
    KUID64,
    Cluster,
    counted,
    create_tables,
    form,
    harvest,
    per_origin,
    refusal,
    repeated,
    require_citus,
    start_server,
    unique_violations,
)
from traffic import Traffic

from harness import Server, aligned

require_citus()

SECONDS = 5  # of writes before the kill, and again after the promotion
WRITERS = {"coordinator": 1, "worker1": 2, "worker2": 1}


@dataclass
class Standby:
    cluster: Cluster
    standby: Server
    spare_port: int
    refusals: dict = field(default_factory=dict)  # format: what generating did
    node_rows: list = field(default_factory=list)  # pg_flake_node() on the standby
    node_error: str = ""


@pytest.fixture(scope="module")
def standby(module_servers) -> Standby:
    """Coordinator, two workers, worker1's synchronous standby; what the
    standby does when asked for IDs."""
    cluster = Cluster()
    cluster.add("coordinator", start_server(module_servers, "coordinator"))
    cluster.add("worker1", start_server(module_servers, "worker1"), label="worker1 (killed)")
    cluster.add("worker2", start_server(module_servers, "worker2"))
    form(cluster, ("worker1", "worker2"))
    create_tables(cluster, "t")
    worker1 = cluster.servers["worker1"]
    standby = module_servers("worker1s").clone_of(worker1)
    standby.start()
    # Synchronous once the standby is there (a commit would wait for one).
    worker1.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
    worker1.sql("SELECT pg_reload_conf()")
    worker1.wait_for("SELECT EXISTS (SELECT FROM pg_stat_replication WHERE sync_state = 'sync')")
    spare_port = module_servers("spare").port
    s = Standby(cluster, standby, spare_port)
    # The worker generates every format (a mark record of each), replayed.
    cluster.sql(
        "worker1",
        "SELECT sno_generate(), siq_generate('event'), snowflake_generate(), kuid96_generate()",
    )
    worker1.wait_for_replay(standby)
    for name, (_, gen) in {**FORMATS, "kuid64": KUID64}.items():
        s.refusals[name] = refusal(standby, gen)
    try:
        with standby.connect(DB) as conn:
            s.node_rows = conn.execute(
                "SELECT format, node, source, problem FROM pg_flake_node() ORDER BY format"
            ).fetchall()
    except psycopg.Error as e:
        s.node_error = f"{e.sqlstate}: {e.diag.message_primary}"
    return s


@dataclass
class Failover:
    cluster: Cluster
    traffic: Traffic
    groups: dict  # name: group id
    node_fields: dict  # name: {format: node field of a new ID}
    promoted_node: list  # pg_flake_node() on the promoted worker
    steps: list  # (what, seconds)
    harvested: list  # (format, id, key, origin) of every row in the cluster
    dead_rows: list  # the same, of the dead worker's own shards
    dead_port: int
    promoted_port: int
    pg_dist_node: list
    kuid64: dict  # name: what kuid64_generate() did


def promote(cluster: Cluster, standby: Server, steps: list) -> None:
    """The documented failover of a worker (docs/operations.md "Several
    servers"): the standby promoted, its synchronous_standby_names reset (a
    clone of a worker configured before it was cloned copies the worker's,
    and its commits would wait for a standby it does not have), the
    coordinator pointed at it."""
    t = time.monotonic()
    standby.promote()
    standby.wait_for("SELECT NOT pg_is_in_recovery()")
    standby.sql("ALTER SYSTEM SET synchronous_standby_names = ''")
    standby.sql("SELECT pg_reload_conf()")
    steps.append(("promoted, synchronous_standby_names reset", time.monotonic() - t))
    t = time.monotonic()
    node_id = cluster.coord(
        "SELECT nodeid FROM pg_dist_node WHERE nodeport = %s", (cluster.port("worker1"),)
    )
    cluster.coord(f"SELECT citus_update_node({node_id}, '127.0.0.1', {standby.port})")
    cluster.add("worker1", standby, label="worker1s (promoted)")
    steps.append(("citus_update_node", time.monotonic() - t))


def harvest_dead(dead: Server, port: int) -> list[tuple]:
    """The rows of the dead worker's own shards, read from its data
    directory started once on ``port`` (its transaction recovery off: it
    must change nothing in the cluster), then stopped."""
    done = dead.pg_ctl(
        "-l",
        dead.data / "server.log",
        "-o",
        f"-p {port} -c citus.recover_2pc_interval=-1",
        "-w",
        "-t",
        "60",
        "start",
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the dead worker did not start again:\n{dead.log_tail()}")
    rows = []
    try:
        with psycopg.connect(
            host="127.0.0.1", port=port, user="postgres", dbname=DB, autocommit=True
        ) as conn:
            for fmt in FORMATS:
                shards = conn.execute(
                    "SELECT s.shardid FROM pg_dist_shard s JOIN pg_dist_placement p USING"
                    " (shardid) WHERE s.logicalrelid = %s::regclass"
                    " AND p.groupid = (SELECT groupid FROM pg_dist_local_group)",
                    (f"t_{fmt}",),
                ).fetchall()
                for (shard,) in shards:
                    rows += [
                        (fmt, *row)
                        for row in conn.execute(
                            f"SELECT id::text, writer || ':' || ord, origin FROM t_{fmt}_{shard}"
                        ).fetchall()
                    ]
    finally:
        dead.pg_ctl("-m", "immediate", "-w", "stop", check=False)
    return rows


@pytest.fixture(scope="module")
def failover(standby) -> Failover:
    cluster, replacement = standby.cluster, standby.standby
    dead = cluster.servers["worker1"]
    groups = {name: cluster.group(name) for name in ("coordinator", "worker1", "worker2")}
    fields = {"worker1 (killed)": cluster.node_fields("worker1")}
    steps = []
    traffic = Traffic(cluster, "t", WRITERS)
    with traffic:
        traffic.run_for(SECONDS)
        t = time.monotonic()
        dead.kill9()
        steps.append(("kill -9 of worker1", time.monotonic() - t))
        promote(cluster, replacement, steps)
        traffic.run_for(SECONDS)
    t = time.monotonic()
    cluster.wait_metadata_synced()
    steps.append(("metadata synced to every worker", time.monotonic() - t))
    groups["worker1s (promoted)"] = cluster.group("worker1")
    fields["worker1s (promoted)"] = cluster.node_fields("worker1")
    promoted_node = cluster.sql(
        "worker1", "SELECT format, node, source, problem FROM pg_flake_node() ORDER BY format"
    )
    harvested = [
        (fmt, *row)
        for fmt in FORMATS
        for row in harvest(cluster.servers["coordinator"], f"t_{fmt}")
    ]
    kuid64 = {name: refusal(server, KUID64[1]) for name, server in cluster.servers.items()}
    dead_rows = harvest_dead(dead, standby.spare_port)
    return Failover(
        cluster,
        traffic,
        groups,
        fields,
        promoted_node,
        steps,
        harvested,
        dead_rows,
        dead.port,
        replacement.port,
        cluster.pg_dist_node(),
        kuid64,
    )


def test_the_standby_refuses_every_format(standby, figures):
    """In recovery, the worker's standby has the worker's group: every
    coordination-based format refuses (25006), kuid64 too."""
    for name, out in standby.refusals.items():
        figures(f"worker1's standby: {name}: {out}")
    wrong = {n: out for n, out in standby.refusals.items() if not out.startswith("refused: 25006")}
    assert not wrong, wrong


def test_pg_flake_node_on_the_standby(standby, figures):
    """pg_flake_node() answers on the standby, with the reason of each
    refusal (never an internal error)."""
    for row in standby.node_rows:
        figures(f"pg_flake_node() on worker1's standby: {row}")
    assert not standby.node_error, standby.node_error
    assert {row[0] for row in standby.node_rows} >= set(FORMATS)
    assert all(problem for _, _, _, problem in standby.node_rows), standby.node_rows


def test_the_promoted_worker_takes_the_dead_workers_node(failover, figures):
    for what, seconds in failover.steps:
        figures(f"{what}: {seconds:.1f} s")
    for line in failover.pg_dist_node:
        figures(line)
    figures(f"groups: {failover.groups}")
    for name, f in failover.node_fields.items():
        figures(f"node fields of new IDs on {name}: {f}")
    for row in failover.promoted_node:
        figures(f"pg_flake_node() on the promoted worker: {row}")
    assert failover.groups["worker1s (promoted)"] == failover.groups["worker1"]
    assert failover.node_fields["worker1s (promoted)"] == failover.node_fields["worker1 (killed)"]
    from_citus = {fmt for fmt, _, source, problem in failover.promoted_node if source == "citus"}
    assert from_citus >= set(FORMATS), failover.promoted_node


def test_every_id_distinct(failover, figures):
    """Every ID a writer was given, every row in the cluster and in the
    dead worker's shards: none given twice."""
    t = failover.traffic
    everything = t.issued + failover.harvested + failover.dead_rows
    figures(
        f"writers: {len(t.threads)} for {t.seconds:.1f} s; IDs given: {len(t.issued)}; rows in"
        f" the cluster afterwards: {len(failover.harvested)}; rows of the dead worker's"
        f" shards: {len(failover.dead_rows)}"
    )
    figures(f"connections lost: {counted(t.counts['lost'])}")
    figures(f"refused: {counted(t.counts['refused'])}")
    for line in aligned(
        ("format", "made_on", "distinct_ids"), per_origin(failover.cluster, everything)
    ):
        figures(line)
    twice = repeated(everything)
    assert not twice, {fmt: found[:3] for fmt, found in twice.items()}
    assert not t.findings, t.findings[:5]
    made = {origin for _, _, _, origin in t.issued}
    assert {failover.dead_port, failover.promoted_port} <= made, made


def test_the_promoted_worker_continues_above_the_dead_one(failover, figures):
    """Format by format, the promoted worker's lowest ID is above the
    highest the dead worker made (given to a writer or stored), in the
    type's own order: it continued above every mark it replayed."""
    everything = failover.traffic.issued + failover.harvested + failover.dead_rows
    below = {}
    for fmt, (kind, _) in FORMATS.items():
        dead = [i for f, i, _, o in everything if f == fmt and o == failover.dead_port]
        new = [i for f, i, _, o in everything if f == fmt and o == failover.promoted_port]
        top, bottom, above = failover.cluster.sql(
            "coordinator",
            f"SELECT (SELECT max(v::{kind}) FROM unnest(%s::text[]) v),"
            f" (SELECT min(v::{kind}) FROM unnest(%s::text[]) v),"
            f" (SELECT max(v::{kind}) FROM unnest(%s::text[]) v)"
            f" < (SELECT min(v::{kind}) FROM unnest(%s::text[]) v)",
            (dead, new, dead, new),
        )[0]
        figures(
            f"{fmt}: the dead worker's highest {top} ({len(dead)} IDs), the promoted"
            f" worker's lowest {bottom} ({len(new)} IDs)"
        )
        if not (dead and new and above):
            below[fmt] = (top, bottom)
    assert not below, below


def test_kuid64_refused_on_every_node(failover, figures):
    for name, out in failover.kuid64.items():
        figures(f"{name}: kuid64_generate(): {out}")
    wrong = {n: out for n, out in failover.kuid64.items() if not out.startswith("refused: 55000")}
    assert not wrong, wrong


def test_no_unique_violation_in_any_log(failover):
    servers = list(failover.cluster.servers.values())
    assert not unique_violations(servers), unique_violations(servers)[:5]
