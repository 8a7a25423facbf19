"""A Citus worker removed (``citus_remove_node``) and another added under
its group id (``citus_add_node(..., groupid => N)``), writers inserting
through every node before and after (``make test-citus``; issue 46).

The added worker takes the group, so pg_flake gives it the removed
worker's node: its IDs stay distinct from the removed worker's by time
alone (it generates after them, its clock not behind them), as
docs/operations.md "Several servers" says. The removed worker keeps its
group id in its own catalog (Citus leaves it there) and would go on
generating with that node if anything still wrote to it: the documented
remedy, a ``pg_flake.node`` of its own, is checked too, the removed worker
writing again beside the new one.

Every ID a writer was given and every row in the cluster afterwards: none
twice; the new worker's IDs above the removed one's, format by format;
kuid64 refused on the new worker.
"""

from __future__ import annotations

import time
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

SECONDS = 5  # of writes in each phase
# The removed worker's own node once it writes again: one no group has,
# within Snowflake's worker field (0-30).
OWN_NODE = 30


@dataclass
class Membership:
    cluster: Cluster
    group: int = 0  # the removed worker's, then the new one's
    phases: list = field(default_factory=list)  # Traffic of each phase
    removed_view: dict = field(default_factory=dict)  # what the removed worker says of itself
    fields: dict = field(default_factory=dict)  # name: node fields of a new ID
    new_group: int = -1
    pg_dist_node: list = field(default_factory=list)
    harvested: list = field(default_factory=list)
    kuid64: str = ""
    steps: list = field(default_factory=list)


def set_property(cluster: Cluster, name: str, should_have_shards: bool) -> None:
    cluster.coord(
        f"SELECT citus_set_node_property('127.0.0.1', {cluster.port(name)},"
        f" 'shouldhaveshards', {str(should_have_shards).lower()})"
    )


@pytest.fixture(scope="module")
def membership(module_servers) -> Membership:
    """Writes through coordinator, worker1, worker2; worker2 removed and
    stopped, worker3 added under its group; writes through coordinator,
    worker1, worker3; worker2 back with a node of its own, writing beside
    worker3."""
    cluster = Cluster()
    for name in ("coordinator", "worker1", "worker2", "worker3"):
        cluster.add(name, start_server(module_servers, name))
    form(cluster, ("worker1", "worker2"))
    # worker2 holds no shard: it can be removed without moving any (it
    # writes through its metadata to worker1's shards all the same).
    set_property(cluster, "worker2", False)
    create_tables(cluster, "t")
    m = Membership(cluster, group=cluster.group("worker2"))
    m.fields["worker2"] = cluster.node_fields("worker2")
    with Traffic(cluster, "t", {"coordinator": 1, "worker1": 1, "worker2": 2}) as traffic:
        traffic.run_for(SECONDS)
    m.phases.append(traffic)
    t = time.monotonic()
    cluster.coord(f"SELECT citus_remove_node('127.0.0.1', {cluster.port('worker2')})")
    m.steps.append(("citus_remove_node", time.monotonic() - t))
    m.removed_view = {
        "groupid": cluster.group("worker2"),
        "pg_flake_node": cluster.sql(
            "worker2", "SELECT format, node, source FROM pg_flake_node() ORDER BY format"
        ),
    }
    # The documentation's rule: a removed worker does not generate with
    # its group's node once another node may take the group.
    cluster.servers["worker2"].stop()
    t = time.monotonic()
    cluster.coord(
        f"SELECT citus_add_node('127.0.0.1', {cluster.port('worker3')}, groupid => {m.group})"
    )
    m.steps.append(("citus_add_node under the removed worker's group", time.monotonic() - t))
    m.new_group = cluster.group("worker3")
    m.fields["worker3"] = cluster.node_fields("worker3")
    m.pg_dist_node = cluster.pg_dist_node()
    with Traffic(cluster, "t", {"coordinator": 1, "worker1": 1, "worker3": 2}) as traffic:
        traffic.run_for(SECONDS)
    m.phases.append(traffic)
    # worker2 back, with a node of its own, writing beside worker3.
    removed = cluster.servers["worker2"]
    removed.append_conf(f"pg_flake.node = {OWN_NODE}")
    removed.start()
    m.fields["worker2 (own node)"] = cluster.node_fields("worker2")
    with Traffic(cluster, "t", {"worker2": 2, "worker3": 2}) as traffic:
        traffic.run_for(SECONDS)
    m.phases.append(traffic)
    m.harvested = [
        (fmt, *row)
        for fmt in FORMATS
        for row in harvest(cluster.servers["coordinator"], f"t_{fmt}")
    ]
    m.kuid64 = refusal(cluster.servers["worker3"], KUID64[1])
    return m


