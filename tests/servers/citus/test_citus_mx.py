"""Writes through every node of a Citus cluster whose metadata is synced to
the workers (MX, Citus's default since 11), into distributed tables and
into reference tables whose key is generated (``make test-citus``; issue
46).

A write sent to a worker is planned there, and the worker evaluates the
defaults: each node's IDs carry the node of its own group (0 on the
coordinator). A reference table's row is evaluated once, on the node the
write was sent to, then replicated: every node's placement holds the same
IDs. ``INSERT ... SELECT`` between distributed tables sent to a worker is
repartitioned, and every worker evaluates defaults for the rows of its
shards.

Checked: every ID given once (the writers' and every row of every table),
each server's IDs carrying its group's node, the reference tables'
placements identical on every node, kuid64 refused everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from citus_cluster import (
    FORMATS,
    KUID64,
    Cluster,
    counted,
    create_tables,
    form,
    harvest,
    nodes_by_origin,
    per_origin,
    refusal,
    repeated,
    require_citus,
    start_server,
    unique_violations,
)
from traffic import Traffic

from harness import aligned

require_citus()

SECONDS = 5
NODES = ("coordinator", "worker1", "worker2")
WORKERS = NODES[1:]


@dataclass
class Mx:
    cluster: Cluster
    pg_dist_node: list = field(default_factory=list)
    distributed: Traffic | None = None
    reference: Traffic | None = None
    copied: dict = field(default_factory=dict)  # format: rows INSERT ... SELECT added
    harvested: list = field(default_factory=list)  # distributed tables
    reference_rows: list = field(default_factory=list)
    # format: {node: (rows, distinct IDs, md5 of the sorted IDs)} of the placements
    placements: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)
    nodes: dict = field(default_factory=dict)  # (table, format, origin): node fields
    kuid64: dict = field(default_factory=dict)


def placement_digest(cluster: Cluster, name: str, shard_table: str) -> tuple:
    """A reference table's placement on ``name``, read directly."""
    return tuple(
        cluster.sql(
            name,
            f"SELECT count(*), count(DISTINCT id),"
            f" md5(string_agg(id::text, ',' ORDER BY id)) FROM {shard_table}",
        )[0]
    )


@pytest.fixture(scope="module")
def mx(module_servers) -> Mx:
    cluster = Cluster()
    for name in NODES:
        cluster.add(name, start_server(module_servers, name))
    form(cluster, WORKERS)
    cluster.wait_metadata_synced()
    m = Mx(cluster, pg_dist_node=cluster.pg_dist_node())
    m.groups = {cluster.port(n): cluster.group(n) for n in NODES}
    create_tables(cluster, "t")
    create_tables(cluster, "r", how="reference")
    every = dict.fromkeys(NODES, 1)
    with Traffic(cluster, "t", every) as m.distributed, Traffic(cluster, "r", every) as m.reference:
        m.distributed.run_for(SECONDS)
    # Through worker1: the rows of t_F copied into it with new IDs,
    # repartitioned (each worker evaluates the defaults of its shards' rows).
    for fmt in FORMATS:
        with cluster.servers["worker1"].connect("flake_citus") as conn:
            m.copied[fmt] = conn.execute(
                f"INSERT INTO t_{fmt} (writer, ord) SELECT 'copied ' || writer, ord FROM t_{fmt}"
            ).rowcount
    coordinator = cluster.servers["coordinator"]
    m.harvested = [(fmt, *row) for fmt in FORMATS for row in harvest(coordinator, f"t_{fmt}")]
    m.reference_rows = [(fmt, *row) for fmt in FORMATS for row in harvest(coordinator, f"r_{fmt}")]
    for fmt in FORMATS:
        shard = cluster.coord(
            "SELECT shardid FROM pg_dist_shard WHERE logicalrelid = %s::regclass", (f"r_{fmt}",)
        )
        m.placements[fmt] = {n: placement_digest(cluster, n, f"r_{fmt}_{shard}") for n in NODES}
    for prefix in ("t", "r"):
        for (fmt, origin), nodes in nodes_by_origin(cluster, prefix).items():
            m.nodes[(prefix, fmt, origin)] = nodes
    m.kuid64 = {n: refusal(cluster.servers[n], KUID64[1]) for n in NODES}
    return m


def test_metadata_is_synced_to_every_worker(mx, figures):
    for line in mx.pg_dist_node:
        figures(line)
    synced = mx.cluster.sql(
        "coordinator", "SELECT bool_and(hasmetadata AND metadatasynced) FROM pg_dist_node"
    )
    assert synced == [(True,)]


def test_every_id_distinct(mx, figures):
    """Distributed and reference tables: every ID a writer was given, every
    row, none twice."""
    for label, traffic in (("distributed", mx.distributed), ("reference", mx.reference)):
        figures(
            f"{label} tables: {len(traffic.threads)} writers for {traffic.seconds:.1f} s,"
            f" {len(traffic.issued)} IDs; lost: {counted(traffic.counts['lost'])};"
            f" refused: {counted(traffic.counts['refused'])}"
        )
    figures(f"INSERT ... SELECT through worker1, rows: {mx.copied}")
    everything = mx.distributed.issued + mx.reference.issued + mx.harvested + mx.reference_rows
    for line in aligned(("format", "made_on", "distinct_ids"), per_origin(mx.cluster, everything)):
        figures(line)
    twice = repeated(everything)
    assert not twice, {fmt: found[:3] for fmt, found in twice.items()}
    assert not mx.distributed.findings + mx.reference.findings
    # Every node made IDs of every format, for both kinds of table.
    made = {(fmt, origin) for fmt, _, _, origin in mx.distributed.issued + mx.reference.issued}
    assert made == {(fmt, mx.cluster.port(n)) for fmt in FORMATS for n in NODES}, made


def test_each_node_generates_with_its_group(mx, figures):
    """The node field of every ID is the group id of the server that made
    it: the coordinator's 0, each worker's own."""
    wrong = {}
    for (prefix, fmt, origin), nodes in sorted(mx.nodes.items()):
        name = mx.cluster.names.get(origin, origin)
        figures(f"{prefix}_{fmt}: made on {name} (group {mx.groups.get(origin)}): nodes {nodes}")
        if nodes != [mx.groups.get(origin)]:
            wrong[(prefix, fmt, name)] = nodes
    assert not wrong, wrong
    # The INSERT ... SELECT was evaluated on both workers.
    copied_on = {o for (p, _, o) in mx.nodes if p == "t"}
    assert {mx.cluster.port(w) for w in WORKERS} <= copied_on


def test_reference_placements_are_identical(mx, figures):
    """A reference table's row is evaluated once: every node's placement
    holds the same IDs, as many as the rows."""
    different = {}
    for fmt, by_node in mx.placements.items():
        figures(f"r_{fmt}: placements (rows, distinct IDs, md5): {by_node}")
        rows = sum(1 for f, *_ in mx.reference_rows if f == fmt)
        if len(set(by_node.values())) != 1 or next(iter(by_node.values()))[:2] != (rows, rows):
            different[fmt] = (rows, by_node)
    assert not different, different


def test_kuid64_refused_on_every_node(mx, figures):
    for name, out in mx.kuid64.items():
        figures(f"{name}: kuid64_generate(): {out}")
    wrong = {n: out for n, out in mx.kuid64.items() if not out.startswith("refused: 55000")}
    assert not wrong, wrong


def test_no_unique_violation_in_any_log(mx):
    servers = list(mx.cluster.servers.values())
    assert not unique_violations(servers), unique_violations(servers)[:5]
