"""The nemesis's SQL writers: threads that generate every coordination-based
format by ``DEFAULT`` into the tables of the writable servers (the
primary, the second server) and by ``SELECT`` on the standby and the clones
(read-only: an ID there is handed out and recorded, not stored), each
statement under ``statement_timeout`` and through its slot's gate.

Every ID a statement returned is an issuance for the checker. A refusal
(an error with a SQLSTATE) is an allowed outcome, counted; a lost
connection is counted apart. Two outcomes are findings: a duplicate key
(the primary key refused a repeated ID) and an ID from a server that must
refuse (a standby or clone without a node of its own, kuid64 in recovery:
docs/operations.md "Standbys and failover").
"""

from __future__ import annotations

import random
import re
import threading

import psycopg
from cluster import DB, FORMATS
from ops_partitions import TABLE as PARTITIONED

STATEMENT_MS = 5000
# SQLSTATEs that end a session rather than refuse a statement.
SESSION_ENDED = ("57P01", "57P02", "57P03", "57P04")


def micros(decode: str, column: str) -> str:
    """SQL: the time of an ID in whole microseconds since 1970 (exact)."""
    return f"(extract(epoch FROM {decode}({column})) * 1000000)::bigint"


def sqlstate_of(error: psycopg.Error) -> str | None:
    return getattr(error, "sqlstate", None)


class Writer(threading.Thread):
    def __init__(self, world, target: str, index: int):
        self.tag = f"w_{target}{index}"
        super().__init__(daemon=True, name=f"nemesis-{self.tag}")
        self.world = world
        self.target = target
        # Its own random numbers (batch sizes, pauses): the operations'
        # sequence does not depend on how many statements writers ran.
        self.rng = random.Random(f"{world.seed}:{self.tag}")
        self.conn: psycopg.Connection | None = None
        self.conn_for: tuple | None = None
        self.statement = 0
        self.reported: set = set()

    def run(self) -> None:
        stop = self.world.stop
        while not stop.is_set():
            slot = self.world.cluster.resolve(self.target)
            if slot is None:
                self.drop()
                stop.wait(0.2)
                continue
            with slot.gate.passage(stop):
                pause = 0.0 if stop.is_set() else self.once(slot)
            if pause:
                stop.wait(pause)
        self.drop()

    def drop(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            except psycopg.Error:
                pass
        self.conn = None

    def connection(self, slot) -> psycopg.Connection:
        key = (slot.label, slot.port)
        if self.conn is not None and (self.conn_for != key or self.conn.broken):
            self.drop()
        if self.conn is None:
            # Commits local or waiting for the synchronous standby: a mark
            # waits for it either way (docs/operations.md).
            sync = self.rng.choice(["on", "local"])
            self.conn = psycopg.connect(
                host="127.0.0.1",
                port=slot.port,
                user="postgres",
                dbname=DB,
                autocommit=True,
                connect_timeout=3,
                application_name=f"nem_{self.tag}",
                options=f"-c statement_timeout={STATEMENT_MS} -c synchronous_commit={sync}",
            )
            self.conn_for = key
        return self.conn

    def once(self, slot) -> float:
        """One statement; returns how long to pause after it."""
        history = self.world.history
        try:
            conn = self.connection(slot)
        except psycopg.Error as e:
            history.lost[sqlstate_of(e) or "connect"] += 1
            return 0.3
        role = slot.role
        # Every format's table in turn, and on the line's primary its
        # partitioned sno table too (ops_partitions.py).
        tables = [(fmt, f"t_{fmt}") for fmt in FORMATS]
        if role == "primary":
            tables.append(("sno", PARTITIONED))
        fmt, table = tables[self.statement % len(tables)]
        self.statement += 1
        n = self.rng.randint(1, 60)
        _, generate, timestamp = FORMATS[fmt]
        origin = f"{slot.label}/{self.tag}:{self.statement}"
        at = history.now()
        try:
            if role in ("primary", "second"):
                rows = conn.execute(
                    f"INSERT INTO {table} (origin, ord, at) SELECT %s, g, %s"
                    " FROM generate_series(1, %s) g"
                    f" RETURNING id::text, ord, {micros(timestamp, 'id')}",
                    (origin, at, n),
                ).fetchall()
            else:
                rows = conn.execute(
                    f"WITH s AS MATERIALIZED (SELECT g, {generate} AS x"
                    " FROM generate_series(1, %s) g)"
                    f" SELECT x::text, g, {micros(timestamp, 'x')} FROM s",
                    (n,),
                ).fetchall()
        except psycopg.Error as e:
            return self.failed(slot, role, fmt, e, origin, at)
        issued = [(r[0], f"{origin}:{r[1]}", r[2]) for r in rows]
        self.world.store.add(fmt, slot.lineage, origin, at, issued)
        if issued and role not in ("primary", "second"):
            self.check_refusal(slot, fmt, issued[0][0])
        return self.rng.uniform(0.005, 0.03)

    def check_refusal(self, slot, fmt: str, example: str) -> None:
        """A server in recovery generates only with a node of its own, and
        never kuid64."""
        if slot.may_generate and fmt != "kuid64":
            return
        if (slot.label, fmt) in self.reported:
            return
        # The model may be behind a promotion that has just happened.
        if slot.role == "primary":
            return
        self.reported.add((slot.label, fmt))
        why = "kuid64 in recovery" if fmt == "kuid64" else "no node of its own"
        self.world.history.find(
            "unrefused",
            f"{slot.label} ({slot.role}, node {slot.node}) generated {fmt} ({example}, ...)"
            f" with {why}: it must refuse (25006)",
        )

    def failed(self, slot, role, fmt, e: psycopg.Error, origin: str, at: float) -> float:
        history = self.world.history
        code = sqlstate_of(e)
        if code == "23505":
            detail = e.diag.message_detail or ""
            found = re.search(r"=\((.*)\) already exists", detail)
            id_text = found.group(1) if found else "?"
            self.world.store.add(
                fmt, slot.lineage, f"{origin} (refused by the key)", at, [(id_text, origin, None)]
            )
            history.find(
                "duplicate", f"{slot.label}: {fmt} {id_text} refused by the primary key ({origin})"
            )
            return 0.05
        if code is None or code.startswith("08") or code in SESSION_ENDED or self.conn.broken:
            history.lost[code or "connection"] += 1
            self.drop()
            return 0.2
        # 23514: no partition holds the row (yet): the maintenance job lags
        # the clock, which the nemesis steps.
        history.refused(f"{code} {role}")
        return 0.2
