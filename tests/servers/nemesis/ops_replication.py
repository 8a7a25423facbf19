"""Operations on replication: the standby switched between synchronous and
asynchronous (``synchronous_standby_names`` and a reload), the standby down
and up, promotion and the old primary's re-attachment.

Promotion follows docs/operations.md "Standbys and failover": the old
primary is fenced first (kill -9, and it only comes back as a standby of the
new one, from a new base backup), half the time the standby also gets a
node no server used before promoting; and it is done only where the
documentation promises it is safe — the standby synchronous and caught up,
so that it has every mark and lease the primary used. ``promote_stale``
promotes a synchronous standby that was down, which marks and leases
survive (docs/operations.md; leases since issue 36 item 3, before which a
cancelled grant's commit was used without the standby's confirmation).
"""

from __future__ import annotations

import time

from cluster import STANDBY_NAME, ServerFailed
from registry import Op, register

STANDBY_DOWN_STEPS = 8  # a standby down this many steps is brought up next


@register
class SyncMode(Op):
    name = "sync_mode"
    base_weight = 1.5

    def plan(self, world, rng):
        if world.cluster.primary is None or not world.cluster.primary.up:
            return None
        return {"synchronous": not world.cluster.sync}

    def run(self, world, plan):
        cluster = world.cluster
        if plan["synchronous"] and cluster.standby is not None and cluster.standby.up:
            world.model["synced_before_down"] = False
        elif not plan["synchronous"]:
            world.model["synced_before_down"] = False
        cluster.set_sync(plan["synchronous"])
        return "synchronous" if plan["synchronous"] else "asynchronous"


@register
class StandbyDown(Op):
    name = "standby_down"
    base_weight = 1

    def plan(self, world, rng):
        standby = world.cluster.standby
        if standby is None or not standby.up:
            return None
        return {"mode": "fast" if rng.random() < 0.5 else "immediate"}

    def run(self, world, plan):
        cluster = world.cluster
        # Whether it leaves with everything the primary used (promote_stale).
        streaming = cluster.sync and cluster.streaming_sync()
        synced = streaming and cluster.wait_replayed(10)
        how = cluster.stop(cluster.standby, plan["mode"])
        world.model["synced_before_down"] = synced and cluster.sync
        world.model["standby_down_step"] = world.step
        state = "caught up" if synced else "streaming, behind" if streaming else "not synchronous"
        return f"{cluster.standby.label} stopped ({how}); before: {state}"


@register
class StandbyUp(Op):
    name = "standby_up"

    def plan(self, world, rng):
        standby = world.cluster.standby
        return None if standby is None or standby.up else {}

    def weight(self, world):
        down = world.step - world.model.get("standby_down_step", world.step)
        return 1000.0 if down >= STANDBY_DOWN_STEPS else 1.0

    def run(self, world, plan):
        world.cluster.start(world.cluster.standby)
        return f"{world.cluster.standby.label} started"


def fence_and_promote(world, new_node: bool) -> str:
    """The documented failover: the standby's own node (if asked), the old
    primary killed (fenced), the standby promoted, asynchronous until a
    standby is attached again."""
    cluster = world.cluster
    old, standby = cluster.primary, cluster.standby
    said = []
    if new_node:
        node = cluster.fresh_node("line")
        if node is not None:
            standby.may_generate = True
            cluster.set_node(standby, node)
            said.append(f"node {node}")
    # Its own nodes as a standby are the line's from now on.
    for n in cluster.nodes_of("standby"):
        cluster.node_owner[n] = "line"
    if old.server.running():
        old.server.kill9()
    old.up = False
    old.role = "fenced"
    standby.may_generate = True
    # Out of the writers' sight until it is the primary.
    standby.role = "promoting"
    try:
        standby.server.promote()
        deadline = time.monotonic() + 60
        while standby.sql("SELECT pg_is_in_recovery()")[0][0]:
            if time.monotonic() > deadline:
                raise TimeoutError("still in recovery 60 s after promotion")
            time.sleep(0.2)
    except Exception as e:
        raise ServerFailed(f"{standby.label} was not promoted: {e}") from e
    standby.role = "primary"
    if standby.node is None:
        standby.node = old.node
    cluster.set_sync(False)
    world.model["synced_before_down"] = False
    said.append(f"{old.label} fenced (kill -9), {standby.label} promoted")
    return "; ".join(said)


@register
class Promote(Op):
    name = "promote"
    base_weight = 1

    def plan(self, world, rng):
        cluster = world.cluster
        standby = cluster.standby
        if not (cluster.sync and standby is not None and standby.up and cluster.primary.up):
            return None
        return {"new_node": rng.random() < 0.5}

    def run(self, world, plan):
        cluster = world.cluster
        if not cluster.streaming_sync():
            return "skipped: the standby is not streaming as synchronous"
        if not cluster.wait_replayed(30):
            return "skipped: the standby did not catch up within 30 s"
        return fence_and_promote(world, plan["new_node"])


@register
class PromoteStale(Op):
    name = "promote_stale"
    base_weight = 1

    def plan(self, world, rng):
        cluster = world.cluster
        standby = cluster.standby
        if standby is None or standby.up or not cluster.sync:
            return None
        if not world.model.get("synced_before_down"):
            return None
        return {"new_node": rng.random() < 0.5}

    def run(self, world, plan):
        cluster = world.cluster
        # The primary dies while its synchronous standby is down; the
        # standby starts without it and is promoted.
        cluster.primary.server.kill9()
        cluster.primary.up = False
        cluster.start(cluster.standby)
        return fence_and_promote(world, plan["new_node"])


@register
class Reattach(Op):
    """The fenced old primary comes back as a standby of the new one: its
    rows harvested first (started once on a port nobody else uses), then a
    new base backup."""

    name = "reattach"
    base_weight = 3

    def plan(self, world, rng):
        cluster = world.cluster
        if cluster.fenced is None or not cluster.primary.up:
            return None
        return {}

    def run(self, world, plan):
        cluster = world.cluster
        old, primary = cluster.fenced, cluster.primary
        harvested = world.harvest_stopped(old)
        cluster.make_clone(old, primary, STANDBY_NAME)
        old.role = "standby"
        old.may_generate = False
        old.node = primary.node
        cluster.start(old)
        return f"harvested {harvested} rows; {old.label} is a standby of {primary.label}"
