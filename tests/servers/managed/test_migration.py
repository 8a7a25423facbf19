"""A table moves from pg_flake_sql to the native extension and back
(docs/operations.md "Managed PostgreSQL": the migration): pg_dump and
restore, then ALTER COLUMN ... TYPE ... USING id::bytea::<type>, each way,
on 3 000 rows of every format; the values are the same bytes and the same
text before and after, and generation on the other side goes on above them.
The pg_tle edition's database survives pg_dump and restore too."""

from __future__ import annotations

import subprocess

from harness import PG_BIN

from conftest import skip_without_pg_tle
from managed_lib import SCHEMA, create_database, install

ROWS = 3_000
# column: (type name, bigint or uuid base, how the row's value is made)
COLUMNS = {
    "a_sno": ("sno", None, "{s}.sno_generate()"),
    "a_siq": ("siq", None, "{s}.siq_generate('message')"),
    "a_flaxid": ("flaxid", None, "{s}.flaxid_generate()"),
    "a_kuid96": ("kuid96", None, "{s}.kuid96_generate()"),
    "a_did": ("distributed_id", None, "{s}.distributed_id_generate()"),
    "a_snowflake": (None, "bigint", "{s}.snowflake_generate()"),
    "a_kuid64": (None, "bigint", "{s}.kuid64_generate()"),
    "a_d128": (None, "uuid", "{s}.distributed_id128_generate()"),
}


def make_table(server, db: str, schema: str) -> None:
    columns = ", ".join(
        f"{c} {f'{schema}.{t}' if t else base}" for c, (t, base, _) in COLUMNS.items()
    )
    values = ", ".join(make.format(s=schema) for _, _, make in COLUMNS.values())
    server.sql(f"CREATE TABLE public.events (n int PRIMARY KEY, {columns})", dbname=db)
    server.sql(
        f"INSERT INTO public.events SELECT g, {values} FROM generate_series(1, {ROWS}) g", dbname=db
    )


def texts(server, db: str, schema: str, edition: str) -> list[tuple]:
    """Every value as bytes and as its text, by row."""
    parts = []
    for c, (t, _base, _) in COLUMNS.items():
        if t is None:
            parts.append(f"{c}::text")
        elif edition == "native" or edition == "pg_tle":
            parts.append(f"{c}::bytea, {c}::text")
        else:
            parts.append(f"{c}::bytea, {schema}.{t}_to_text({c})")
    return server.sql(f"SELECT n, {', '.join(parts)} FROM public.events ORDER BY n", dbname=db)


def dump_restore(server, source: str, target: str) -> None:
    dump = subprocess.run(
        [
            str(PG_BIN / "pg_dump"),
            "-h",
            "127.0.0.1",
            "-p",
            str(server.port),
            "-U",
            "postgres",
            "-Fc",
            source,
        ],
        check=True,
        capture_output=True,
    ).stdout
    server.sql(f"DROP DATABASE IF EXISTS {target}")
    server.sql(f"CREATE DATABASE {target}")
    subprocess.run(
        [
            str(PG_BIN / "pg_restore"),
            "-h",
            "127.0.0.1",
            "-p",
            str(server.port),
            "-U",
            "postgres",
            "--exit-on-error",
            "-d",
            target,
        ],
        input=dump,
        check=True,
        capture_output=True,
    )


def alter_to(server, db: str, schema: str) -> None:
    """Every column to ``schema``'s type, through its bytes, and its default
    to ``schema``'s generator: one ALTER TABLE per column, the old default
    dropped first (it returns the old type)."""
    for c, (t, _, make) in COLUMNS.items():
        retype = f"ALTER COLUMN {c} TYPE {schema}.{t} USING {c}::bytea::{schema}.{t}, " if t else ""
        server.sql(
            f"ALTER TABLE public.events ALTER COLUMN {c} DROP DEFAULT, {retype}"
            f"ALTER COLUMN {c} SET DEFAULT {make.format(s=schema)}",
            dbname=db,
        )


