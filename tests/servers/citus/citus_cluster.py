"""What the Citus suite's modules share (``make test-citus``,
tests/servers/citus): whether Citus is there, the servers' configuration,
the formats, a cluster of named servers, and the check that no ID was
given twice (``traffic.py`` has the writers).

Citus: the suite skips, with the notice "test-citus: skipped: Citus is not
installed in <sharedir>", when citus.control is not in the PostgreSQL's
extension directory, unless ``PG_FLAKE_CITUS_RELEASE`` names the release
scripts/citus-build.sh built from the vendored tarball (make test-citus-V
sets it when the tarball is there): then a missing Citus, or another
release, fails the suite, so that CI cannot skip it.

Every server preloads ``citus,pg_flake`` and has no pg_flake setting: only
what pg_flake learns from Citus (the group id in pg_dist_local_group) keeps
the nodes' IDs apart (docs/operations.md "Several servers").
"""

from __future__ import annotations

import os
import subprocess
import time
from collections import Counter, defaultdict
from pathlib import Path

import psycopg
import pytest

from harness import PG_BIN, Server, rows_of

DB = "flake_citus"
RELEASE = os.environ.get("PG_FLAKE_CITUS_RELEASE", "")

# name: (SQL type, generator): the coordination-based formats with a node
# field. kuid64 has none: it must refuse to generate in a cluster (KUID64).
FORMATS = {
    "sno": ("sno", "sno_generate()"),
    "siq": ("siq", "siq_generate('event')"),
    "snowflake": ("bigint", "snowflake_generate()"),
    "kuid96": ("kuid96", "kuid96_generate()"),
}
KUID64 = ("bigint", "kuid64_generate()")

# Every server logs the SQLSTATE of each line (%e, the harness's
# COMMON_CONF). No pg_flake setting. Eight shards per table keep the tests
# quick; Citus's connections between the nodes need no TLS on loopback.
# Logical decoding and worker processes for shard moves (the rebalancer
# copies shards by logical replication); failed nodes noticed within 5 s.
CITUS_CONF = (
    "shared_preload_libraries = 'citus,pg_flake'",
    "citus.shard_count = 8",
    "citus.node_conninfo = 'sslmode=disable'",
    "citus.node_connection_timeout = 5000",
    "wal_level = logical",
    "max_worker_processes = 16",
)

# One row, the node field of a new ID of each format.
NODE_FIELDS = """SELECT sno_partition(sno_generate()) >> 8 AS sno,
    siq_domain_hash(siq_generate('event')) >> 24 AS siq,
    (snowflake_parts(snowflake_generate())).worker AS snowflake,
    kuid96_node(kuid96_generate(), current_setting('pg_flake.kuid_interval')::int) AS kuid96"""

# format: SQL of the node field of the ID in column `id`.
NODE_OF = {
    "sno": "sno_partition(id) >> 8",
    "siq": "siq_domain_hash(id) >> 24",
    "snowflake": "(snowflake_parts(id)).worker",
    "kuid96": "kuid96_node(id, current_setting('pg_flake.kuid_interval')::int)",
}

# `origin`: the port of the server that evaluated the row's defaults.
ORIGIN_DEFAULT = "DEFAULT current_setting('port')::int"


def citus_sharedir() -> str:
    return subprocess.run(
        [str(PG_BIN / "pg_config"), "--sharedir"], check=True, capture_output=True, text=True
    ).stdout.strip()


def require_citus() -> None:
    """At the top of each module: skip it without Citus, or fail when
    scripts/citus-build.sh had the tarball to build it from."""
    sharedir = citus_sharedir()
    if (Path(sharedir) / "extension" / "citus.control").is_file():
        return
    if RELEASE:
        pytest.fail(
            f"test-citus: Citus {RELEASE} is not installed in {sharedir}, though its tarball"
            " is in the vendor directory (scripts/citus-build.sh)",
            pytrace=False,
        )
    # One notice per module (conftest.py makes the exit status 0).
    pytest.skip(
        f"test-citus: skipped: Citus is not installed in {sharedir}", allow_module_level=True
    )


def since(start: float) -> str:
    return f"{time.monotonic() - start:.1f}"


class Cluster:
    """Servers by name (a name keeps its role when another server takes it
    over: a promoted standby becomes ``worker1``), and queries on their
    test database (a connection each, as psql would)."""

    def __init__(self, servers: dict[str, Server] | None = None):
        self.servers: dict[str, Server] = dict(servers or {})
        # port: the name of the server that had it, for the figures
        self.names: dict[int, str] = {s.port: n for n, s in self.servers.items()}

    def add(self, name: str, server: Server, label: str | None = None) -> None:
        self.servers[name] = server
        self.names[server.port] = label or name

    def port(self, name: str) -> int:
        return self.servers[name].port

    def sql(self, name: str, query: str, params=None):
        return self.servers[name].sql(query, params, dbname=DB)

    def value(self, name: str, query: str, params=None):
        return self.servers[name].value(query, params, dbname=DB)

    def coord(self, query: str, params=None):
        return self.value("coordinator", query, params)

    def table(self, name: str, query: str) -> list[str]:
        with self.servers[name].connect(DB) as conn:
            return rows_of(conn.execute(query))

    def server_case(self, column: str) -> str:
        """SQL naming the server whose port ``column`` holds."""
        whens = " ".join(f"WHEN {port} THEN '{name}'" for port, name in self.names.items())
        return f"CASE {column} {whens} ELSE ({column})::text END"

    def group(self, name: str) -> int:
        return self.value(name, "SELECT groupid FROM pg_dist_local_group")

    def node_fields(self, name: str) -> dict:
        """The node field of a new ID of each format made on ``name``."""
        with self.servers[name].connect(DB) as conn:
            cur = conn.execute(NODE_FIELDS)
            return dict(zip((c.name for c in cur.description), cur.fetchone()))

    def pg_dist_node(self) -> list[str]:
        return self.table(
            "coordinator",
            "SELECT nodeid, groupid, nodeport, noderole, hasmetadata, metadatasynced,"
            " shouldhaveshards FROM pg_dist_node ORDER BY nodeid",
        )

    def wait_metadata_synced(self, timeout: float = 60) -> None:
        """Until the coordinator has synced its metadata to every worker."""
        self.servers["coordinator"].wait_for(
            "SELECT bool_and(metadatasynced) FROM pg_dist_node WHERE noderole = 'primary'",
            timeout=timeout,
            dbname=DB,
        )


