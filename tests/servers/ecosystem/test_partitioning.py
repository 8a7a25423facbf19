"""Declarative partitioning on an ID column (docs/operations.md
"Partitioning by time"; issue 40), on one server, every version.

- **Range partitions by time**, for every format whose IDs sort by time:
  ``pg_flake_create_partitions`` makes a day's partition for four days
  (again: nothing more), each bounded by ``<format>_from_time`` of its
  midnights; IDs of those days (generated now, and made from times of the
  other days) land in the partition of their decoded time; ``WHERE id >=
  <format>_from_time(…)`` and a ``[from, to)`` range prune to the partitions
  of those times in the plan (plan-time for the IMMUTABLE ``_from_time``,
  executor start-up for the STABLE ones of snowflake and kuid96), while
  ``WHERE <format>_timestamp(id) >= …`` prunes nothing (the partition key is
  the ID, not its time: write the ID range); ``pg_flake_drop_partitions``
  drops exactly the days before a time. A step below a day names the
  partitions with the time too, and the refusals have their SQLSTATEs.
- **Hash partitions** on every native type: 2000 generated IDs spread over
  four partitions, ``WHERE id = …`` prunes to the one holding it, and a
  fixed value of each type lands in the same partition on every version
  (the hash is PostgreSQL's ``hash_bytes`` over the value's bytes).
"""

from __future__ import annotations

import datetime

import pytest
from components import DB, NATIVE_TYPES, TIME_FORMATS, flake_server, plan, scanned

UTC = datetime.timezone.utc
DAY = datetime.timedelta(days=1)


@pytest.fixture(scope="module")
def server(module_servers):
    return flake_server(module_servers, "partitions")


def today() -> datetime.datetime:
    return datetime.datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def part_name(table: str, start: datetime.datetime) -> str:
    return f"{table}_p{start:%Y%m%d}"


@pytest.mark.parametrize("fmt", TIME_FORMATS)
def test_range_partitions_by_time(server, fmt, figures):
    kind, generate, decode = TIME_FORMATS[fmt]
    table = f"ev_{fmt}"
    first = today() - 2 * DAY
    days = [first + i * DAY for i in range(4)]
    server.sql(
        f"CREATE TABLE {table} (id {kind} NOT NULL, note text) PARTITION BY RANGE (id)", dbname=DB
    )
    made = server.sql(
        "SELECT partition::text, partition_from, partition_to"
        " FROM pg_flake_create_partitions(%s, %s, %s, %s, '1 day')",
        (table, fmt, first, first + 4 * DAY),
        dbname=DB,
    )
    assert [row[0] for row in made] == [part_name(table, d) for d in days], made
    assert [(row[1], row[2]) for row in made] == [(d, d + DAY) for d in days]
    again = server.value(
        "SELECT count(*) FROM pg_flake_create_partitions(%s, %s, %s, %s, '1 day')",
        (table, fmt, first, first + 4 * DAY),
        dbname=DB,
    )
    assert again == 0, "a second call makes nothing (the partitions are there)"

    # IDs of every day: made from a time within it, and generated now (today).
    server.sql(
        f"""INSERT INTO {table}
            SELECT {fmt}_from_time(%s::timestamptz + d * interval '1 day' + s * interval '1 min'),
                   'made'
            FROM generate_series(0, 3) d, generate_series(1, 50) s""",
        (first,),
        dbname=DB,
    )
    server.sql(
        f"INSERT INTO {table} SELECT {generate}, 'generated' FROM generate_series(1, 200)",
        dbname=DB,
    )
    rows = server.sql(
        f"SELECT tableoid::regclass::text, {decode}(id), note FROM {table}", dbname=DB
    )
    assert len(rows) == 400
    ranges = {name: (start, end) for name, start, end in made}
    misplaced = [r for r in rows if not ranges[r[0]][0] <= r[1] < ranges[r[0]][1]]
    assert misplaced == [], f"every ID in the partition of its time: {misplaced[:5]}"

    # Pruning: the ID range of a time range scans only its partitions.
    later = plan(server, f"SELECT * FROM {table} WHERE id >= {fmt}_from_time(%s)", (days[2],))
    assert scanned(later, f"{table}_p") == {part_name(table, d) for d in days[2:]}, later
    one_day = plan(
        server,
        f"SELECT * FROM {table} WHERE id >= {fmt}_from_time(%s) AND id < {fmt}_from_time(%s)",
        (days[1], days[2]),
    )
    assert scanned(one_day, f"{table}_p") == {part_name(table, days[1])}, one_day
    by_time = plan(server, f"SELECT * FROM {table} WHERE {decode}(id) >= %s", (days[2],))
    assert scanned(by_time, f"{table}_p") == {part_name(table, d) for d in days}, by_time
    if fmt in ("sno", "snowflake"):
        figures(f"== {fmt}: WHERE id >= {fmt}_from_time('{days[2]:%Y-%m-%d}')")
        for line in later.splitlines():
            figures(line)
        figures(f"== {fmt}: WHERE {decode}(id) >= '{days[2]:%Y-%m-%d}' (no pruning)")
        for line in by_time.splitlines():
            figures(line)

    # Retention: the days wholly before a time go, with their rows.
    dropped = server.sql(
        "SELECT partition, partition_from, partition_to"
        " FROM pg_flake_drop_partitions(%s, %s, %s) ORDER BY partition_from",
        (table, fmt, days[2]),
        dbname=DB,
    )
    assert dropped == [(part_name(table, d), d, d + DAY) for d in days[:2]], dropped
    left = server.value(f"SELECT count(*) FROM {table}", dbname=DB)
    assert left == 300, "the rows of the two days kept (100 made, 200 generated)"
    server.sql(f"DROP TABLE {table}", dbname=DB)


