"""Leased generators (pg_flake.lease): window edges, sequence exhaustion,
renewal, expiry and byte-exactness with a scripted clock and a stand-in for
the SQL functions; then, against a server with pg_flake_lease
(``PG_FLAKE_TEST_DSN``), that the IDs decode in SQL to the lease's node and
process and to times inside its window."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import integer, micros, vectors

from pg_flake import Kuid96, Siq, Sno, siq_domain_hash, snowflake_parts
from pg_flake.lease import (
    DatabaseClock,
    Lease,
    LeasedGenerator,
    LeaseError,
    LeaseExpired,
    _format_for,
)

UTC = timezone.utc
MS = 1_000_000  # ns
S = 1_000_000_000
# 2025-01-01T00:00:00Z: on every format's unit boundary (sno's 4 ms from
# 2010, kuid96's seconds, siq's ticks, snowflake's ms).
T0 = 1_735_689_600 * S
DISCORD = 1_420_070_400_000


def at(ns: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=ns // 1000)


def ns_of(time: datetime) -> int:
    return (time - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1) * 1000


class ScriptedClock:
    """The monotonic clock: moves only when the generator sleeps or a test says so."""

    def __init__(self) -> None:
        self.now = 10 * S
        self.sleeps: list[int] = []

    def monotonic_ns(self) -> int:
        return self.now

    def sleep(self, seconds: float) -> None:
        ns = max(1, round(seconds * S))
        self.sleeps.append(ns)
        self.now += ns


class RenewFailed(Exception):
    def __init__(self, sqlstate: str | None):
        super().__init__(f"renewal failed ({sqlstate})")
        self.sqlstate = sqlstate


class FakeLeases:
    """pg_flake_lease / renew / release over the scripted clock; the server's
    time is ``server_offset`` + the monotonic clock."""

    def __init__(
        self,
        clock: ScriptedClock,
        fmt: str,
        node: int | None = None,
        process: int | None = None,
        not_before_in: int = 0,
        server_offset: int = T0 - 10 * S,
        epoch_ms: int | None = DISCORD,
        kuid_interval: int | None = 8,
    ):
        self.clock = clock
        self.fmt = fmt
        # Each format's default reserved node (lease spec, "Units per format").
        default_node = {"snowflake": 31, "kuid96": 4_294_967_040}.get(fmt, 255)
        self.node = default_node if node is None else node
        self.process = (0 if fmt == "kuid96" else 7) if process is None else process
        self.not_before_in = not_before_in
        self.offset = server_offset
        self.epoch_ms = epoch_ms if fmt == "snowflake" else None
        self.kuid_interval = kuid_interval if fmt == "kuid96" else None
        self.renew_error: Exception | None = None
        self.renewals: list[int] = []  # server times of the renewals
        self.released: list[tuple[int, datetime | None]] = []
        self.lease_row: Lease | None = None

    def server_ns(self) -> int:
        return self.clock.now + self.offset

    def _row(self, not_before: int, expires: int) -> Lease:
        return Lease(
            1,
            self.fmt,
            self.node,
            self.process,
            at(not_before),
            at(expires),
            at(self.server_ns()),
            self.epoch_ms,
            self.kuid_interval,
        )

    def lease(self, format: str, holder: str, ttl: float) -> Lease:
        not_before = self.server_ns() + self.not_before_in
        self.lease_row = self._row(not_before, not_before + int(ttl * S))
        return self.lease_row

    def renew(self, lease_id: int, ttl: float) -> Lease:
        self.renewals.append(self.server_ns())
        if self.renew_error is not None:
            raise self.renew_error
        assert self.lease_row is not None
        expires = max(ns_of(self.lease_row.expires), self.server_ns() + int(ttl * S))
        self.lease_row = self._row(ns_of(self.lease_row.not_before), expires)
        return self.lease_row

    def release(self, lease_id: int, last_used: datetime | None) -> bool:
        self.released.append((lease_id, last_used))
        return True


def take(source: FakeLeases, ttl: float = 30.0, **options: Any) -> LeasedGenerator[Any]:
    return LeasedGenerator.take(
        source,
        source.fmt,
        "test",
        ttl,
        monotonic_ns=source.clock.monotonic_ns,
        sleep=source.clock.sleep,
        **options,
    )


def window(gen: LeasedGenerator[Any]) -> tuple[int, int]:
    return ns_of(gen.lease.not_before), ns_of(gen.lease.expires)


# --- the clock -------------------------------------------------------------------------


def test_database_clock_follows_the_monotonic_clock_not_the_wall(monkeypatch):
    clock = ScriptedClock()
    db = DatabaseClock(at(T0), clock.monotonic_ns)
    monkeypatch.setattr("time.time", lambda: 0.0)
    monkeypatch.setattr("time.time_ns", lambda: 0)
    assert db.now_ns() == T0
    clock.now += 1234 * MS
    assert db.now_ns() == T0 + 1234 * MS
    db.sync(at(T0 + 5 * S))  # a renewal's server_time
    assert db.now_ns() == T0 + 5 * S
    clock.now += 1
    assert db.now_ns() == T0 + 5 * S + 1


# --- window edges ----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["sno", "snowflake", "kuid96", "siq"])
def test_waits_for_not_before_and_uses_only_whole_units(fmt):
    clock = ScriptedClock()
    # not_before 2.5 s + 1.7 µs ahead: inside a unit of every format.
    source = FakeLeases(clock, fmt, not_before_in=2_500_001_700)
    gen = take(source)
    not_before, _ = window(gen)
    first = gen.generate()
    assert clock.sleeps and clock.now + source.offset >= not_before
    fmt_ = gen._format
    unit = fmt_.unit_at(clock.now + source.offset)
    assert fmt_.start_ns(unit) >= not_before  # the whole unit lies inside the window
    assert fmt_.start_ns(unit - 1) < not_before  # and it is the first such unit
    assert first == fmt_.build(unit, 0, getattr(fmt_, "kind", ""))


@pytest.mark.parametrize("fmt", ["sno", "snowflake", "kuid96", "siq"])
def test_stops_at_the_end_of_the_window_when_renewal_fails(fmt):
    clock = ScriptedClock()
    source = FakeLeases(clock, fmt)
    gen = take(source, ttl=2.0)
    _, expires = window(gen)
    source.renew_error = RenewFailed(None)  # a transient failure: retried, never succeeds
    fmt_ = gen._format
    last = None
    count = 0
    with pytest.raises(LeaseExpired) as error:
        while True:
            gen.generate()
            count += 1
            last = gen._last_unit
            # Every unit used ends at or before expires.
            assert fmt_.start_ns(fmt_.next_unit(last)) <= expires
            clock.now += 97_000  # 97 µs between IDs
    assert isinstance(error.value.__cause__, RenewFailed)
    assert error.value.lease_id == 1
    # The window is used up to its end: the last unit used ends within one step
    # (or one unit, the longer) of expires.
    assert last is not None
    end = fmt_.start_ns(fmt_.next_unit(last))
    assert expires - end < max(97_000, end - fmt_.start_ns(last))
    assert count > 10_000
    # Retried at intervals, not once per ID; never after the window.
    assert 2 < len(source.renewals) < 200
    assert max(source.renewals) < expires
    with pytest.raises(LeaseExpired):
        gen.generate()  # and it stays expired
    assert gen.release() is True
    assert source.released == [(1, gen.last_used)]
    assert ns_of(gen.last_used) == fmt_.start_ns(last) // 1000 * 1000


def test_expired_lease_is_final_after_a_pause():
    clock = ScriptedClock()
    source = FakeLeases(clock, "sno")
    gen = take(source, ttl=5.0)
    gen.generate()
    clock.now += 6 * S  # paused (SIGSTOP) past expires
    source.renew_error = RenewFailed("55000")
    with pytest.raises(LeaseExpired) as error:
        gen.generate()
    assert error.value.__cause__ is source.renew_error
    assert len(source.renewals) == 1  # 55000 is final: no retry
    with pytest.raises(LeaseExpired):
        gen.generate()
    assert len(source.renewals) == 1


def test_a_final_renewal_error_still_uses_the_rest_of_the_window():
    clock = ScriptedClock()
    source = FakeLeases(clock, "snowflake")
    gen = take(source, ttl=10.0)
    _, expires = window(gen)
    clock.now += 5 * S  # renewal due (10 - 1 - 5 = 4 s in)
    source.renew_error = RenewFailed("55000")
    gen.generate()
    assert len(source.renewals) == 1
    clock.now = expires - source.offset - 2 * MS
    ids = [gen.generate(), gen.generate()]
    assert snowflake_parts(ids[0]).unix_micros * 1000 == expires - 2 * MS
    clock.now += MS
    gen.generate()  # the last millisecond: ends exactly at expires
    clock.now += MS
    with pytest.raises(LeaseExpired):
        gen.generate()
    assert len(source.renewals) == 1


# --- renewal ---------------------------------------------------------------------------


def test_renews_at_half_the_ttl_before_expires_minus_safety():
    clock = ScriptedClock()
    source = FakeLeases(clock, "sno")
    gen = take(source, ttl=30.0)
    not_before, expires = window(gen)
    due = expires - S - 15 * S  # safety 1 s (min(1 s, ttl/10)), then half the TTL
    clock.now = due - source.offset - 1
    gen.generate()
    assert source.renewals == []
    clock.now += 1
    gen.generate()
    assert source.renewals == [due]
    assert ns_of(gen.lease.expires) == due + 30 * S
    gen.generate()
    assert len(source.renewals) == 1  # not again until the next due time
    # Short TTL: safety is a tenth of it.
    clock2 = ScriptedClock()
    source2 = FakeLeases(clock2, "siq")
    gen2 = take(source2, ttl=2.0)
    _, expires2 = window(gen2)
    clock2.now = expires2 - source2.offset - 200 * MS - S
    gen2.generate()
    assert source2.renewals == [expires2 - 1200 * MS]


def test_renewal_failure_is_retried_and_recovers():
    clock = ScriptedClock()
    source = FakeLeases(clock, "kuid96")
    gen = take(source, ttl=4.0)
    _, expires = window(gen)
    clock.now = expires - source.offset - 2400 * MS  # due (4 - 0.4 - 2 = 1.6 s in)
    source.renew_error = RenewFailed("08006")
    gen.generate()
    gen.generate()
    assert len(source.renewals) == 1  # one try, then a pause
    assert gen.renew_error is source.renew_error
    clock.now += 100 * MS
    source.renew_error = None
    gen.generate()
    assert len(source.renewals) == 2 and gen.renew_error is None
    assert ns_of(gen.lease.expires) > expires
    clock.now = expires - source.offset + S  # past the first expires: still fine
    gen.generate()


def test_a_renewal_that_moves_the_clock_back_never_repeats_an_id():
    clock = ScriptedClock()
    source = FakeLeases(clock, "snowflake")
    gen = take(source, ttl=2.0)
    _, expires = window(gen)
    clock.now = expires - source.offset - 1200 * MS - 1  # just before due
    ids = {gen.generate() for _ in range(100)}
    source.offset -= 3 * MS  # the renewal's server_time reads 3 ms earlier
    clock.now += 1
    for _ in range(20_000):
        ids.add(gen.generate())
    assert len(ids) == 20_100
    assert len(source.renewals) == 1


# --- sequence exhaustion -----------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt,per_unit,options",
    [
        ("snowflake", 4096, {}),
        ("kuid96", 16384, {}),
        ("sno", 65536, {}),
        ("siq", 2048, {"kind": "user"}),
        ("siq", 8192, {"kind": "multi"}),
    ],
)
def test_a_used_up_unit_waits_for_the_next(fmt, per_unit, options):
    clock = ScriptedClock()
    source = FakeLeases(clock, fmt)
    gen = take(source, **options)
    first_unit = None
    values = []
    for _ in range(per_unit + 1):
        values.append(gen.generate())
        if first_unit is None:
            first_unit = gen._last_unit
    assert len(set(values)) == per_unit + 1
    assert gen._last_unit == gen._format.next_unit(first_unit)
    assert clock.sleeps  # waited for the next unit, did not run ahead of the clock
    assert clock.now + source.offset >= gen._format.start_ns(gen._last_unit)


def test_siq_serials_are_per_kind():
    clock = ScriptedClock()
    source = FakeLeases(clock, "siq", node=254, process=3)
    gen = take(source, domain="example.com")
    a = gen.generate()
    b = gen.generate("message")
    c = gen.generate()
    assert (a.kind, a.serial, b.kind, b.serial, c.serial) == ("user", 0, "message", 0, 1)
    assert a.shard == 3 and a.domain_hash >> 24 == 254
    assert a.domain_hash & 0xFFFFFF == siq_domain_hash("example.com") & 0xFFFFFF
    with pytest.raises(ValueError):
        gen.generate("nope")


def test_released_generator_refuses_and_reports_last_use():
    clock = ScriptedClock()
    source = FakeLeases(clock, "sno", node=255, process=9)
    gen = take(source)
    assert gen.last_used is None
    value = gen.generate()
    assert isinstance(value, Sno) and value.partition == 255 << 8 | 9
    assert gen.release() is True
    assert source.released == [(1, value.time)]
    with pytest.raises(LeaseError):
        gen.generate()
    assert gen.release() is False  # once


def test_kind_is_for_siq_only_and_formats_are_checked():
    clock = ScriptedClock()
    gen = take(FakeLeases(clock, "sno"))
    with pytest.raises(ValueError):
        gen.generate("user")
    with pytest.raises(ValueError, match="kuid96"):
        take(FakeLeases(clock, "kuid64"))
    with pytest.raises(LeaseError, match="epoch_ms"):
        take(FakeLeases(clock, "snowflake", epoch_ms=None))


# --- byte-exactness with the core: IDs for vector fields through the assembly path ------


def lease_for(fmt: str, node: int, process: int, **extra: Any) -> Lease:
    t = at(T0)
    return Lease(1, fmt, node, process, t, t, t, extra.get("epoch_ms"), extra.get("interval"))


def unix_ns(text: str) -> int:
    return micros(text) * 1000


def through_generator(fmt: str, lease: Lease, time_ns: int, sequence: int, **options: Any):
    """The ID a generator makes as its ``sequence``-th in the unit of ``time_ns``."""
    clock = ScriptedClock()
    source = FakeLeases(clock, fmt, lease.node, lease.process, server_offset=time_ns - clock.now)
    source.epoch_ms, source.kuid_interval = lease.epoch_ms, lease.kuid_interval
    gen = take(source, **options)
    value = None
    for _ in range(sequence + 1):
        value = gen.generate()
    assert gen._last_unit == gen._format.unit_at(time_ns)
    return value


@pytest.mark.parametrize("v", vectors("sno"))
def test_sno_vectors(v):
    parts = v.get("parts")
    if parts is None or parts["tick_tock"]:
        pytest.skip("no leased sno has tick-tock set")
    p = parts["partition"]
    fmt = _format_for(lease_for("sno", p >> 8, p & 255), {"meta": parts["meta"]})
    unit = fmt.unit_at(unix_ns(parts["time"]))
    value = fmt.build(unit, parts["sequence"], "")
    assert bytes(value).hex() == v["bytes_hex"]
    if "input_time" in v:
        assert fmt.unit_at(integer(v["unix_ns"])) == unit
    if parts["sequence"] <= 16 and unix_ns(parts["time"]) > 0:
        got = through_generator(
            "sno",
            lease_for("sno", p >> 8, p & 255),
            unix_ns(parts["time"]),
            parts["sequence"],
            meta=parts["meta"],
        )
        assert bytes(got).hex() == v["bytes_hex"]


@pytest.mark.parametrize("v", vectors("snowflake"))
def test_snowflake_vectors(v):
    parts = v.get("parts")
    if parts is None:
        pytest.skip("an error vector")
    lease = lease_for("snowflake", parts["worker"], parts["process"], epoch_ms=v["epoch_ms"])
    fmt = _format_for(lease, {})
    value = fmt.build(fmt.unit_at(unix_ns(parts["time"])), parts["sequence"], "")
    assert (
        value.to_bytes(8, "big").hex()
        == v["bytes_hex"]
        == integer(v["text"]).to_bytes(8, "big").hex()
    )
    if parts["sequence"] <= 16:
        got = through_generator("snowflake", lease, unix_ns(parts["time"]), parts["sequence"])
        assert got == value


@pytest.mark.parametrize("v", vectors("kuid96"))
def test_kuid96_vectors(v):
    parts = v["parts"]
    lease = lease_for("kuid96", parts["node"], 0, interval=v["interval"])
    fmt = _format_for(lease, {})
    unit = fmt.unit_at(unix_ns(parts["time"]))
    value = fmt.build(unit, parts["seq"], "")
    assert isinstance(value, Kuid96) and bytes(value).hex() == v["bytes_hex"]
    if "input_time" in v:
        assert fmt.unit_at(unix_ns(v["input_time"])) == unit
    if parts["seq"] <= 16:
        got = through_generator("kuid96", lease, unix_ns(parts["time"]), parts["seq"])
        assert bytes(got).hex() == v["bytes_hex"]


@pytest.mark.parametrize("v", vectors("siq"))
def test_siq_vectors(v):
    parts = v.get("parts")
    if parts is None or parts.get("kind") is None or "domain" not in v:
        pytest.skip("an error vector or one without a kind or domain")
    domain = v["domain"] if isinstance(v["domain"], str) else ""
    dh = parts["domain_hash"]
    if siq_domain_hash(domain) & 0xFFFFFF != dh & 0xFFFFFF:
        pytest.skip("the domain hash is not the domain's")
    lease = lease_for("siq", dh >> 24, parts["shard"])
    fmt = _format_for(lease, {"domain": domain, "kind": parts["kind"]})
    assert fmt.unit_at(fmt.start_ns(parts["ticks"])) == parts["ticks"]
    value = fmt.build(parts["ticks"], parts["serial"], parts["kind"])
    assert isinstance(value, Siq) and bytes(value).hex() == v["bytes_hex"]
    if parts["serial"] <= 16:
        got = through_generator(
            "siq",
            lease,
            fmt.start_ns(parts["ticks"]),
            parts["serial"],
            domain=domain,
            kind=parts["kind"],
        )
        assert bytes(got).hex() == v["bytes_hex"]


# --- against a server with pg_flake_lease (PG_FLAKE_TEST_DSN) ----------------------------

REPO = Path(__file__).resolve().parents[2]

# node, process and time of an ID, decoded in SQL, with the lease's epoch or interval.
DECODE = {
    "sno": "SELECT (p).partition >> 8, (p).partition & 255, (p).time"
    " FROM (SELECT sno_parts(x::sno) p FROM unnest(%s::text[]) x) s",
    "siq": "SELECT (p).domain_hash >> 24, (p).shard, (p).time"
    " FROM (SELECT siq_parts(x::siq) p FROM unnest(%s::text[]) x) s",
    "kuid96": "SELECT (p).node, 0, (p).time"
    " FROM (SELECT kuid96_parts(x::kuid96, %s) p FROM unnest(%s::text[]) x) s",
    "snowflake": "SELECT (p).worker, (p).process, (p).time"
    " FROM (SELECT snowflake_parts(x::bigint, %s) p FROM unnest(%s::text[]) x) s",
}
SQL_TYPE = {"sno": "sno", "siq": "siq", "kuid96": "kuid96", "snowflake": "bigint"}
# The same for a table's column id, with the server's own interval and epoch
# (which the lease rows carry).
COLUMNS = {
    "sno": "(sno_parts(id)).time, (sno_parts(id)).partition >> 8, (sno_parts(id)).partition & 255",
    "siq": "(siq_parts(id)).time, (siq_parts(id)).domain_hash >> 24, (siq_parts(id)).shard",
    "kuid96": "(kuid96_parts(id)).time, (kuid96_parts(id)).node, 0",
    "snowflake": "(snowflake_parts(id)).time, (snowflake_parts(id)).worker,"
    " (snowflake_parts(id)).process",
}


def decoded(conn: Any, fmt: str, lease: Lease, ids: list[Any]) -> list[tuple[int, int, datetime]]:
    extra = {"kuid96": [lease.kuid_interval], "snowflake": [lease.epoch_ms]}.get(fmt, [])
    return conn.execute(DECODE[fmt], [*extra, [str(i) for i in ids]]).fetchall()


@pytest.mark.parametrize("fmt", ["sno", "snowflake", "kuid96", "siq"])
def test_ids_decode_in_sql_to_the_lease(lease_dsn, fmt):
    import psycopg

    with psycopg.connect(lease_dsn, autocommit=True) as conn:
        gen = LeasedGenerator.take(conn, fmt, f"test_lease {fmt}", ttl=1.0)
        first = gen.lease
        ids = []
        end = time.monotonic() + 1.3  # past the renewal due at 0.4 s
        while time.monotonic() < end:
            ids.append(gen.generate())
            time.sleep(0.0005)
        lease = gen.lease
        assert lease.lease_id == first.lease_id and lease.expires > first.expires  # renewed
        assert len(set(ids)) == len(ids) > 500
        rows = decoded(conn, fmt, lease, ids)
        assert {(node, process) for node, process, _ in rows} == {(lease.node, lease.process)}
        times = [t for _, _, t in rows]
        assert lease.not_before <= min(times) and max(times) < lease.expires
        assert times == sorted(times)
        # As the types order them: the order made.
        if fmt != "snowflake":
            sorted_ids = conn.execute(
                f"SELECT array_agg(x::{fmt} ORDER BY x::{fmt})::text[] FROM unnest(%s::text[]) x",
                [[str(i) for i in ids]],
            ).fetchone()[0]
            assert sorted_ids == [str(i) for i in ids]
        assert gen.release() is True
        state, last_used = conn.execute(
            "SELECT state, last_used FROM pg_flake_leases WHERE lease_id = %s", [lease.lease_id]
        ).fetchone()
        assert state == "released" and last_used == gen.last_used


def test_a_released_units_successor_starts_after_the_last_use(lease_dsn):
    import psycopg

    with psycopg.connect(lease_dsn, autocommit=True) as conn:
        held = []
        try:
            gen = LeasedGenerator.sno(conn, "test_lease successor", ttl=60.0)
            held.append(gen)
            last = gen.generate()
            gen.release()
            # Take until we get the same unit back (never-leased units come first).
            for _ in range(300):
                nxt = LeasedGenerator.sno(conn, "test_lease successor", ttl=60.0)
                held.append(nxt)
                if (nxt.lease.node, nxt.lease.process) == (gen.lease.node, gen.lease.process):
                    break
            else:
                pytest.skip("the same unit did not come back")
            assert nxt.lease.not_before >= gen.last_used
            assert nxt.generate() > last
        finally:
            for g in held:
                g.release()


def test_writer_runs_cleanly(lease_dsn, tmp_path):
    import psycopg

    formats = ["sno", "sno", "snowflake", "kuid96", "siq"]
    with psycopg.connect(lease_dsn, autocommit=True) as conn:
        for fmt in set(formats):
            conn.execute(f"DROP TABLE IF EXISTS test_lease_writer_{fmt}")
            conn.execute(
                f"CREATE TABLE test_lease_writer_{fmt}"
                f" (id {SQL_TYPE[fmt]} PRIMARY KEY, lease_id bigint NOT NULL)"
            )
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(REPO / "tests" / "servers" / "lease_writer.py"),
                *("--dsn", lease_dsn, "--format", fmt, "--holder", f"writer-{n}"),
                *("--ttl-ms", "1000", "--table", f"test_lease_writer_{fmt}", "--seconds", "5"),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n, fmt in enumerate(formats)
    ]
    outputs = [p.communicate(timeout=60) for p in procs]
    leases: dict[str, set[int]] = {}
    for fmt, p, (out, err) in zip(formats, procs, outputs):
        assert p.returncode == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        assert len(lines) == 1 and "expired" not in err, (out, err)
        leases.setdefault(fmt, set()).update(line["lease_id"] for line in lines)
    with psycopg.connect(lease_dsn, autocommit=True) as conn:
        for fmt, ids in leases.items():
            table = f"test_lease_writer_{fmt}"
            count, outside, unknown = conn.execute(
                f"SELECT count(*), count(*) FILTER (WHERE l.lease_id IS NOT NULL AND NOT"
                f" (t >= l.not_before AND t < l.expires AND n = l.node AND pr = l.process)),"
                f" count(*) FILTER (WHERE l.lease_id IS NULL)"
                f" FROM (SELECT lease_id, {COLUMNS[fmt]} FROM {table}) x (lease_id, t, n, pr)"
                f" LEFT JOIN pg_flake_leases l USING (lease_id)"
            ).fetchone()
            assert (count > 100, outside, unknown) == (True, 0, 0), (fmt, count)
            assert set(r[0] for r in conn.execute(f"SELECT DISTINCT lease_id FROM {table}")) == ids
            conn.execute(f"DROP TABLE {table}")
