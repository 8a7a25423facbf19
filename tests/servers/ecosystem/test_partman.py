"""pg_partman with pg_flake's IDs (docs/operations.md "pg_partman"; issue 40):
Debian 12's pg_partman 4.7 on PostgreSQL 15, Debian 13's 5.2 on 17 (none
for the PyPI builds of 16 and 18: the module skips there).

pg_partman manages a control column of a built-in type only: integers and
numeric (by value), date and timestamps (by time), and from 5.1 text and
uuid through a time encoder and decoder (``p_time_encoder``,
``p_time_decoder``). So:

- **snowflake** (bigint), both versions: partitions by value, a day's worth
  of IDs each (``86400000 << 22``: with the default epoch, a UTC midnight, a
  partition is exactly a day), premade ahead of the newest ID by
  ``run_maintenance()``, and dropped by retention (a value range);
- **distributed_id128** (uuid), 5.x: by time with ``p_time_encoder =>
  distributed_id128_from_time`` and, as ``p_time_decoder``, a function of text
  around ``distributed_id128_timestamp`` (pg_partman hands its decoder the
  ID as text): premake and retention by time;
- **sno, siq, kuid96** (and the other native types): refused by
  ``create_parent`` on both versions (the check is partman's own, a list of
  built-in type names), and a time encoder on a bigint column is refused
  by 5.x: ``pg_flake_create_partitions``/``pg_flake_drop_partitions``
  (test_partitioning.py) are the way for them.
"""

from __future__ import annotations

import datetime
import re

import psycopg
import pytest
from components import DB, flake_server, require_extension

PARTMAN = require_extension(
    "pg_partman", {15: "postgresql-15-partman 4.7", 17: "postgresql-17-partman 5.2"}
)
PARTMAN_MAJOR = int(PARTMAN.split(".")[0])
UTC = datetime.timezone.utc
DAY = datetime.timedelta(days=1)
# A day of snowflake IDs: milliseconds above the 22 bits of worker, process
# and sequence.
SNOWFLAKE_DAY = 86_400_000 << 22


@pytest.fixture(scope="module")
def server(module_servers):
    server = flake_server(module_servers, "partman")
    server.sql("CREATE SCHEMA partman", dbname=DB)
    server.sql("CREATE EXTENSION pg_partman SCHEMA partman", dbname=DB)
    return server


def today() -> datetime.datetime:
    return datetime.datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def children(server, parent: str) -> dict[str, str]:
    """The partitions of ``parent``: name -> bound (``FOR VALUES …``, ``DEFAULT``)."""
    return dict(
        server.sql(
            """SELECT c.relname::text, pg_get_expr(c.relpartbound, c.oid)
               FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = %s::regclass""",
            (parent,),
            dbname=DB,
        )
    )


def ranges(server, parent: str, kind: str) -> dict[str, tuple]:
    """``parent``'s range partitions: name -> (lower, upper bound) as values of ``kind``."""
    found = {}
    for name, bound in children(server, parent).items():
        match = re.match(r"FOR VALUES FROM \((.*)\) TO \((.*)\)$", bound)
        if match:
            found[name] = tuple(
                server.value(f"SELECT ({b})::{kind}", dbname=DB) for b in match.groups()
            )
    return found


def lower_bounds(server, parent: str, kind: str) -> list:
    """The lower bounds of ``parent``'s range partitions, ascending."""
    return sorted(lower for lower, _ in ranges(server, parent, kind).values())


def misplaced(server, parent: str, kind: str, decode: str = "") -> list:
    """The rows of ``parent`` outside the range of the partition they are in
    (compared as values, or as times through ``decode``)."""
    bounds = ranges(server, parent, kind)
    if decode:
        bounds = {
            name: tuple(server.value(f"SELECT {decode}(%s::{kind})", (b,), dbname=DB) for b in pair)
            for name, pair in bounds.items()
        }
    value = f"{decode}(id)" if decode else "id"
    rows = server.sql(f"SELECT tableoid::regclass::text, {value} FROM {parent}", dbname=DB)
    return [r for r in rows if r[0] not in bounds or not bounds[r[0]][0] <= r[1] < bounds[r[0]][1]]