def test_the_removed_worker_keeps_its_group(membership, figures):
    """Citus leaves the removed worker's group id in its own catalog, and
    pg_flake goes on taking its node from it (hence the rule)."""
    m = membership
    for what, seconds in m.steps:
        figures(f"{what}: {seconds:.1f} s")
    figures(f"the removed worker2 says: {m.removed_view}")
    assert m.removed_view["groupid"] == m.group
    nodes = {fmt: (node, source) for fmt, node, source in m.removed_view["pg_flake_node"]}
    assert all(nodes.get(fmt) == (m.group, "citus") for fmt in FORMATS), nodes


def test_the_new_worker_takes_the_group_and_its_node(membership, figures):
    m = membership
    for line in m.pg_dist_node:
        figures(line)
    for name, f in m.fields.items():
        figures(f"node fields of new IDs on {name}: {f}")
    assert m.new_group == m.group
    assert m.fields["worker3"] == m.fields["worker2"]
    assert set(m.fields["worker2 (own node)"].values()) == {OWN_NODE}


def test_every_id_distinct(membership, figures):
    m = membership
    issued = [row for traffic in m.phases for row in traffic.issued]
    everything = issued + m.harvested
    for n, traffic in enumerate(m.phases, 1):
        figures(
            f"phase {n}: {len(traffic.threads)} writers for {traffic.seconds:.1f} s,"
            f" {len(traffic.issued)} IDs; lost: {counted(traffic.counts['lost'])};"
            f" refused: {counted(traffic.counts['refused'])}"
        )
    figures(f"rows in the cluster afterwards: {len(m.harvested)}")
    for line in aligned(("format", "made_on", "distinct_ids"), per_origin(m.cluster, everything)):
        figures(line)
    twice = repeated(everything)
    assert not twice, {fmt: found[:3] for fmt, found in twice.items()}
    findings = [f for traffic in m.phases for f in traffic.findings]
    assert not findings, findings[:5]


def test_the_new_worker_is_above_the_removed_one(membership, figures):
    """The same node: the new worker's lowest ID above the highest the
    removed one made with it (first phase), format by format."""
    m = membership
    first, second = m.phases[0].issued, m.phases[1].issued
    old_port, new_port = m.cluster.port("worker2"), m.cluster.port("worker3")
    below = {}
    for fmt, (kind, _) in FORMATS.items():
        old = [i for f, i, _, o in first if f == fmt and o == old_port]
        new = [i for f, i, _, o in second if f == fmt and o == new_port]
        top, bottom = m.cluster.sql(
            "coordinator",
            f"SELECT (SELECT max(v::{kind}) FROM unnest(%s::text[]) v),"
            f" (SELECT min(v::{kind}) FROM unnest(%s::text[]) v)",
            (old, new),
        )[0]
        above = m.cluster.coord(f"SELECT %s::{kind} < %s::{kind}", (top, bottom))
        figures(f"{fmt}: the removed worker's highest {top}, the new worker's lowest {bottom}")
        if not (old and new and above):
            below[fmt] = (top, bottom)
    assert not below, below


def test_kuid64_refused_on_the_new_worker(membership, figures):
    figures(f"worker3: kuid64_generate(): {membership.kuid64}")
    assert membership.kuid64.startswith("refused: 55000"), membership.kuid64


def test_no_unique_violation_in_any_log(membership):
    servers = list(membership.cluster.servers.values())
    assert not unique_violations(servers), unique_violations(servers)[:5]
