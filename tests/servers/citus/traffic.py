"""Writers for the Citus suite: threads that insert through named nodes of
a :class:`citus_cluster.Cluster` into the ``<prefix>_<format>`` tables of
``citus_cluster.create_tables``, every format in turn, and keep every ID
they were given.

A writer looks its node up by name before each statement, so that it
follows a name to the server that takes it over (a promoted standby). A
statement is ``INSERT ... SELECT`` of a few rows from ``generate_series``
with ``RETURNING``: the server it is sent to evaluates the defaults (its
``origin``), as a worker does for writes sent to it directly. Its outcome
is one of: the IDs (each an issuance, keyed by the writer's statement and
the row's number: the key the row carries in its table), a refusal (an
error with a SQLSTATE, counted), a lost connection (counted apart: its
statement may or may not have committed, so its key is *uncertain*), or a
duplicate key (23505), which is kept as a finding.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections import Counter

import psycopg
from citus_cluster import DB, FORMATS, Cluster

STATEMENT_MS = 10000


class Writer(threading.Thread):
    def __init__(self, traffic: Traffic, node: str, index: int):
        self.tag = f"{node}.{index}"
        super().__init__(daemon=True, name=f"citus-writer-{self.tag}")
        self.traffic = traffic
        self.node = node
        self.rng = random.Random(self.tag)
        self.conn: psycopg.Connection | None = None
        self.conn_port = 0
        self.statement = 0

    def run(self) -> None:
        stop = self.traffic.stop
        while not stop.is_set():
            pause = self.once()
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

    def connection(self) -> psycopg.Connection:
        port = self.traffic.cluster.port(self.node)
        if self.conn is not None and (self.conn_port != port or self.conn.broken):
            self.drop()
        if self.conn is None:
            self.conn = psycopg.connect(
                host="127.0.0.1",
                port=port,
                user="postgres",
                dbname=DB,
                autocommit=True,
                connect_timeout=3,
                options=f"-c statement_timeout={STATEMENT_MS}",
            )
            self.conn_port = port
        return self.conn

    def once(self) -> float:
        """One statement; returns how long to pause after it."""
        t = self.traffic
        try:
            conn = self.connection()
        except psycopg.Error:
            t.count("lost", f"{self.node} connect")
            return 0.3
        fmt = list(FORMATS)[self.statement % len(FORMATS)]
        self.statement += 1
        writer = f"{self.tag}:{self.statement}"
        n = self.rng.randint(1, 20)
        try:
            rows = conn.execute(
                f"INSERT INTO {t.prefix}_{fmt} (writer, ord) SELECT %s, g"
                " FROM generate_series(1, %s) g RETURNING id::text, ord, origin",
                (writer, n),
            ).fetchall()
        except psycopg.Error as e:
            return self.failed(fmt, writer, e)
        t.add([(fmt, id_text, f"{writer}:{ord}", origin) for id_text, ord, origin in rows])
        return self.rng.uniform(0.0, 0.02)

    def failed(self, fmt: str, writer: str, e: psycopg.Error) -> float:
        t = self.traffic
        code = getattr(e, "sqlstate", None)
        if code == "23505":
            found = re.search(r"=\((.*)\) already exists", e.diag.message_detail or "")
            t.found(f"{self.node}: {fmt} {found.group(1) if found else '?'} refused by the key")
        broken = self.conn is None or self.conn.broken
        if code is None or code.startswith("08") or broken:
            t.count("lost", f"{self.node} {code or 'connection'}")
            with t.lock:
                t.uncertain.add(writer)
            self.drop()
            return 0.3
        t.count("refused", f"{self.node} {code}")
        return 0.2


class Traffic:
    """``writers``: node name: how many writers insert through it."""

    def __init__(self, cluster: Cluster, prefix: str, writers: dict[str, int]):
        self.cluster = cluster
        self.prefix = prefix
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.issued: list[tuple] = []  # (format, id, key, origin)
        self.uncertain: set[str] = set()  # writer statements whose outcome is unknown
        self.findings: list[str] = []
        self.counts: dict[str, Counter] = {"lost": Counter(), "refused": Counter()}
        self.threads = [Writer(self, node, i) for node, n in writers.items() for i in range(n)]
        self.started = 0.0
        self.seconds = 0.0

    def add(self, rows) -> None:
        with self.lock:
            self.issued.extend(rows)

    def count(self, kind: str, what: str) -> None:
        with self.lock:
            self.counts[kind][what] += 1

    def found(self, what: str) -> None:
        with self.lock:
            self.findings.append(what)

    def __enter__(self) -> Traffic:
        self.started = time.monotonic()
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)
        self.seconds = time.monotonic() - self.started

    def run_for(self, seconds: float) -> None:
        """Lets the writers write for ``seconds``."""
        time.sleep(seconds)