def in_default(server, parent: str) -> int:
    names = [n for n, b in children(server, parent).items() if b == "DEFAULT"]
    return sum(server.value(f"SELECT count(*) FROM {n}", dbname=DB) for n in names)


def test_snowflake_by_value(server, figures):
    start = today() - 3 * DAY
    first = server.value("SELECT snowflake_from_time(%s)", (start,), dbname=DB)
    assert first % SNOWFLAKE_DAY == 0, "the default epoch is a UTC midnight: days are whole ranges"
    server.sql(
        """CREATE TABLE public.sf (id bigint NOT NULL DEFAULT snowflake_generate(), note text)
           PARTITION BY RANGE (id)""",
        dbname=DB,
    )
    kind = "'native'" if PARTMAN_MAJOR < 5 else "'range'"
    server.sql(
        f"""SELECT partman.create_parent(p_parent_table => 'public.sf', p_control => 'id',
                p_type => {kind}, p_interval => %s, p_premake => 2, p_start_partition => %s)""",
        (str(SNOWFLAKE_DAY), str(first)),
        dbname=DB,
    )
    # The three past days' IDs, made from their times; maintenance premakes
    # above the newest, then today's generated IDs have their partition.
    server.sql(
        """INSERT INTO sf (id, note)
           SELECT snowflake_from_time(%s::timestamptz + d * interval '1 day' + s * interval '1 s'),
                  'past'
           FROM generate_series(0, 2) d, generate_series(1, 20) s""",
        (start,),
        dbname=DB,
    )
    server.sql("SELECT partman.run_maintenance('public.sf')", dbname=DB)
    server.sql("INSERT INTO sf (note) SELECT 'now' FROM generate_series(1, 100)", dbname=DB)
    server.sql("SELECT partman.run_maintenance('public.sf')", dbname=DB)
    bounds = lower_bounds(server, "sf", "bigint")
    days = [(b - first) // SNOWFLAKE_DAY - 3 for b in bounds]
    figures(f"pg_partman {PARTMAN}, snowflake by value: partitions for days {days} (0: today)")
    assert all((b - first) % SNOWFLAKE_DAY == 0 for b in bounds), "partitions on UTC midnights"
    assert days[0] == -3 and 2 in days, f"from the start to today + premake 2: {days}"
    assert in_default(server, "sf") == 0, "no row in the default partition"
    wrong = misplaced(server, "sf", "bigint")
    assert wrong == [], f"every ID in its day's partition: {wrong[:5]}"

    # Retention by value: the partitions wholly more than two days of IDs
    # below the newest go.
    server.sql(
        """UPDATE partman.part_config SET retention = %s, retention_keep_table = false
           WHERE parent_table = 'public.sf'""",
        (str(2 * SNOWFLAKE_DAY),),
        dbname=DB,
    )
    server.sql("SELECT partman.run_maintenance('public.sf')", dbname=DB)
    kept = [(b - first) // SNOWFLAKE_DAY - 3 for b in lower_bounds(server, "sf", "bigint")]
    figures(f"pg_partman {PARTMAN}, after retention of 2 days: days {kept}")
    assert -3 not in kept and -1 in kept and 0 in kept, kept
    assert server.value("SELECT count(*) FROM sf WHERE note = 'now'", dbname=DB) == 100


@pytest.mark.skipif(PARTMAN_MAJOR < 5, reason="pg_partman 4.7 has no time encoder")
def test_distributed_id128_by_time(server, figures):
    start = today() - 3 * DAY
    server.sql(
        """CREATE TABLE public.d128 (
               id uuid NOT NULL DEFAULT distributed_id128_generate(), note text
           ) PARTITION BY RANGE (id)""",
        dbname=DB,
    )
    # pg_partman 5.2 hands its decoder the ID as text (its own uuid7_time_decoder
    # takes text): a function of text around distributed_id128_timestamp.
    server.sql(
        """CREATE FUNCTION distributed_id128_text_timestamp(id text) RETURNS timestamptz
           IMMUTABLE STRICT PARALLEL SAFE LANGUAGE sql
           RETURN distributed_id128_timestamp(id::uuid)""",
        dbname=DB,
    )
    server.sql(
        """SELECT partman.create_parent(p_parent_table => 'public.d128', p_control => 'id',
                p_interval => '1 day', p_premake => 2, p_start_partition => %s,
                p_time_encoder => 'public.distributed_id128_from_time',
                p_time_decoder => 'public.distributed_id128_text_timestamp')""",
        (start.isoformat(),),
        dbname=DB,
    )
    server.sql("SELECT partman.run_maintenance('public.d128')", dbname=DB)
    starts = [
        server.value("SELECT distributed_id128_timestamp(%s)", (b,), dbname=DB)
        for b in lower_bounds(server, "d128", "uuid")
    ]
    days = [(s - today()) // DAY for s in starts]
    figures(f"pg_partman {PARTMAN}, distributed_id128 by time: partitions for days {days}")
    assert days[0] == -3 and days == list(range(-3, days[-1] + 1)) and days[-1] >= 2, (
        f"a day each, from the start to today + premake 2: {days}"
    )
    server.sql("INSERT INTO d128 (note) SELECT 'now' FROM generate_series(1, 100)", dbname=DB)
    server.sql(
        """INSERT INTO d128 (id, note)
           SELECT distributed_id128_from_time(
                      %s::timestamptz + d * interval '1 day' + s * interval '1 s'), 'past'
           FROM generate_series(0, 2) d, generate_series(1, 20) s""",
        (start,),
        dbname=DB,
    )
    assert in_default(server, "d128") == 0
    wrong = misplaced(server, "d128", "uuid", "distributed_id128_timestamp")
    assert wrong == [], f"every ID in its day's partition: {wrong[:5]}"
    server.sql(
        """UPDATE partman.part_config SET retention = '2 days', retention_keep_table = false
           WHERE parent_table = 'public.d128'""",
        dbname=DB,
    )
    server.sql("SELECT partman.run_maintenance('public.d128')", dbname=DB)
    kept = [
        (server.value("SELECT distributed_id128_timestamp(%s)", (b,), dbname=DB) - today()) // DAY
        for b in lower_bounds(server, "d128", "uuid")
    ]
    figures(f"pg_partman {PARTMAN}, after retention of 2 days: days {kept}")
    assert kept[0] >= -2 and 0 in kept, kept
    assert server.value("SELECT count(*) FROM d128 WHERE note = 'now'", dbname=DB) == 100


@pytest.mark.parametrize("kind", ["sno", "siq", "kuid96"])
def test_native_types_refused(server, kind, figures):
    server.sql(
        f"CREATE TABLE public.n_{kind} (id {kind} NOT NULL) PARTITION BY RANGE (id)", dbname=DB
    )
    extra = ""
    if PARTMAN_MAJOR >= 5:
        extra = (
            f", p_time_encoder => 'public.{kind}_from_time',"
            f" p_time_decoder => 'public.{kind}_timestamp'"
        )
    kind_arg = "'native'" if PARTMAN_MAJOR < 5 else "'range'"
    with pytest.raises(psycopg.Error) as refused:
        server.sql(
            f"""SELECT partman.create_parent(p_parent_table => 'public.n_{kind}', p_control => 'id',
                    p_type => {kind_arg}, p_interval => '1 day'{extra})""",
            dbname=DB,
        )
    message = str(refused.value).splitlines()[0]
    figures(f"pg_partman {PARTMAN}, {kind}: {message}")
    assert "only supports partitioning of data types" in message, message


@pytest.mark.skipif(PARTMAN_MAJOR < 5, reason="pg_partman 4.7 has no time encoder")
def test_time_encoder_on_bigint_refused(server, figures):
    server.sql(
        "CREATE TABLE public.sf_time (id bigint NOT NULL) PARTITION BY RANGE (id)", dbname=DB
    )
    with pytest.raises(psycopg.Error) as refused:
        server.sql(
            """SELECT partman.create_parent(p_parent_table => 'public.sf_time', p_control => 'id',
                    p_interval => '1 day', p_time_encoder => 'public.snowflake_from_time',
                    p_time_decoder => 'public.snowflake_timestamp')""",
            dbname=DB,
        )
    message = str(refused.value).splitlines()[0]
    figures(f"pg_partman {PARTMAN}, snowflake with a time encoder: {message}")
    assert "can only be used with text/uuid" in message, message
