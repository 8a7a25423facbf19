"""One leased generator shared by threads, asyncio tasks and forked children
(issue 36, item 1), against a server with pg_flake_lease (``PG_FLAKE_TEST_DSN``).

Before the generator took a lock, 8 threads × 20 000 IDs from one sno
generator gave thousands of duplicates; a generator taken before
``os.fork()`` and used by the parent and 3 children gave tens of thousands
(every child counted in its parent's unit). Here every ID is collected and
counted: 0 duplicates, every ID in its own lease's unit and window, and no
child ever issues an ID under its parent's unit: a generator that can
connect again (made from a conninfo or a connection factory) takes a lease
of its own in the child; one made from a connection refuses there
(``LeaseForked``) and leaves the parent's lease alone."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
import traceback
from dataclasses import astuple
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

from pg_flake import Kuid96, Siq, Sno, snowflake_parts
from pg_flake.lease import FORMATS, Lease, LeasedGenerator, LeaseError

THREADS = 8
PER_WORKER = 20_000
CHILDREN = 3
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def parse(fmt: str, text: str) -> Any:
    return {"sno": Sno, "siq": Siq, "kuid96": Kuid96, "snowflake": int}[fmt](text)


def unit_and_micros(fmt: str, lease: Lease, value: Any) -> tuple[tuple[int, int], int]:
    """The (node, process) an ID carries and the time it decodes to (µs since 1970)."""
    if fmt == "sno":
        return (value.partition >> 8, value.partition & 255), value.unix_micros
    if fmt == "siq":
        return (value.domain_hash >> 24, value.shard), value.unix_micros
    if fmt == "kuid96":
        parts = value.parts(lease.kuid_interval)
        return (parts.node, 0), parts.unix_micros
    parts = snowflake_parts(value, lease.epoch_ms)
    return (parts.worker, parts.process), parts.unix_micros


def micros(t: datetime) -> int:
    return (t - EPOCH) // timedelta(microseconds=1)


def check_ids(fmt: str, lease: Lease, ids: list[Any]) -> None:
    """Every ID carries the lease's unit and a time inside its window."""
    low, high = micros(lease.not_before), micros(lease.expires)
    outside = [
        v
        for v in ids
        if (u := unit_and_micros(fmt, lease, v))[0] != (lease.node, lease.process)
        or not low <= u[1] < high
    ]
    assert outside == [], (fmt, lease, outside[:5])


def duplicates(ids: list[Any]) -> int:
    return len(ids) - len(set(ids))


