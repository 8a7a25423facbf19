"""Partitions by time under the writers (docs/sql-reference.md "Partitions by
time"; issue 49): the line's primary keeps ``p_sno``, a table partitioned by
minutes of sno IDs that the writers fill by ``DEFAULT``, premade ten minutes
ahead of its clock and dropped one minute behind it — the nightly job of
the documentation, every few seconds, while servers are killed, clocks
stepped and standbys promoted.

Its own check, in the same session and at the same instant as each drop:
the rows whose IDs are at or after the retention bound (``id >=
sno_from_time(bound)``) are as many after the drop as before (writers only
add rows meanwhile): a row younger than the bound that a drop took is a
finding (``partition-loss``). Every refusal but the ones a maintenance job
must expect — the server went away or became read-only (08*, 57P0*, 25006),
the statement timed out (57014) — is a finding too (``partition-refusal``):
the documentation promises none other to a caller that owns the table."""

from __future__ import annotations

import psycopg
from registry import Op, register

TABLE = "p_sno"
# Minutes: a partition per minute, premade this far ahead (beyond
# pg_flake.max_clock_lag, so IDs in logical time have one too), dropped
# this far behind (short: a one-minute run drops partitions too).
AHEAD, STEP, BEHIND = "10 minutes", "1 minute", "1 minute"
EXPECTED = ("25006", "57014")


def create_table(conn) -> None:
    """The partitioned table and its first partitions (runner.make_tables)."""
    conn.execute(
        f"CREATE TABLE {TABLE} (id sno PRIMARY KEY DEFAULT sno_generate(),"
        " origin text NOT NULL, ord int NOT NULL, at float8) PARTITION BY RANGE (id)"
    )
    premake(conn)


def premake(conn) -> int:
    """Partitions from the minute before this one to AHEAD, on the minute
    grid (every call makes the same bounds: none overlaps another)."""
    return conn.execute(
        f"SELECT count(*) FROM pg_flake_create_partitions('{TABLE}', 'sno',"
        f" date_trunc('minute', now()) - interval '{STEP}', now() + interval '{AHEAD}',"
        f" '{STEP}')"
    ).fetchone()[0]


@register
class Partitions(Op):
    name = "partitions"
    base_weight = 2.0

    def plan(self, world, rng):
        primary = world.cluster.primary
        if primary is None or not primary.up:
            return None
        return {"server": primary.name}

    def run(self, world, plan):
        slot = world.slot(plan["server"])
        if slot.role != "primary" or not slot.up:
            return f"skipped: {slot.label} is no longer the primary"
        try:
            with slot.connect(statement_ms=20000) as conn:
                made = premake(conn)
                bound = conn.execute(f"SELECT now() - interval '{BEHIND}'").fetchone()[0]
                young = f"SELECT count(*) FROM {TABLE} WHERE id >= sno_from_time(%s)"
                before = conn.execute(young, (bound,)).fetchone()[0]
                dropped = conn.execute(
                    f"SELECT count(*) FROM pg_flake_drop_partitions('{TABLE}', 'sno', %s)",
                    (bound,),
                ).fetchone()[0]
                after = conn.execute(young, (bound,)).fetchone()[0]
        except psycopg.Error as e:
            code = getattr(e, "sqlstate", None)
            if code is None or code.startswith("08") or code.startswith("57P0"):
                return f"{slot.label}: connection lost ({code})"
            if code in EXPECTED:
                return f"{slot.label}: refused {code}"
            world.history.find("partition-refusal", f"{slot.label}: {code} {e}")
            return f"{slot.label}: refused {code} (a finding)"
        if after < before:
            world.history.find(
                "partition-loss",
                f"{slot.label}: {before - after} rows at or after the retention bound {bound}"
                f" went with the {dropped} partitions dropped",
            )
        world.history.note("partitions premade", made)
        world.history.note("partitions dropped", dropped)
        return f"{slot.label}: {made} made, {dropped} dropped, {after} rows kept after {bound}"