def generation_above(server, db: str, schema: str) -> None:
    """New rows by the other side's generators: above every migrated one, for
    the coordination-based formats."""
    server.sql(
        f"INSERT INTO public.events (n) SELECT {ROWS} + g FROM generate_series(1, 100) g", dbname=db
    )
    for c in ("a_sno", "a_siq", "a_kuid96", "a_snowflake", "a_kuid64"):
        t, base, _ = COLUMNS[c]
        key = f"{c}::bytea" if t else c
        below = server.value(
            f"""SELECT count(*) FROM public.events new WHERE new.n > {ROWS}
                AND {key.replace(c, "new." + c)} <= (SELECT {key.replace(c, "old." + c)} FROM public.events old
                                                  WHERE old.n <= {ROWS} ORDER BY 1 DESC LIMIT 1)""",
            dbname=db,
        )
        assert below == 0, f"{c}: {below} new IDs not above the migrated ones"


def same(before: list[tuple], after: list[tuple]) -> None:
    assert len(before) == ROWS
    assert before == after, next((a, b) for a, b in zip(before, after) if a != b)


def test_from_the_edition_to_native_and_back(cluster, figures):
    # pg_flake_sql (psql -f), its table dumped and restored, moved to native.
    create_database(cluster, "mig_sql", "psql")
    make_table(cluster, "mig_sql", SCHEMA)
    before = texts(cluster, "mig_sql", SCHEMA, "psql")
    dump_restore(cluster, "mig_sql", "mig_sql_restored")
    same(before, texts(cluster, "mig_sql_restored", SCHEMA, "psql"))
    # The counters came along: generation goes on above.
    generation_above(cluster, "mig_sql_restored", SCHEMA)
    cluster.sql(f"DELETE FROM public.events WHERE n > {ROWS}", dbname="mig_sql_restored")
    cluster.sql(
        "CREATE SCHEMA native; CREATE EXTENSION pg_flake SCHEMA native", dbname="mig_sql_restored"
    )
    alter_to(cluster, "mig_sql_restored", "native")
    same(before, texts(cluster, "mig_sql_restored", "native", "native"))
    generation_above(cluster, "mig_sql_restored", "native")
    cluster.sql(f"DELETE FROM public.events WHERE n > {ROWS}", dbname="mig_sql_restored")

    # Native, dumped and restored, moved back to pg_flake_sql.
    dump_restore(cluster, "mig_sql_restored", "mig_back")
    same(before, texts(cluster, "mig_back", "native", "native"))
    install(cluster, "mig_back", "psql")
    alter_to(cluster, "mig_back", SCHEMA)
    same(before, texts(cluster, "mig_back", SCHEMA, "psql"))
    generation_above(cluster, "mig_back", SCHEMA)
    # Nothing depends on the native extension any more.
    cluster.sql("DROP EXTENSION pg_flake", dbname="mig_back")
    figures(
        f"{ROWS} rows x {len(COLUMNS)} formats: pg_flake_sql -> dump/restore -> native (ALTER COLUMN) -> dump/restore -> pg_flake_sql: same bytes and text, generation above"
    )


def test_pg_tle_edition_dump_restore_and_to_native(cluster, pg_tle, figures):
    skip_without_pg_tle(pg_tle)
    create_database(cluster, "mig_tle", "pg_tle")
    make_table(cluster, "mig_tle", SCHEMA)
    before = texts(cluster, "mig_tle", SCHEMA, "pg_tle")
    dump_restore(cluster, "mig_tle", "mig_tle_restored")
    same(before, texts(cluster, "mig_tle_restored", SCHEMA, "pg_tle"))
    generation_above(cluster, "mig_tle_restored", SCHEMA)
    cluster.sql(f"DELETE FROM public.events WHERE n > {ROWS}", dbname="mig_tle_restored")
    cluster.sql(
        "CREATE SCHEMA native; CREATE EXTENSION pg_flake SCHEMA native", dbname="mig_tle_restored"
    )
    alter_to(cluster, "mig_tle_restored", "native")
    same(before, texts(cluster, "mig_tle_restored", "native", "native"))
    generation_above(cluster, "mig_tle_restored", "native")
    figures(
        f"pg_tle edition: {ROWS} rows dumped and restored (pg_tle's extension with it), then moved to native: same bytes and text"
    )
