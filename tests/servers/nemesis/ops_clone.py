"""Operations on base-backup clones: ``pg_basebackup -R`` of the primary or
of the standby, started as a standby, half of them then given a node no
server used (``ALTER SYSTEM SET pg_flake.node``, as docs/operations.md
says): with it a clone generates, without it it must refuse (25006) — its
copied node is its source's, or its source's primary's (a writer's
``check_refusal`` reports an ID from it). And dropping a clone.

Before issue 36 item 4 was fixed, seed 6 with only node changes, clones of
the standby, clone drops, clock steps and backend kills (2.5 minutes) found
a clone of a standby that generated with the standby's own node 11, its line
having had nodes 1, 5, 6 and 8; the same seed replays it (refused since)."""

from __future__ import annotations

from registry import Op, pick, register


@register
class Clone(Op):
    """A clone of the primary."""

    name = "clone"
    base_weight = 1
    source = "primary"

    def plan(self, world, rng):
        cluster = world.cluster
        free = pick(rng, [c for c in cluster.clones if c.role is None])
        source = cluster.by_role(self.source)
        if free is None or source is None or not source.up:
            return None
        return {"clone": free.name, "of": self.source, "own_node": rng.random() < 0.5}

    def run(self, world, plan):
        cluster = world.cluster
        slot = world.slot(plan["clone"])
        source = cluster.by_role(plan["of"])
        if source is None or not source.up:
            return f"skipped: no {plan['of']} running"
        slot.may_generate = False
        slot.role = None
        cluster.make_clone(slot, source, f"nem_{slot.name}")
        slot.lineage = slot.label
        slot.node = source.node
        slot.role = "clone"
        cluster.start(slot)
        said = f"{slot.label} of {source.label}"
        if plan["own_node"]:
            node = cluster.fresh_node(slot.label)
            if node is None:
                return said + "; no node left: none of its own (it must refuse)"
            slot.may_generate = True
            cluster.set_node(slot, node)
            return said + f"; node {node} of its own"
        return said + f"; the copied node {source.node} (it must refuse)"


@register
class CloneStandby(Clone):
    """A clone of the standby (which may generate with a node of its own:
    the clone must not take it)."""

    name = "clone_standby"
    source = "standby"


@register
class DropClone(Op):
    name = "drop_clone"
    base_weight = 1

    def plan(self, world, rng):
        slot = pick(rng, [c for c in world.cluster.clones if c.role == "clone"])
        return None if slot is None else {"clone": slot.name}

    def weight(self, world):
        present = sum(c.role == "clone" for c in world.cluster.clones)
        return self.base_weight * present

    def run(self, world, plan):
        slot = world.slot(plan["clone"])
        slot.role = None
        how = world.cluster.stop(slot, "immediate")
        world.scan_log(slot)
        slot.server.remove()
        return f"{slot.label} stopped ({how}) and removed"
