"""The nemesis's watchdog: no wait that cancel cannot end (the project's
rule). Once a second it looks at every running server's active client
statements; one that has run longer than ``BOUND`` seconds (measured by
the watchdog's monotonic clock from when it first saw it, not by the
servers' clocks, which the nemesis moves) gets ``pg_cancel_backend``; one
still running ``GRACE`` seconds after that is a finding, with its query and
wait event.

Writers run under ``statement_timeout`` (writers.py) and holders too, so a
statement reaching the bound is rare: a commit waiting for a synchronous
standby that is down (PostgreSQL's commit wait outlives the timeout), or a
wait that ignores interrupts.

The nemesis's own connections (application_name ``CTL``) are left alone —
an operation may hold a lock or sleep on purpose — but for a commit waiting
for the synchronous standby (wait event ``SyncRep``): an operation's
autocommit statement on a primary whose synchronous standby is down (the
``partitions`` job after ``standby_down``) would otherwise wait for ever,
and with it the run (a one-minute run of seed 4 on 18 never ended).
"""

from __future__ import annotations

import threading
import time

import psycopg
from cluster import CTL

BOUND = 30.0
GRACE = 10.0


class Watchdog(threading.Thread):
    def __init__(self, world):
        super().__init__(daemon=True, name="nemesis-watchdog")
        self.world = world
        # (slot label, pid, query_start) -> [first seen, cancelled at, reported]
        self.seen: dict[tuple, list] = {}
        self.cancelled = 0
        self.longest = 0.0

    def run(self) -> None:
        stop = self.world.stop
        while not stop.wait(1.0):
            for slot in self.world.cluster.running_slots():
                try:
                    self.look(slot)
                except psycopg.Error:
                    pass  # a server restarting: next time

    def look(self, slot) -> None:
        now = time.monotonic()
        with slot.connect(timeout=2, statement_ms=5000) as conn:
            rows = conn.execute(
                "SELECT pid, query_start::text, coalesce(wait_event_type, ''),"
                " coalesce(wait_event, ''), left(query, 160)"
                " FROM pg_stat_activity WHERE state = 'active'"
                " AND backend_type = 'client backend'"
                " AND (application_name <> %s OR wait_event = 'SyncRep')"
                " AND pid <> pg_backend_pid()",
                (CTL,),
            ).fetchall()
            active = set()
            for pid, started, wait_type, wait, query in rows:
                key = (slot.label, pid, started)
                active.add(key)
                entry = self.seen.setdefault(key, [now, None, False])
                age = now - entry[0]
                self.longest = max(self.longest, age)
                if entry[1] is None and age > BOUND:
                    conn.execute("SELECT pg_cancel_backend(%s)", (pid,))
                    entry[1] = now
                    self.cancelled += 1
                    self.world.history.note("long waits cancelled")
                elif entry[1] is not None and not entry[2] and now - entry[1] > GRACE:
                    entry[2] = True
                    self.world.history.find(
                        "uncancellable",
                        f"{slot.label} pid {pid}: running {age:.0f} s, {now - entry[1]:.0f} s"
                        f" after pg_cancel_backend, waiting on {wait_type}/{wait}: {query!r}",
                    )
        for key in [k for k in self.seen if k[0] == slot.label and k not in active]:
            del self.seen[key]
