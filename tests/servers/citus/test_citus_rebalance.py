"""``citus_rebalance_start`` while writers insert through every node
(``make test-citus``; issue 46): the shards of every table start on worker1,
worker2 is then allowed shards, and the rebalancer moves half of them
there in the background (logical replication, then a short block of
writes at the switch) while the writers go on.

A moved row keeps its ID: the shard copy carries the values, it never
evaluates a default again. Checked: every row in the tables afterwards is
one a writer inserted, with the ID the writer was given (but those of
statements whose outcome the writer could not know: a connection lost),
every ID a writer was given is there, none twice; the shards are on both
workers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pytest
from citus_cluster import (
    FORMATS,
    Cluster,
    counted,
    create_tables,
    form,
    harvest,
    per_origin,
    repeated,
    require_citus,
    start_server,
    unique_violations,
)
from traffic import Traffic

from harness import aligned

require_citus()

NODES = ("coordinator", "worker1", "worker2")
SECONDS_BEFORE = 3
SECONDS_AFTER = 2
# Two shards per table: one of each moves.
SHARDS = "citus.shard_count = 2"


@dataclass
class Rebalance:
    cluster: Cluster
    traffic: Traffic | None = None
    placements_before: list = field(default_factory=list)
    placements_after: list = field(default_factory=list)
    jobs: list = field(default_factory=list)
    seconds: float = 0.0
    harvested: list = field(default_factory=list)


def placements(cluster: Cluster) -> list:
    return cluster.sql(
        "coordinator",
        "SELECT nodeport, count(*) FROM pg_dist_shard_placement GROUP BY nodeport ORDER BY 1",
    )


@pytest.fixture(scope="module")
def rebalance(module_servers) -> Rebalance:
    cluster = Cluster()
    for name in NODES:
        cluster.add(name, start_server(module_servers, name, SHARDS))
    form(cluster, NODES[1:])
    p2 = cluster.port("worker2")
    cluster.coord(f"SELECT citus_set_node_property('127.0.0.1', {p2}, 'shouldhaveshards', false)")
    create_tables(cluster, "t")
    cluster.coord(f"SELECT citus_set_node_property('127.0.0.1', {p2}, 'shouldhaveshards', true)")
    r = Rebalance(cluster, placements_before=placements(cluster))
    with Traffic(cluster, "t", dict.fromkeys(NODES, 1)) as r.traffic:
        r.traffic.run_for(SECONDS_BEFORE)
        t = time.monotonic()
        cluster.coord("SELECT citus_rebalance_start()")
        cluster.coord("SELECT citus_rebalance_wait()")
        r.seconds = time.monotonic() - t
        r.traffic.run_for(SECONDS_AFTER)
    r.jobs = cluster.table(
        "coordinator",
        "SELECT job_id, state, job_type, (SELECT count(*) FROM pg_dist_background_task t"
        " WHERE t.job_id = j.job_id) AS tasks FROM pg_dist_background_job j ORDER BY job_id",
    )
    r.placements_after = placements(cluster)
    r.harvested = [
        (fmt, *row)
        for fmt in FORMATS
        for row in harvest(cluster.servers["coordinator"], f"t_{fmt}")
    ]
    return r


def test_the_shards_moved(rebalance, figures):
    figures(f"placements by port before: {rebalance.placements_before}")
    figures(f"citus_rebalance_start() to citus_rebalance_wait(): {rebalance.seconds:.1f} s")
    for line in rebalance.jobs:
        figures(line)
    figures(f"placements by port after: {rebalance.placements_after}")
    after = dict(rebalance.placements_after)
    assert after.get(rebalance.cluster.port("worker2"), 0) > 0, after
    assert after.get(rebalance.cluster.port("worker1"), 0) > 0, after


def test_every_row_keeps_its_id(rebalance, figures):
    """Rows and the IDs the writers were given match one to one (but the
    statements of an unknown outcome), and no ID was given twice."""
    t = rebalance.traffic
    figures(
        f"{len(t.threads)} writers for {t.seconds:.1f} s, {len(t.issued)} IDs; lost:"
        f" {counted(t.counts['lost'])}; refused: {counted(t.counts['refused'])}"
    )
    for line in aligned(
        ("format", "made_on", "distinct_ids"), per_origin(rebalance.cluster, t.issued)
    ):
        figures(line)
    given = {(fmt, i, key) for fmt, i, key, _ in t.issued}
    stored = {(fmt, i, key) for fmt, i, key, _ in rebalance.harvested}
    uncertain = t.uncertain
    unknown = {row for row in stored - given if row[2].rsplit(":", 1)[0] not in uncertain}
    missing = given - stored
    figures(
        f"rows afterwards: {len(rebalance.harvested)}; rows whose ID no writer was given:"
        f" {len(unknown)}; IDs given but not stored: {len(missing)}"
    )
    assert not unknown, sorted(unknown)[:5]
    assert not missing, sorted(missing)[:5]
    twice = repeated(t.issued + rebalance.harvested)
    assert not twice, {fmt: found[:3] for fmt, found in twice.items()}
    assert not t.findings, t.findings[:5]


def test_no_unique_violation_in_any_log(rebalance):
    servers = list(rebalance.cluster.servers.values())
    assert not unique_violations(servers), unique_violations(servers)[:5]
