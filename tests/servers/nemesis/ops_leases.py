"""Operations on lease holders and leases (docs/applications.md
"Generating IDs in your application", docs/sql-reference.md "Leases"):
kill -9 of a holder, SIGSTOP past its lease's expiry then SIGCONT, another
granted role renewing a holder's lease or holding the grant lock for a
while.

A Python holder whose generator is shared by 4 threads, or inherited by 4
forked children (issue 36 item 1). ``wrong_role_release``: another grantee
tries to end a holder's lease, then to take its unit (refused since issue 36
item 2; before, kuid96 duplicates).
"""

from __future__ import annotations

import signal
import time

import psycopg
from holders import TTL_MS, Holder, python_holder_supports
from registry import Op, pick, register

INTRUDER = "intruder"


def intruder_sql(world, query: str, params=None):
    primary = world.cluster.primary
    with psycopg.connect(
        host="127.0.0.1",
        port=primary.port,
        user=INTRUDER,
        dbname="flake",
        autocommit=True,
        connect_timeout=3,
        application_name="nem_intruder",
        options="-c statement_timeout=10000",
    ) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def steady(world):
    return [h for h in world.holders if not h.oneshot]


def held_lease(holder) -> int | None:
    leases = holder.lease_ids()
    return leases[-1] if leases and holder.proc is not None else None


@register
class KillHolder(Op):
    name = "kill_holder"
    base_weight = 2

    def plan(self, world, rng):
        holder = pick(rng, steady(world))
        return None if holder is None else {"holder": holder.name}

    def run(self, world, plan):
        holder = world.holder(plan["holder"])
        label = holder.label
        if not holder.signal(signal.SIGKILL):
            return f"skipped: {label} not running"
        return f"{label} killed"


@register
class PauseHolder(Op):
    name = "pause_holder"
    base_weight = 1

    def plan(self, world, rng):
        holder = pick(rng, steady(world))
        if holder is None:
            return None
        return {"holder": holder.name, "seconds": pick(rng, [1.5, 3]) * TTL_MS / 1000}

    def run(self, world, plan):
        holder = world.holder(plan["holder"])
        label = holder.label
        if not holder.signal(signal.SIGSTOP):
            return f"skipped: {label} not running"
        holder.paused = True
        try:
            time.sleep(plan["seconds"])
        finally:
            holder.signal(signal.SIGCONT)
            holder.paused = False
        return f"{label} stopped {plan['seconds']:.0f} s (TTL {TTL_MS / 1000:.0f} s), continued"


@register
class WrongRoleRenew(Op):
    """Another granted role renews a holder's lease: refused (after issue
    36 item 2) or extended; either way the holder's window only grows."""

    name = "wrong_role_renew"
    base_weight = 1

    def plan(self, world, rng):
        holder = pick(rng, steady(world))
        return None if holder is None else {"holder": holder.name}

    def run(self, world, plan):
        holder = world.holder(plan["holder"])
        lease = held_lease(holder)
        if lease is None:
            return f"skipped: {holder.label} holds no lease"
        try:
            intruder_sql(world, "SELECT lease_id FROM pg_flake_renew(%s, '2 s')", (lease,))
        except psycopg.Error as e:
            world.history.refused(f"{getattr(e, 'sqlstate', None)} wrong role")
            return f"renewal of {holder.label}'s lease {lease} as {INTRUDER}: {e.sqlstate}"
        return f"{INTRUDER} renewed {holder.label}'s lease {lease}"


@register
class HoldGrantLock(Op):
    """A grantee holds the grant lock (a lease taken in an open
    transaction) for a while: others' grants and renewals wait (their
    statement_timeout ends the wait), then go on."""

    name = "hold_grant_lock"
    base_weight = 0.5

    def plan(self, world, rng):
        return {"seconds": pick(rng, [1, 3, 8])}

    def run(self, world, plan):
        primary = world.cluster.primary
        if primary is None or not primary.up:
            return "skipped: no primary"
        with psycopg.connect(
            host="127.0.0.1",
            port=primary.port,
            user=INTRUDER,
            dbname="flake",
            connect_timeout=3,
            application_name="nem_intruder",
            options="-c statement_timeout=10000",
        ) as conn:
            try:
                conn.execute("SELECT lease_id FROM pg_flake_lease('sno', 'lock holder', '1 s')")
                time.sleep(plan["seconds"])
            except psycopg.Error as e:
                return f"refused {e.sqlstate}: {e}"[:200]
            finally:
                conn.rollback()
        return f"held the grant lock {plan['seconds']} s"


@register
class WrongRoleRelease(Op):
    """Another grantee ends a kuid96 holder's lease (``last_used``
    '-infinity') and a holder of its own takes the unit (two kuid96 units:
    the freed one is the next granted)."""

    name = "wrong_role_release"
    base_weight = 1

    def plan(self, world, rng):
        victims = [h for h in steady(world) if h.fmt == "kuid96"]
        holder = pick(rng, victims)
        return None if holder is None else {"holder": holder.name}

    def run(self, world, plan):
        victim = world.holder(plan["holder"])
        lease = held_lease(victim)
        if lease is None:
            return f"skipped: {victim.label} holds no lease"
        try:
            ended = intruder_sql(
                world, "SELECT pg_flake_release(%s, '-infinity'::timestamptz)", (lease,)
            )[0][0]
        except psycopg.Error as e:
            world.history.refused(f"{getattr(e, 'sqlstate', None)} wrong role")
            return f"release of {victim.label}'s lease {lease} as {INTRUDER}: {e.sqlstate}"
        taker = world.add_holder(
            Holder(world, f"intruder{world.step}", "python", "kuid96", INTRUDER, oneshot=True),
            seconds=8,
        )
        return f"{INTRUDER} released {victim.label}'s lease {lease} ({ended}); {taker} takes it"


class HolderVariant(Op):
    """A Python holder with ``option`` (issue 36 item 1: threads sharing its
    generator, or children forked with it), run once for 15 s."""

    option = ""
    base_weight = 0.5

    def plan(self, world, rng):
        return {"format": pick(rng, ["sno", "siq", "snowflake", "kuid96"])}

    def run(self, world, plan):
        if not python_holder_supports(self.option):
            return f"skipped: tests/servers/lease_writer.py has no {self.option}"
        name = f"{self.name}{world.step}"
        extra = [self.option, "4"]
        holder = Holder(world, name, "python", plan["format"], "app_py", extra, oneshot=True)
        return f"{world.add_holder(holder, seconds=15)} started with {' '.join(extra)}"


@register
class HolderThreads(HolderVariant):
    name = "holder_threads"
    option = "--threads"


@register
class HolderFork(HolderVariant):
    name = "holder_fork"
    option = "--fork"