def test_partitions_below_a_day(server):
    start = today() + datetime.timedelta(hours=6)
    server.sql("CREATE TABLE ev_hours (id sno NOT NULL) PARTITION BY RANGE (id)", dbname=DB)
    made = server.sql(
        "SELECT partition::text"
        " FROM pg_flake_create_partitions('ev_hours', 'sno', %s, %s, '6 hours')",
        (start, start + 2 * DAY),
        dbname=DB,
    )
    assert [row[0] for row in made] == [
        f"ev_hours_p{start + i * datetime.timedelta(hours=6):%Y%m%d_%H%M%S}" for i in range(8)
    ]
    # A partition made by hand with the same bounds is kept; one that
    # overlaps otherwise is CREATE TABLE's error.
    low, high = server.sql(
        "SELECT sno_from_time(%s)::text, sno_from_time(%s)::text",
        (start + 2 * DAY, start + 3 * DAY),
        dbname=DB,
    )[0]
    server.sql(
        f"CREATE TABLE ev_by_hand PARTITION OF ev_hours FOR VALUES FROM ('{low}') TO ('{high}')",
        dbname=DB,
    )
    made = server.sql(
        "SELECT partition::text"
        " FROM pg_flake_create_partitions('ev_hours', 'sno', %s, %s, '1 day')",
        (start + 2 * DAY, start + 3 * DAY),
        dbname=DB,
    )
    assert made == []
    with pytest.raises(Exception) as overlap:
        server.sql(
            "SELECT pg_flake_create_partitions('ev_hours', 'sno', %s, %s, '1 day')",
            (start + datetime.timedelta(hours=13), start + DAY),
            dbname=DB,
        )
    assert overlap.value.sqlstate == "42P17", overlap.value


@pytest.mark.parametrize(
    "call, sqlstate",
    [
        ("create_partitions('ev_wrong', 'siq', 'today', 'tomorrow', '1 day')", "42804"),
        ("create_partitions('ev_plain', 'sno', 'today', 'tomorrow', '1 day')", "42809"),
        ("create_partitions('ev_wrong', 'ulid', 'today', 'tomorrow', '1 day')", "22023"),
        ("create_partitions('ev_wrong', 'sno', 'today', 'tomorrow', '1 ms')", "22023"),
        ("create_partitions('ev_wrong', 'sno', 'today', '2030-01-01', '1 hour')", "54000"),
        ("drop_partitions('ev_plain', 'sno', now())", "42809"),
    ],
)
def test_refusals(server, call, sqlstate):
    server.sql(
        "CREATE TABLE IF NOT EXISTS ev_wrong (id sno NOT NULL) PARTITION BY RANGE (id)", dbname=DB
    )
    server.sql("CREATE TABLE IF NOT EXISTS ev_plain (id sno NOT NULL)", dbname=DB)
    with pytest.raises(Exception) as refused:
        server.sql(f"SELECT * FROM pg_flake_{call}", dbname=DB)
    assert getattr(refused.value, "sqlstate", None) == sqlstate, refused.value
    assert (
        server.value(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'ev_wrong'::regclass", dbname=DB
        )
        == 0
    )


@pytest.mark.parametrize("kind", NATIVE_TYPES)
def test_hash_partitions(server, kind, figures):
    generate = TIME_FORMATS[kind][1]
    table = f"h_{kind}"
    server.sql(f"CREATE TABLE {table} (id {kind} PRIMARY KEY) PARTITION BY HASH (id)", dbname=DB)
    for remainder in range(4):
        server.sql(
            f"CREATE TABLE {table}_{remainder} PARTITION OF {table}"
            f" FOR VALUES WITH (MODULUS 4, REMAINDER {remainder})",
            dbname=DB,
        )
    server.sql(f"INSERT INTO {table} SELECT {generate} FROM generate_series(1, 2000)", dbname=DB)
    spread = dict(
        server.sql(f"SELECT tableoid::regclass::text, count(*) FROM {table} GROUP BY 1", dbname=DB)
    )
    figures(f"{kind}: 2000 IDs over 4 hash partitions: {dict(sorted(spread.items()))}")
    assert sorted(spread) == [f"{table}_{r}" for r in range(4)], spread
    assert all(300 <= n <= 700 for n in spread.values()), f"an even spread: {spread}"
    held, where = server.sql(
        f"SELECT id::text, tableoid::regclass::text FROM {table} ORDER BY id LIMIT 1", dbname=DB
    )[0]
    lookup = plan(server, f"SELECT * FROM {table} WHERE id = %s::{kind}", (held,))
    assert scanned(lookup, f"{table}_") == {where}, lookup
    server.sql(f"DROP TABLE {table}", dbname=DB)
