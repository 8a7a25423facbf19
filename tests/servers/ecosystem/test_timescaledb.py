"""TimescaleDB hypertables keyed by pg_flake's IDs (docs/operations.md
"TimescaleDB"; issue 40): Debian 13's TimescaleDB 2.19 on PostgreSQL 17 (no
package for the other versions here: the module skips there).

A hypertable's time dimension may be a column of any type with a
``time_partitioning_func`` that turns it into a time: the ID column itself,
with its IMMUTABLE one-argument decoder (``sno_timestamp``, ``siq_timestamp``,
…; Snowflake's and kuid96's one-argument decoders read a setting and are
STABLE, so those need an IMMUTABLE function of one argument that passes the
epoch or the interval). For each format: four days of IDs go into one chunk
a day (each chunk's rows decode to one UTC day), and both ``WHERE
<decoder>(id) >= …`` and ``WHERE id >= <format>_from_time(…)`` (the IMMUTABLE
forms) exclude the chunks before (chunk exclusion, in the plan: TimescaleDB
takes the partitioning function to keep the column's order); the STABLE
one-argument ``snowflake_from_time`` and ``kuid96_from_time`` exclude
nothing.
"""

from __future__ import annotations

import datetime

import pytest
from components import DB, flake_server, plan, require_extension, scanned

TIMESCALEDB = require_extension("timescaledb", {17: "postgresql-17-timescaledb 2.19"})
UTC = datetime.timezone.utc
DAY = datetime.timedelta(days=1)

# name: (column type, IMMUTABLE decoder of one argument, its definition or None).
HYPERTABLES = {
    "sno": ("sno", "sno_timestamp", None),
    "siq": ("siq", "siq_timestamp", None),
    "flaxid": ("flaxid", "flaxid_timestamp", None),
    "distributed_id": ("distributed_id", "distributed_id_timestamp", None),
    "kuid96": (
        "kuid96",
        "kuid96_time",
        "CREATE FUNCTION kuid96_time(id kuid96) RETURNS timestamptz IMMUTABLE STRICT"
        " PARALLEL SAFE LANGUAGE sql RETURN kuid96_timestamp(id, 8)",
    ),
    "snowflake": (
        "bigint",
        "snowflake_time",
        "CREATE FUNCTION snowflake_time(id bigint) RETURNS timestamptz IMMUTABLE STRICT"
        " PARALLEL SAFE LANGUAGE sql RETURN snowflake_timestamp(id, 1420070400000)",
    ),
}


@pytest.fixture(scope="module")
def server(module_servers):
    server = flake_server(
        module_servers,
        "timescaledb",
        "shared_preload_libraries = 'timescaledb,pg_flake'",
        "timescaledb.telemetry_level = off",
    )
    server.sql("CREATE EXTENSION timescaledb", dbname=DB)
    return server


@pytest.mark.parametrize("fmt", HYPERTABLES)
def test_hypertable(server, fmt, figures):
    kind, decode, definition = HYPERTABLES[fmt]
    table = f"ts_{fmt}"
    if definition:
        server.sql(definition, dbname=DB)
    first = datetime.datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - 3 * DAY
    server.sql(f"CREATE TABLE {table} (id {kind} NOT NULL, note text)", dbname=DB)
    server.sql(
        """SELECT create_hypertable(%s, 'id', chunk_time_interval => interval '1 day',
                                    time_partitioning_func => %s)""",
        (table, decode),
        dbname=DB,
    )
    from_time = f"{fmt}_from_time"
    server.sql(
        f"""INSERT INTO {table}
            SELECT {from_time}(%s::timestamptz + d * interval '1 day' + s * interval '1 min'),
                   'made'
            FROM generate_series(0, 3) d, generate_series(1, 50) s""",
        (first,),
        dbname=DB,
    )
    # A chunk per day: the days of its rows' decoded times (the view
    # timescaledb_information.chunks gives no range for a dimension of a
    # type of its own).
    chunks = {}
    for (chunk,) in server.sql("SELECT show_chunks(%s)::text", (table,), dbname=DB):
        low, high = server.sql(
            f"SELECT min({decode}(id)), max({decode}(id)) FROM {chunk}", dbname=DB
        )[0]
        day = low.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        assert high < day + DAY, f"{chunk}: rows of one UTC day ({low} … {high})"
        chunks[day] = chunk.split(".")[-1]
    assert sorted(chunks) == [first + i * DAY for i in range(4)], chunks
    cutoff = first + 2 * DAY
    by_time = plan(server, f"SELECT * FROM {table} WHERE {decode}(id) >= %s", (cutoff,))
    assert scanned(by_time, "_hyper_") == {c for d, c in chunks.items() if d >= cutoff}, by_time
    # The ID range of the IMMUTABLE _from_time (Snowflake's and kuid96's with
    # their epoch and interval): TimescaleDB takes its partitioning function
    # to keep the column's order and excludes the same chunks.
    immutable = {"snowflake": ", 1420070400000", "kuid96": ", 8"}.get(fmt, "")
    by_id = plan(server, f"SELECT * FROM {table} WHERE id >= {from_time}(%s{immutable})", (cutoff,))
    if fmt == "sno":
        figures(f"TimescaleDB {TIMESCALEDB}, {table}: WHERE {decode}(id) >= '{cutoff:%Y-%m-%d}'")
        for line in by_time.splitlines():
            figures(line)
        figures(f"… and WHERE id >= {from_time}('{cutoff:%Y-%m-%d}')")
        for line in by_id.splitlines():
            figures(line)
    assert scanned(by_id, "_hyper_") == {c for d, c in chunks.items() if d >= cutoff}, by_id
    if immutable:
        # The STABLE one-argument form excludes nothing (its value is known
        # only when the executor starts, and startup exclusion does not
        # reach through the partitioning function).
        stable = plan(server, f"SELECT * FROM {table} WHERE id >= {from_time}(%s)", (cutoff,))
        assert scanned(stable, "_hyper_") == set(chunks.values()), stable
