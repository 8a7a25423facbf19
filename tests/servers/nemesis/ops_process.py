"""Operations on server processes: kill -9 of a backend (or of any child of
the postmaster), of the postmaster alone or of the whole server, and fast
and immediate restarts (a fast shutdown that hangs under a stepped fake
clock becomes an immediate one: Cluster.stop)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess

from cluster import backend_pids
from registry import Op, pick, register

from harness import PG_BIN


def running(world, roles=("primary", "standby", "second", "clone")):
    return [s for s in world.cluster.running_slots() if s.role in roles]


@register
class KillBackend(Op):
    """SIGKILL to one backend (pg_terminate_backend is not kill -9): the
    postmaster ends every session and runs crash recovery."""

    name = "kill_backend"
    base_weight = 3

    def plan(self, world, rng):
        slot = pick(rng, running(world))
        if slot is None:
            return None
        return {"server": slot.name, "pick": round(rng.random(), 3), "any": rng.random() < 0.2}

    def run(self, world, plan):
        slot = world.slot(plan["server"])
        pids = backend_pids(slot, any_kind=plan["any"])
        if not pids:
            return "skipped: no backend"
        pid, kind = pids[int(plan["pick"] * len(pids))]
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return f"skipped: {pid} gone"
        world.cluster.wait_up(slot)
        return f"killed {kind} {pid} of {slot.label}"


@register
class KillPostmaster(Op):
    """SIGKILL to the postmaster alone (its children notice and exit) or to
    the postmaster and every child at once; then a start: crash recovery."""

    name = "kill_postmaster"
    base_weight = 1.5

    def plan(self, world, rng):
        slot = pick(rng, running(world))
        if slot is None:
            return None
        return {"server": slot.name, "how": pick(rng, ["postmaster", "everything"])}

    def run(self, world, plan):
        slot = world.slot(plan["server"])
        if not slot.server.running():
            return "skipped: not running"
        if plan["how"] == "postmaster":
            done = world.cluster.kill_postmaster(slot)
        else:
            slot.server.kill9()
            done = "all killed"
        world.cluster.start(slot)
        return f"{slot.label}: {done}; started"


@register
class Restart(Op):
    name = "restart"
    base_weight = 2

    def plan(self, world, rng):
        slot = pick(rng, running(world))
        if slot is None:
            return None
        return {"server": slot.name, "mode": pick(rng, ["fast", "immediate"])}

    def run(self, world, plan):
        slot = world.slot(plan["server"])
        how = world.cluster.stop(slot, plan["mode"])
        world.cluster.start(slot)
        return f"{slot.label}: stopped ({how}), started"


@register
class ReinstallLibrary(Op):
    """The installed library replaced while every server runs, as `cargo
    pgrx install` and dpkg replace it: a new file renamed over the old one,
    here a copy of itself (issue 36 item 6). The second server, which does
    not preload pg_flake, loads it in its new backends beside the old ones,
    all in one DSM segment: named on 17+, pinned and found through its
    record file on 15 and 16 (docs/operations.md "Versions"). A
    library of another layout is releases/test_in_place.py's, with the real
    0.2.0 and 0.3.0."""

    name = "reinstall_library"
    base_weight = 0.5

    def plan(self, world, rng):
        if not world.cluster.second.up:
            return None
        return {}

    def run(self, world, plan):
        libdir = subprocess.run(
            [str(PG_BIN / "pg_config"), "--pkglibdir"], check=True, capture_output=True, text=True
        ).stdout.strip()
        # Seen from the second server's own root: 17's is a chroot here.
        postmaster = (world.cluster.second.server.data / "postmaster.pid").read_text().split()[0]
        library = f"/proc/{postmaster}/root{libdir}/pg_flake.so"
        copy = library + ".nemesis"
        shutil.copy2(library, copy)
        os.replace(copy, library)
        return f"{library} replaced by a copy of itself while the servers run"
