"""Operations on node identity (docs/operations.md "Several servers" and
"Standbys and failover"): ``ALTER SYSTEM SET pg_flake.node`` and a reload
on the primary, the second server or the standby, to a node no server used
before or back to one the same server used earlier (its marks keep it above
its own IDs). A standby given a node of its own generates; the nemesis
never moves a server to a node another one used (the documentation's
rule)."""

from __future__ import annotations

from registry import Op, pick, register

OWNER = {"primary": "line", "second": "second", "standby": "standby"}


@register
class NodeChange(Op):
    name = "node_change"
    base_weight = 1.5

    def plan(self, world, rng):
        cluster = world.cluster
        slots = [s for s in cluster.running_slots() if s.role in OWNER]
        slot = pick(rng, slots)
        if slot is None:
            return None
        earlier = [n for n in cluster.nodes_of(OWNER[slot.role]) if n != slot.node]
        back = pick(rng, earlier) if rng.random() < 0.5 else None
        return {"server": slot.name, "role": slot.role, "back_to": back}

    def run(self, world, plan):
        cluster = world.cluster
        slot = world.slot(plan["server"])
        if slot.role != plan["role"] or not slot.up:
            return f"skipped: {slot.label} is no longer the {plan['role']}"
        node = plan["back_to"]
        if node is None:
            node = cluster.fresh_node(OWNER[slot.role])
            if node is None:
                return "skipped: no node left"
        if slot.role == "standby":
            # From now on its IDs are allowed (a node of its own).
            slot.may_generate = True
        before = slot.node
        cluster.set_node(slot, node)
        return f"{slot.label}: node {before} -> {node}"