def fast_switching(run: Callable[[], Any]) -> Any:
    """Runs ``run`` with the interpreter switching threads every microsecond
    (instead of every 5 ms), so that threads interleave inside ``generate``."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        return run()
    finally:
        sys.setswitchinterval(interval)


# --- threads --------------------------------------------------------------------------


class SlowRenewals:
    """pg_flake_lease / renew over the real monotonic clock, each renewal a
    10 ms round trip, counting the renewals that overlap (there must be none)."""

    def __init__(self) -> None:
        self.offset = 1_735_689_600 * 10**9 - time.monotonic_ns()  # server: 2025-01-01
        self.lock = threading.Lock()
        self.in_flight = 0
        self.overlaps = 0
        self.renewals = 0
        self.not_before: datetime | None = None

    def _row(self, ttl: float) -> Lease:
        now = EPOCH + timedelta(microseconds=(time.monotonic_ns() + self.offset) // 1000)
        if self.not_before is None:
            self.not_before = now
        expires = now + timedelta(seconds=ttl)
        return Lease(1, "sno", 255, 7, self.not_before, expires, now, None, None)

    def lease(self, format: str, holder: str, ttl: float) -> Lease:
        return self._row(ttl)

    def renew(self, lease_id: int, ttl: float) -> Lease:
        with self.lock:
            self.in_flight += 1
            self.overlaps += self.in_flight > 1
            self.renewals += 1
        time.sleep(0.01)
        with self.lock:
            self.in_flight -= 1
        return self._row(ttl)

    def release(self, lease_id: int, last_used: datetime | None) -> bool:
        return True


def test_one_thread_at_a_time_renews_while_the_others_go_on():
    """No database: a 0.2 s TTL (renewal due every ~0.08 s), renewals that
    take 10 ms, 8 threads × 20 000 IDs."""
    source = SlowRenewals()
    gen = LeasedGenerator.take(source, "sno", "threads", ttl=0.2)
    results: list[list[Any]] = [[] for _ in range(THREADS)]

    def work(n: int) -> None:
        results[n] = [gen.generate() for _ in range(PER_WORKER)]

    def run() -> float:
        threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
        began = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.monotonic() - began

    elapsed = fast_switching(run)
    ids = [v for out in results for v in out]
    assert len(ids) == THREADS * PER_WORKER and duplicates(ids) == 0
    assert source.overlaps == 0, source.overlaps
    if elapsed > 0.5:
        assert source.renewals >= 2, (elapsed, source.renewals)
    check_ids("sno", gen.lease, ids)


@pytest.mark.parametrize("fmt", FORMATS)
def test_threads_sharing_one_generator_never_duplicate(lease_dsn, fmt):
    import psycopg

    with psycopg.connect(lease_dsn, autocommit=True) as conn:
        # A 10 s TTL: renewals (due every ~4 s) happen in longer runs; the
        # renewal's round trip competes with 8 busy threads for the GIL, and
        # a 3 s TTL ended before it completed on a machine at load 14.
        gen = LeasedGenerator.take(conn, fmt, f"threads {fmt}", ttl=10.0)
        first = gen.lease
        results: list[list[Any]] = [[] for _ in range(THREADS)]
        barrier = threading.Barrier(THREADS)

        def work(n: int) -> None:
            barrier.wait()
            out = results[n]
            for _ in range(PER_WORKER):
                out.append(gen.generate())

        def run() -> float:
            threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
            began = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            return time.monotonic() - began

        elapsed = fast_switching(run)
        # Released first: the checks below may outlast the lease's TTL.
        assert gen.release() is True
        ids = [v for out in results for v in out]
        assert len(ids) == THREADS * PER_WORKER
        print(f"{fmt}: {duplicates(ids)} duplicates of {len(ids)} in {elapsed:.2f} s")
        assert duplicates(ids) == 0, fmt
        lease = gen.lease
        assert lease.lease_id == first.lease_id
        if elapsed > 5.0:  # past the first renewal's due time
            assert lease.expires > first.expires, "no renewal while the threads ran"
        check_ids(fmt, lease, ids)


# --- asyncio tasks ----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_asyncio_tasks_sharing_one_generator_never_duplicate(lease_dsn, fmt):
    """Tasks on the loop and tasks that generate in worker threads
    (``asyncio.to_thread``), all with one generator."""
    import psycopg

    with psycopg.connect(lease_dsn, autocommit=True) as conn:
        gen = LeasedGenerator.take(conn, fmt, f"asyncio {fmt}", ttl=3.0)

        async def on_the_loop() -> list[Any]:
            out = []
            for n in range(PER_WORKER):
                out.append(gen.generate())
                if n % 10 == 0:
                    await asyncio.sleep(0)
            return out

        def batch() -> list[Any]:
            return [gen.generate() for _ in range(500)]

        async def in_threads() -> list[Any]:
            out: list[Any] = []
            while len(out) < PER_WORKER:
                out += await asyncio.to_thread(batch)
            return out

        async def main() -> list[list[Any]]:
            tasks = [on_the_loop() for _ in range(THREADS // 2)]
            tasks += [in_threads() for _ in range(THREADS // 2)]
            return await asyncio.gather(*tasks)

        results = fast_switching(lambda: asyncio.run(main()))
        # Released first: the checks below may outlast the lease's TTL.
        assert gen.release() is True
        ids = [v for out in results for v in out]
        assert len(ids) == THREADS * PER_WORKER
        print(f"{fmt}: {duplicates(ids)} duplicates of {len(ids)}")
        assert duplicates(ids) == 0, fmt
        check_ids(fmt, gen.lease, ids)


# --- fork -------------------------------------------------------------------------------


def lease_json(lease: Lease) -> list[Any]:
    return [v.isoformat() if isinstance(v, datetime) else v for v in astuple(lease)]


def lease_of(row: list[Any]) -> Lease:
    return Lease(*(datetime.fromisoformat(v) if n in (4, 5, 6) else v for n, v in enumerate(row)))


def libc_fork() -> int:
    """fork() as a C program calls it: Python's at-fork hooks do not run in
    the child (uWSGI forks so unless told py-call-osafterfork)."""
    import ctypes

    return ctypes.CDLL(None).fork()


def in_children(
    body: Callable[[int], dict[str, Any]], out: Path, fork: Callable[[], int] = os.fork
) -> list[int]:
    """Forks CHILDREN children running ``body(n)``, each writing its result
    (or its traceback) to ``out``; the caller goes on meanwhile."""
    pids = []
    for n in range(CHILDREN):
        pid = fork()
        if pid == 0:  # the child: never returns into pytest
            code = 1
            try:
                result = body(n)
                (out / f"child-{n}.json").write_text(json.dumps(result))
                code = 0
            except BaseException:
                (out / f"child-{n}.err").write_text(traceback.format_exc())
            finally:
                os._exit(code)
        pids.append(pid)
    return pids


def reap(pids: list[int], out: Path) -> list[dict[str, Any]]:
    results = []
    for n, pid in enumerate(pids):
        _, status = os.waitpid(pid, 0)
        err = out / f"child-{n}.err"
        assert os.waitstatus_to_exitcode(status) == 0, err.read_text() if err.exists() else status
        results.append(json.loads((out / f"child-{n}.json").read_text()))
    return results


FORKS = [pytest.param(f, os.fork, id=f) for f in FORMATS]
# A fork that Python is not told of: seen by the process id alone.
FORKS.append(pytest.param("sno", libc_fork, id="sno-libc-fork"))


@pytest.mark.parametrize("fmt,fork", FORKS)
def test_a_generator_inherited_across_fork_leases_anew_in_each_child(
    lease_dsn, fmt, fork, tmp_path
):
    """Made from a conninfo, the generator can connect again: each child takes
    its own lease on first use, the parent goes on with its own."""
    import psycopg

    gen = LeasedGenerator.take(lease_dsn, fmt, f"fork {fmt}", ttl=30.0)
    parent_lease = gen.lease
    before = [gen.generate() for _ in range(100)]  # used before the fork

    def child(n: int) -> dict[str, Any]:
        ids = [gen.generate() for _ in range(PER_WORKER)]
        lease = gen.lease
        assert gen.release() is True  # the child's own lease
        return {"lease": lease_json(lease), "ids": [str(v) for v in ids]}

    pids = in_children(child, tmp_path, fork)
    parent_ids = before + [gen.generate() for _ in range(PER_WORKER)]
    children = reap(pids, tmp_path)
    parent_ids += [gen.generate() for _ in range(100)]  # and after the children ended
    assert gen.lease.lease_id == parent_lease.lease_id
    check_ids(fmt, gen.lease, parent_ids)
    assert gen.release() is True

    ids = [str(v) for v in parent_ids]
    units = {(parent_lease.node, parent_lease.process)}
    with psycopg.connect(lease_dsn, autocommit=True) as conn:
        for result in children:
            lease = lease_of(result["lease"])
            assert lease.lease_id != parent_lease.lease_id
            # A lease the database granted, with that unit and window.
            row = conn.execute(
                "SELECT format, node, process, not_before, expires, state FROM pg_flake_leases"
                " WHERE lease_id = %s",
                [lease.lease_id],
            ).fetchone()
            assert row == (
                fmt,
                lease.node,
                lease.process,
                lease.not_before,
                lease.expires,
                "released",
            )
            # Leases held at once have distinct units: none is the parent's.
            assert (lease.node, lease.process) not in units, (fmt, lease, units)
            units.add((lease.node, lease.process))
            check_ids(fmt, lease, [parse(fmt, t) for t in result["ids"]])
            ids += result["ids"]
    assert len(ids) == (CHILDREN + 1) * PER_WORKER + 200
    print(f"{fmt}: {duplicates(ids)} duplicates of {len(ids)}; units {sorted(units)}")
    assert duplicates(ids) == 0, fmt


@pytest.mark.parametrize("fork", [os.fork, libc_fork], ids=["os.fork", "libc-fork"])
def test_a_generator_on_a_connection_refuses_in_a_child(lease_dsn, fork, tmp_path):
    """Made from a connection (which a child must not use), the generator
    refuses in a child, and its release there leaves the parent's lease held."""
    import psycopg

    from pg_flake.lease import LeaseForked

    with psycopg.connect(lease_dsn, autocommit=True) as conn:
        gen = LeasedGenerator.sno(conn, "fork refused", ttl=30.0)
        lease = gen.lease
        gen.generate()

        def child(n: int) -> dict[str, Any]:
            refusals = []
            for _ in range(2):  # and again: it stays refused
                try:
                    gen.generate()
                except LeaseForked as error:
                    assert isinstance(error, LeaseError)
                    refusals.append(str(error))
            return {"refusals": refusals, "released": gen.release()}

        pids = in_children(child, tmp_path, fork)
        ids = [gen.generate() for _ in range(PER_WORKER)]
        children = reap(pids, tmp_path)
        ids += [gen.generate() for _ in range(100)]
        for result in children:
            assert len(result["refusals"]) == 2, result
            assert (
                "fork" in result["refusals"][0]
                and f"lease {lease.lease_id}" in (result["refusals"][0])
            ), result
            assert result["released"] is False
        state = conn.execute(
            "SELECT state FROM pg_flake_leases WHERE lease_id = %s", [lease.lease_id]
        ).fetchone()[0]
        assert state == "held"
        assert duplicates(ids) == 0
        check_ids("sno", gen.lease, ids)
        assert gen.release() is True
