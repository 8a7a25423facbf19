"""Operations on clocks: a server's real-time clock stepped back or forward
while it runs (the clock shim's file, read at every clock reading:
Server.set_clock), put right again, and a lease holder's machine clock
stepped (holders use the database's time: it must not matter)."""

from __future__ import annotations

from registry import Op, pick, register

STEPS = [-75, -20, -5, -1, 1, 5, 20, 75]
LIMIT = 100  # offsets stay within +-100 s: pg_flake.max_clock_lag is 60 s


def stepped(offset: float, step: float) -> float:
    return max(-LIMIT, min(LIMIT, offset + step))


@register
class ClockServer(Op):
    name = "clock_server"
    base_weight = 3

    def plan(self, world, rng):
        slot = pick(rng, [s for s in world.cluster.slots() if s.role is not None])
        if slot is None:
            return None
        return {"server": slot.name, "to": stepped(slot.offset, pick(rng, STEPS))}

    def run(self, world, plan):
        slot = world.slot(plan["server"])
        before = slot.offset
        slot.offset = plan["to"]
        slot.server.set_clock(slot.offset)
        return f"{slot.label}: clock {before:+.0f} s -> {slot.offset:+.0f} s"


@register
class ClockRight(Op):
    """A server's clock put right (offset 0), as an operator does after a step."""

    name = "clock_right"
    base_weight = 1

    def plan(self, world, rng):
        slot = pick(rng, [s for s in world.cluster.slots() if s.role is not None and s.offset])
        return None if slot is None else {"server": slot.name}

    def run(self, world, plan):
        slot = world.slot(plan["server"])
        before = slot.offset
        slot.offset = 0.0
        slot.server.set_clock(0.0)
        return f"{slot.label}: clock {before:+.0f} s -> 0"


@register
class ClockHolder(Op):
    name = "clock_holder"
    base_weight = 1.5

    def plan(self, world, rng):
        holder = pick(rng, [h for h in world.holders if not h.oneshot])
        if holder is None:
            return None
        return {"holder": holder.name, "to": stepped(holder.offset, pick(rng, STEPS))}

    def run(self, world, plan):
        holder = world.holder(plan["holder"])
        before = holder.offset
        holder.set_clock(plan["to"])
        return f"{holder.name}: clock {before:+.0f} s -> {holder.offset:+.0f} s"
