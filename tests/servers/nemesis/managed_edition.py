"""pg_flake_sql, the edition for managed PostgreSQL, as one more writer of the
nemesis (docs/managed.md "As strong as native, and weaker"): installed by
its ``psql -f`` file into the database ``flake_sql`` of the line's first
primary before its standby is cloned, so that the line's servers all carry
it, with a node of its own (``ALTER DATABASE flake_sql SET pg_flake.node``,
which the line's ``ALTER SYSTEM`` node changes do not override). A writer
inserts every coordination-based format by ``DEFAULT`` into its tables on
whichever server is the primary: through the nemesis's kill -9, clock
steps, restarts and synchronous failovers, its IDs go to the checker with
the native ones (same text forms), so an ID the edition issued twice, or one
that a native server also issued, is a duplicate.

What counts as issued is the edition's guarantee: a row of a statement that
returned, committed with ``synchronous_commit = on``, unless PostgreSQL
warned that the wait for the synchronous standby was cancelled (the commit
is then local only, and a failover loses it, with its counter's advance);
those are counted apart. For the same reason a fenced old primary's rows of
the edition are not harvested (its confirmed rows are on the new primary);
the live primary's are. kuid64 has no node field: its IDs form a lineage of
their own (the native ones of the same server may equal them).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import psycopg
from cluster import FORMATS
from writers import STATEMENT_MS, Writer, micros, sqlstate_of

REPO = Path(__file__).resolve().parents[3]
INSTALL_FILE = REPO / "managed" / "dist" / "pg_flake_sql.sql"
SQL_DB = "flake_sql"
SCHEMA = "flake"
WRITERS = 1
# format: (column type, generator, text of an ID as the native type prints it, time decoder)
SQL_FORMATS = {
    "sno": ("flake.sno", "flake.sno_generate()", "flake.sno_to_text", "flake.sno_timestamp"),
    "siq": (
        "flake.siq",
        "flake.siq_generate('user')",
        "flake.siq_to_text",
        "flake.siq_timestamp",
    ),
    "snowflake": ("bigint", "flake.snowflake_generate()", "", "flake.snowflake_timestamp"),
    "kuid64": ("bigint", "flake.kuid64_generate()", "", "flake.kuid64_timestamp"),
    "kuid96": (
        "flake.kuid96",
        "flake.kuid96_generate()",
        "flake.kuid96_to_text",
        "flake.kuid96_timestamp",
    ),
}
assert set(SQL_FORMATS) == set(FORMATS)
CANCELLED_WAIT = "canceling wait for synchronous replication"


def lineage(slot) -> str:
    return f"{slot.lineage}/pg_flake_sql"


def text_of(fmt: str, column: str) -> str:
    to_text = SQL_FORMATS[fmt][2]
    return f"{to_text}({column})" if to_text else f"{column}::text"


def setup(world, primary) -> None:
    """The edition in ``flake_sql`` of the line's primary, with a node no
    server uses, and its tables."""
    cluster = world.cluster
    node = cluster.fresh_node("pg_flake_sql")
    primary.server.create_database(SQL_DB)
    subprocess.run(
        [
            str(primary.server.bin / "psql"),
            *("-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(primary.port)),
            *("-U", "postgres", "-d", SQL_DB),
            *("-c", f"SET pg_flake_sql.schema = '{SCHEMA}'", "-f", str(INSTALL_FILE)),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    with primary.connect() as conn:
        conn.execute(f"ALTER DATABASE {SQL_DB} SET pg_flake.node = {node}")
    with psycopg.connect(
        host="127.0.0.1", port=primary.port, user="postgres", dbname=SQL_DB, autocommit=True
    ) as conn:
        for fmt, (sql_type, generate, _, _) in SQL_FORMATS.items():
            conn.execute(
                f"CREATE TABLE t_{fmt} (id {sql_type} PRIMARY KEY DEFAULT {generate},"
                " origin text NOT NULL, ord int NOT NULL, at float8)"
            )
            conn.execute(f"INSERT INTO t_{fmt} (origin, ord) VALUES ('setup-sql', 1)")
    world.history.note(f"pg_flake_sql on the line with node {node}")


def writers(world) -> list[Writer]:
    return [SqlWriter(world, "primary", i) for i in range(WRITERS)]


class SqlWriter(Writer):
    def __init__(self, world, target: str, index: int):
        super().__init__(world, target, index)
        self.tag = f"sql_{target}{index}"
        self.name = f"nemesis-{self.tag}"
        self.cancelled_wait = False

    def connection(self, slot) -> psycopg.Connection:
        key = (slot.label, slot.port)
        if self.conn is not None and (self.conn_for != key or self.conn.broken):
            self.drop()
        if self.conn is None:
            self.conn = psycopg.connect(
                host="127.0.0.1",
                port=slot.port,
                user="postgres",
                dbname=SQL_DB,
                autocommit=True,
                connect_timeout=3,
                application_name=f"nem_{self.tag}",
                options=f"-c statement_timeout={STATEMENT_MS} -c synchronous_commit=on",
            )
            self.conn.add_notice_handler(self.notice)
            self.conn_for = key
        return self.conn

    def notice(self, diag) -> None:
        if CANCELLED_WAIT in (diag.message_primary or ""):
            self.cancelled_wait = True

    def once(self, slot) -> float:
        history = self.world.history
        if slot.role != "primary":
            return 0.2
        try:
            conn = self.connection(slot)
        except psycopg.Error as e:
            history.lost[sqlstate_of(e) or "connect"] += 1
            return 0.3
        fmt = list(SQL_FORMATS)[self.statement % len(SQL_FORMATS)]
        self.statement += 1
        n = self.rng.randint(1, 60)
        origin = f"{slot.label}/{self.tag}:{self.statement}"
        at = history.now()
        self.cancelled_wait = False
        try:
            rows = conn.execute(
                f"INSERT INTO t_{fmt} (origin, ord, at) SELECT %s, g, %s"
                " FROM generate_series(1, %s) g"
                f" RETURNING {text_of(fmt, 'id')}, ord, {micros(SQL_FORMATS[fmt][3], 'id')}",
                (origin, at, n),
            ).fetchall()
        except psycopg.Error as e:
            return self.failed(slot, "pg_flake_sql", fmt, e, origin, at)
        if self.cancelled_wait:
            history.note("pg_flake_sql commits whose synchronous wait was cancelled (local only)")
            return 0.05
        issued = [(r[0], f"{origin}:{r[1]}", r[2]) for r in rows]
        self.world.store.add(fmt, lineage(slot), origin, at, issued)
        history.note("pg_flake_sql IDs issued", len(issued))
        return self.rng.uniform(0.005, 0.03)


def harvest(world, slot) -> int:
    """Every row of the edition's tables on a live primary, as issuances."""
    total = 0
    with psycopg.connect(
        host="127.0.0.1",
        port=slot.port,
        user="postgres",
        dbname=SQL_DB,
        autocommit=True,
        options="-c statement_timeout=120000",
    ) as conn:
        for fmt, (_, _, _, decode) in SQL_FORMATS.items():
            rows = conn.execute(
                f"SELECT {text_of(fmt, 'id')}, origin || ':' || ord, {micros(decode, 'id')}, at"
                f" FROM t_{fmt}"
            ).fetchall()
            world.store.add(fmt, lineage(slot), f"harvest {slot.label}", world.history.now(), rows)
            total += len(rows)
    world.history.note("pg_flake_sql rows harvested", total)
    return total