def start_server(make, name: str, *conf: str) -> Server:
    """A fresh server with the test database and Citus."""
    server = make(name).init(*CITUS_CONF, *conf, preload=False)
    server.start()
    server.sql(f"CREATE DATABASE {DB}")
    server.sql("CREATE EXTENSION citus", dbname=DB)
    return server


def form(cluster: Cluster, workers) -> None:
    """The coordinator in the metadata, the workers added (each gets its
    group id), pg_flake created through the coordinator."""
    coordinator = cluster.port("coordinator")
    cluster.coord(f"SELECT citus_set_coordinator_host('127.0.0.1', {coordinator})")
    for name in workers:
        cluster.coord(f"SELECT citus_add_node('127.0.0.1', {cluster.port(name)})")
    cluster.coord("CREATE EXTENSION pg_flake")


def create_tables(cluster: Cluster, prefix: str, how: str = "distributed") -> None:
    """``<prefix>_<format>`` for every format: the generated ID its primary
    key (and distribution column), the writer's statement and the row's
    number in it (the issuance), the port of the server that evaluated the
    defaults; ``how``: distributed (by the ID) or reference."""
    for name, (kind, gen) in FORMATS.items():
        table = f"{prefix}_{name}"
        cluster.coord(
            f"CREATE TABLE {table} (id {kind} PRIMARY KEY DEFAULT {gen}, writer text NOT NULL,"
            f" ord int NOT NULL, origin int NOT NULL {ORIGIN_DEFAULT})"
        )
        if how == "reference":
            cluster.coord(f"SELECT create_reference_table('{table}')")
        else:
            cluster.coord(f"SELECT create_distributed_table('{table}', 'id')")


def harvest(server: Server, table: str, port: int | None = None) -> list[tuple]:
    """(id, issuance key, origin) of every row of ``table`` on ``server``
    (through the coordinator: every shard)."""
    with psycopg.connect(
        host="127.0.0.1", port=port or server.port, user="postgres", dbname=DB, autocommit=True
    ) as conn:
        return conn.execute(
            f"SELECT id::text, writer || ':' || ord, origin FROM {table}"
        ).fetchall()


def nodes_by_origin(cluster: Cluster, prefix: str) -> dict:
    """(format, origin port): the node fields of the IDs that server made,
    in the ``<prefix>_<format>`` tables (read through the coordinator)."""
    found = {}
    for fmt in FORMATS:
        for origin, nodes in cluster.sql(
            "coordinator",
            f"SELECT origin, array_agg(DISTINCT {NODE_OF[fmt]} ORDER BY {NODE_OF[fmt]})"
            f" FROM {prefix}_{fmt} GROUP BY origin",
        ):
            found[(fmt, origin)] = list(nodes)
    return found


def repeated(issuances) -> dict:
    """``issuances``: (format, id, key, origin) of every ID given out or
    found in a table (a row found again is the same issuance: the same
    key). Returns format: [(id, {key: origin})] of the IDs given twice."""
    by_id: dict = defaultdict(dict)
    for fmt, id_text, key, origin in issuances:
        by_id[(fmt, id_text)].setdefault(key, origin)
    found: dict = defaultdict(list)
    for (fmt, id_text), keys in by_id.items():
        if len(keys) > 1:
            found[fmt].append((id_text, keys))
    return dict(found)


def per_origin(cluster: Cluster, issuances) -> list[tuple]:
    """(format, made on, IDs) rows for the figures: distinct IDs per format
    and per server that made them."""
    seen: dict = defaultdict(set)
    for fmt, id_text, _key, origin in issuances:
        seen[(fmt, cluster.names.get(origin, str(origin)))].add(id_text)
    return sorted((fmt, where, len(ids)) for (fmt, where), ids in seen.items())


def refusal(server: Server, call: str) -> str:
    """What ``SELECT <call>`` did on ``server``: "generated", or "refused:
    SQLSTATE message"; the error comes back as a NOTICE, so that an
    expected refusal leaves no ERROR line in the server's log."""
    notices = []
    with server.connect(DB) as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        conn.execute("SET client_min_messages = notice")
        conn.execute(
            f"DO $$ BEGIN PERFORM {call}; RAISE NOTICE 'generated';"
            " EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'refused: % %', SQLSTATE, SQLERRM; END $$"
        )
    return "; ".join(notices)


def unique_violations(servers) -> list:
    """ERROR lines with SQLSTATE 23505 in the servers' logs."""
    return [
        (s.name, message)
        for s in servers
        for code, level, message in s.log_errors()
        if code == "23505" and level == "ERROR"
    ]


def counted(counter: Counter) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counter.items())) or "none"
