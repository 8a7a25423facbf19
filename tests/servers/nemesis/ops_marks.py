"""Operations on the durable marks (docs/guarantees.md "Restarts, crashes
and the clock"): a marks file (``pg_flake/<format>.marks``) damaged with
random bytes, truncated, emptied, removed or made unreadable (chmod 000) —
with the server cleanly stopped, after which the format must refuse (XX001;
an unreadable file gives the file-access code) until a superuser sets the
mark, or while it runs — and ``pg_flake_set_mark`` as the documentation
says to use it: at the time of the highest ID of the format stored, with
nothing generating on that server meanwhile (the writers' gate closed).

``set_mark_live``: the same while the writers go on (issue 36 item 7: a
lowering raced a recorder in flight); ``marks_mode_back``: an unreadable
file made readable again while the server runs, then a clean restart (item
5: the shutdown erased the mark).
"""

from __future__ import annotations

import os
import random

import psycopg
from cluster import FORMATS
from registry import Op, pick, register

HOWS = ["random", "truncated", "empty", "missing", "chmod000"]
REFUSED = ("XX001", "42501", "58P01")


def marks_file(slot, fmt: str):
    return slot.server.data / "pg_flake" / f"{fmt}.marks"


def damage(path, how: str, salt: int) -> None:
    if how == "random":
        size = path.stat().st_size or 600
        path.write_bytes(random.Random(salt).randbytes(size))
    elif how == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "missing":
        path.unlink()
    elif how == "chmod000":
        os.chmod(path, 0)


def generation(slot, fmt: str) -> str:
    """ "generated", or the SQLSTATE of the refusal, of one ID in a new session."""
    try:
        slot.sql(f"SELECT {FORMATS[fmt][1]}", statement_ms=10000)
    except psycopg.Error as e:
        return getattr(e, "sqlstate", None) or "no SQLSTATE"
    return "generated"


def writable(world):
    return [s for s in world.cluster.running_slots() if s.role in ("primary", "second")]


@register
class DamageMarks(Op):
    name = "damage_marks"
    base_weight = 1.5

    def plan(self, world, rng):
        slot = pick(rng, writable(world))
        if slot is None:
            return None
        return {
            "server": slot.name,
            "format": pick(rng, list(FORMATS)),
            "how": pick(rng, HOWS),
            "live": rng.random() < 0.25,
            "salt": rng.randrange(1 << 30),
        }

    def run(self, world, plan):
        slot, fmt, how = world.slot(plan["server"]), plan["format"], plan["how"]
        cluster = world.cluster
        path = marks_file(slot, fmt)
        if plan["live"]:
            if not path.exists():
                return "skipped: no marks file yet"
            damage(path, how, plan["salt"])
            cluster.damaged[(slot.name, fmt)] = how
            return f"{slot.label}: {fmt}.marks {how} while it runs; now {generation(slot, fmt)}"
        stopped = cluster.stop(slot, "fast")
        if not path.exists():
            cluster.start(slot)
            return f"skipped: no marks file yet (stopped {stopped}, started)"
        log_from = len(slot.server.log())
        damage(path, how, plan["salt"])
        cluster.damaged[(slot.name, fmt)] = how
        # The server starts: an operator must be able to mend it.
        cluster.start(slot)
        outcome = generation(slot, fmt)
        remade = "made again from the mark" in slot.server.log()[log_from:]
        if outcome == "generated":
            cluster.damaged.pop((slot.name, fmt), None)
            if stopped == "fast" and not remade:
                world.history.find(
                    "unrefused",
                    f"{slot.label}: {fmt} generated after pg_flake/{fmt}.marks was damaged"
                    f" ({how}) with the server stopped cleanly: it must refuse until"
                    " pg_flake_set_mark",
                )
        return f"{slot.label} stopped ({stopped}); {fmt}.marks {how}; started; {outcome}" + (
            " (made again from the WAL)" if remade else ""
        )


class SetMarkOp(Op):
    live = False
    formats = tuple(FORMATS)

    def plan(self, world, rng):
        cluster = world.cluster
        damaged = [
            (name, fmt)
            for name, fmt in sorted(cluster.damaged)
            if world.slot(name) in writable(world) and fmt in self.formats
        ]
        if damaged and rng.random() < 0.8:
            name, fmt = pick(rng, damaged)
            return {"server": name, "format": fmt}
        slot = pick(rng, writable(world))
        if slot is None:
            return None
        return {"server": slot.name, "format": pick(rng, list(self.formats))}

    def weight(self, world):
        return 3.0 if world.cluster.damaged else self.base_weight

    def run(self, world, plan):
        slot, fmt = world.slot(plan["server"]), plan["format"]
        if not slot.up or slot.role not in ("primary", "second"):
            return "skipped: not writable"
        top = world.store.highest(slot.lineage, fmt)
        decode = FORMATS[fmt][2]
        # The highest ID of the format stored, in its table or handed out
        # anywhere on this server's line (a standby's own IDs included).
        # (Before pg_flake_set_mark took the microsecond's last unit, the
        # nemesis found this step one siq tick short: seeds 8 and 11.)
        query = (
            "SELECT pg_flake_set_mark(%s, coalesce(greatest("
            f"(SELECT max({decode}(id)) FROM t_{fmt}),"
            " timestamptz 'epoch' + %s::bigint * interval '1 microsecond'), now()))::text"
        )
        if not self.live and not slot.gate.close(30):
            slot.gate.open()
            return "skipped: the writers did not pause within 30 s"
        try:
            mark = slot.sql(query, (fmt, top))[0][0]
        except psycopg.Error as e:
            return f"{slot.label}: {fmt}: refused {getattr(e, 'sqlstate', None)}: {e}"[:300]
        finally:
            slot.gate.open()
        was = world.cluster.damaged.pop((slot.name, fmt), None)
        return f"{slot.label}: {fmt} mark set to {mark}" + (f" (was {was})" if was else "")


@register
class SetMark(SetMarkOp):
    name = "set_mark"
    base_weight = 0.7


@register
class SetMarkLive(SetMarkOp):
    name = "set_mark_live"
    base_weight = 0.7
    live = True


@register
class MarksModeBack(Op):
    name = "marks_mode_back"

    def plan(self, world, rng):
        found = [
            (name, fmt)
            for (name, fmt), how in sorted(world.cluster.damaged.items())
            if how == "chmod000" and world.slot(name) in writable(world)
        ]
        chosen = pick(rng, found)
        return None if chosen is None else {"server": chosen[0], "format": chosen[1]}

    def weight(self, world):
        return 3.0

    def run(self, world, plan):
        slot, fmt = world.slot(plan["server"]), plan["format"]
        path = marks_file(slot, fmt)
        if not path.exists():
            return "skipped: no marks file"
        os.chmod(path, 0o600)
        world.cluster.damaged.pop((slot.name, fmt), None)
        stopped = world.cluster.stop(slot, "fast")
        world.cluster.start(slot)
        return f"{slot.label}: {fmt}.marks readable again; stopped ({stopped}); started"
