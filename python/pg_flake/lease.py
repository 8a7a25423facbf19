"""Leased generators: IDs made in the application, coordinated by the database.

``pg_flake_lease(format, holder, ttl)`` hands an application a *unit* (a node
field value and, where the format has one, a process field value, from the
range ``pg_flake.lease_nodes`` reserves) and a time window
``[not_before, expires)``. Successive holders of one unit get disjoint
windows, so IDs whose time lies inside the holder's window never collide with
another holder's or with a server's (docs/applications.md, "Generating IDs in your
application").

A :class:`LeasedGenerator` keeps that promise on the application side:

- its time is the database's: ``server_time`` of the last lease or renewal
  advanced by ``time.monotonic_ns()``, never the wall clock, so a wrong or
  stepped application clock cannot move IDs out of the window;
- it uses a time unit only when the whole unit lies inside the window, waits
  for ``not_before``, and waits for the next unit when a unit's sequence is
  used up;
- it renews ahead of expiry; when renewing fails it goes on generating while
  units fit before ``expires`` and then raises :class:`LeaseExpired` — never an
  ID outside the window. The application takes a new lease then (a new unit,
  or the same one in a later window);
- one generator may be shared by threads and asyncio tasks: taking the next
  (unit, sequence) is one critical section under a lock, and one thread at a
  time renews, outside the lock, while the others go on inside the window;
- a unit is one process's: a generator inherited across ``os.fork()`` never
  makes an ID under its parent's lease. In the child it takes a lease of its
  own on first use when it can connect again (it was made from a conninfo or
  a connection factory), and otherwise raises :class:`LeaseForked`.

The IDs are the package's values: :class:`~pg_flake.Sno`,
:class:`~pg_flake.Siq`, :class:`~pg_flake.Kuid96`, and ``int`` for Snowflake,
built with the classes' own ``from_parts``.

The database needs the extension's 0.3.0 or later, where ``pg_flake_lease``,
``pg_flake_renew`` and ``pg_flake_release`` came (docs/operations.md
"Versions"); from 0.4.0 on a lease is its holder role's and a grant waits for
the synchronous standbys. The package's own version (``pg_flake.__version__``)
is the release it ships with, not that minimum.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from datetime import datetime
from typing import Any, Callable, Generic, Union

from ._base import datetime_of, unix_micros_of
from ._lease_formats import T, _check_format, _Format, _format_for, _SiqFormat
from ._lease_source import (
    _NS_PER_S,
    FORMATS,
    DatabaseClock,
    Lease,
    LeaseError,
    LeaseExpired,
    LeaseForked,
    LeaseSource,
    PsycopgLeases,
)
from .kuid import Kuid96
from .siq import Siq
from .sno import Sno

__all__ = [
    "FORMATS",
    "DatabaseClock",
    "Lease",
    "LeaseError",
    "LeaseExpired",
    "LeaseForked",
    "LeaseSource",
    "LeasedGenerator",
    "LeasedId",
    "PsycopgLeases",
]

# Defined beside this module, public here (and named so in tracebacks).
for _public in (DatabaseClock, Lease, LeaseError, LeaseExpired, LeaseForked, PsycopgLeases):
    _public.__module__ = __name__

# --- the generator ---------------------------------------------------------------------


def _source_of(conn: Any) -> LeaseSource:
    """A LeaseSource, a conninfo string, a function returning a new
    connection, or a psycopg 3 connection."""
    if hasattr(conn, "renew"):
        return conn  # type: ignore[no-any-return]
    if isinstance(conn, str):
        return PsycopgLeases.from_conninfo(conn)
    if callable(conn):
        return PsycopgLeases(connect=conn)
    return PsycopgLeases(conn)


# Which process a lease belongs to is checked on every ID by comparing
# process ids: os.getpid() is a system call (~0.1 µs), but the at-fork hooks
# below do not run where a program forks without telling Python (uWSGI by
# default: neither py-call-osafterfork nor py-call-uwsgi-fork-hooks), and a
# missed fork is a duplicate.
_getpid = os.getpid

# Every live generator, so that a child made by os.fork() can give each a new
# lock before any of its threads runs: a thread of the parent may have held
# the old one, and the child does not have that thread.
_generators: weakref.WeakSet[LeasedGenerator[Any]] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for gen in list(_generators):
        gen._lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX: os.fork, multiprocessing, gunicorn
    os.register_at_fork(after_in_child=_after_fork_in_child)


class LeasedGenerator(Generic[T]):
    """IDs of one format inside a lease's window (see the module's description).

    ``LeasedGenerator.sno(conn, "billing-7")`` (or ``.snowflake``, ``.kuid96``,
    ``.siq``, or ``.take(conn, format, holder)``) takes a lease;
    ``generate()`` makes IDs, renewing when due; ``release()`` ends the lease
    and reports the last unit used so that the next holder need not wait for
    the whole window.

    Thread-safe: threads and asyncio tasks may share one generator (the next
    unit and sequence are taken under a lock). After ``os.fork()`` the child
    never uses the parent's lease: it takes its own on first use if the
    generator was made from a conninfo or a connection factory, else
    :meth:`generate` raises :class:`LeaseForked` there.
    """

    def __init__(
        self,
        source: LeaseSource,
        lease: Lease,
        ttl: float,
        format_options: dict[str, Any] | None = None,
        *,
        monotonic_ns: Callable[[], int] = time.monotonic_ns,
        sleep: Callable[[float], None] = time.sleep,
        holder: str | None = None,
    ):
        self._source = source
        self._source_pid = _getpid()  # the process whose connection the source uses
        self._holder = holder
        self._ttl = float(ttl)
        self._sleep = sleep
        self._monotonic_ns = monotonic_ns
        self._options = dict(format_options or {})
        # Guards every field below that generate() reads or writes. Sleeps and
        # the renewal's round trip happen with it released.
        self._lock = threading.Lock()
        self._released = False
        self._start(lease)
        _generators.add(self)

    def _start(self, lease: Lease) -> None:
        """The state of a new lease (at construction, and in a forked child)."""
        self._format: _Format[T] = _format_for(lease, self._options)
        self._clock = DatabaseClock(lease.server_time, self._monotonic_ns)
        self._lease = lease
        # The process the lease is for; any other is a child made by fork().
        self._owner_pid = _getpid()
        self._expires_ns = unix_micros_of(lease.expires) * 1000
        # The first unit wholly at or after not_before; units before it are
        # a predecessor's.
        self._first_unit = self._format.first_unit_from(unix_micros_of(lease.not_before) * 1000)
        # Renew when half the TTL remains before expires - safety; safety is
        # 1 s or a tenth of the TTL, the smaller (lease spec, "Application
        # generators").
        ttl_ns = int(self._ttl * _NS_PER_S)
        self._safety_ns = min(_NS_PER_S, ttl_ns // 10)
        self._renew_ahead_ns = self._safety_ns + ttl_ns // 2
        # After a failed renewal, the next try waits this long (not one per ID).
        self._retry_ns = max(self._safety_ns // 4, 1_000_000)
        self._retry_at = 0
        self._renewable = True
        self._renewing = False  # a thread is renewing (outside the lock)
        self._renew_error: BaseException | None = None
        self._last_unit: int | None = None
        self._sequences: dict[str, int] = {}
        self._expired = False

    # --- construction ------------------------------------------------------------------

    @classmethod
    def take(
        cls,
        conn: Any,
        format: str,
        holder: str,
        ttl: float = 30.0,
        *,
        monotonic_ns: Callable[[], int] = time.monotonic_ns,
        sleep: Callable[[float], None] = time.sleep,
        **format_options: Any,
    ) -> LeasedGenerator[Any]:
        """Take a lease of ``format`` (``pg_flake_lease``) for ``holder``.

        ``conn``: a conninfo string (the generator opens an autocommit
        connection, and a new one in each forked child), a function returning
        a new psycopg 3 connection (autocommit; called again in each forked
        child), a psycopg 3 connection (autocommit, or idle; a forked child
        cannot use it and refuses), or a :class:`LeaseSource`.
        ``format_options``: sno ``meta`` (0); siq ``domain`` ('') and ``kind``
        ('user', the default of ``generate``). Errors of the SQL function
        (53400 when every unit is held, 55000 …) are raised as the driver
        raises them.
        """
        _check_format(format)
        source = _source_of(conn)
        lease = cls._lease_from(source, format, holder, float(ttl))
        try:
            return cls(
                source,
                lease,
                ttl,
                format_options,
                monotonic_ns=monotonic_ns,
                sleep=sleep,
                holder=holder,
            )
        except Exception:
            source.release(lease.lease_id, None)
            raise

    @staticmethod
    def _lease_from(source: LeaseSource, format: str, holder: str, ttl: float) -> Lease:
        lease = source.lease(format, holder, ttl)
        if lease.format != format:
            raise LeaseError(f"asked for a lease of {format}, got one of {lease.format}")
        return lease

    @classmethod
    def sno(cls, conn: Any, holder: str, ttl: float = 30.0, meta: int = 0) -> LeasedGenerator[Sno]:
        """Leased sno: partition = node << 8 | process, the given metabyte."""
        return cls.take(conn, "sno", holder, ttl, meta=meta)

    @classmethod
    def snowflake(cls, conn: Any, holder: str, ttl: float = 30.0) -> LeasedGenerator[int]:
        """Leased Snowflake (``int``): worker = node, the lease's epoch."""
        return cls.take(conn, "snowflake", holder, ttl)

    @classmethod
    def kuid96(cls, conn: Any, holder: str, ttl: float = 30.0) -> LeasedGenerator[Kuid96]:
        """Leased kuid96: the lease's 32-bit node and interval."""
        return cls.take(conn, "kuid96", holder, ttl)

    @classmethod
    def siq(
        cls, conn: Any, holder: str, ttl: float = 30.0, domain: str = "", kind: str = "user"
    ) -> LeasedGenerator[Siq]:
        """Leased SIQ: shard = process, the node in the domain hash's top byte."""
        return cls.take(conn, "siq", holder, ttl, domain=domain, kind=kind)

    # --- state -------------------------------------------------------------------------

    @property
    def lease(self) -> Lease:
        """The lease as last granted or renewed (in a forked child, the
        parent's until the child's first ID)."""
        return self._lease

    @property
    def clock(self) -> DatabaseClock:
        return self._clock

    @property
    def renew_error(self) -> BaseException | None:
        """The last renewal's error, None after a successful one."""
        return self._renew_error

    @property
    def last_used(self) -> datetime | None:
        """Start of the last unit used (microseconds, rounded down), None if none."""
        last = self._last_unit
        if last is None:
            return None
        return datetime_of(self._format.start_ns(last) // 1000, "the last unit")

    # --- generation --------------------------------------------------------------------

    def generate(self, kind: str | None = None) -> T:
        """The next ID; waits for ``not_before`` and for the next unit when a
        unit's sequence is used up; raises :class:`LeaseExpired` once no unit
        fits in the window and renewing failed, :class:`LeaseForked` in a
        forked child that cannot take a lease of its own. ``kind``: siq only."""
        fmt = self._format  # its class and options stay the same after a fork
        if kind is None:
            kind = getattr(fmt, "kind", "")
        elif not isinstance(fmt, _SiqFormat):
            raise ValueError(f"kind applies to siq only, not {fmt.name}")
        else:
            kind = kind.lower()
        max_sequence = fmt.max_sequence(kind)  # also refuses an unknown siq kind
        # From reading the clock to recording the (unit, sequence) issued, no
        # other thread of this process runs here; sleeps and renewals release
        # the lock (_wait_ns, _renew).
        lock = self._lock
        with lock:
            while True:
                if self._released:
                    raise LeaseError(f"lease {self._lease.lease_id} was released")
                if self._owner_pid != _getpid():
                    self._lease_in_child()
                if self._expired:
                    self._raise_expired()
                fmt = self._format
                now = self._clock.now_ns()
                if now >= self._expires_ns - self._renew_ahead_ns and self._may_renew(now):
                    self._renew(lock)
                    continue
                unit = max(fmt.unit_at(now), self._first_unit)
                if self._last_unit is not None and unit <= self._last_unit:
                    # The same unit again, or an earlier reading after a renewal
                    # moved the clock back: go on in the last unit.
                    unit = self._last_unit
                    sequence = self._sequences.get(kind, -1) + 1
                else:
                    sequence = 0
                end = fmt.start_ns(fmt.next_unit(unit))
                if end > self._expires_ns:
                    # The unit would end past the window: only a renewal helps.
                    if self._may_renew(now):
                        self._renew(lock)
                    elif self._renewing:
                        # Another thread's renewal is under way.
                        self._wait_ns(lock, self._retry_ns)
                    elif now < self._expires_ns and self._renewable:
                        # Retry until the window ends.
                        self._wait_ns(lock, min(self._retry_at, self._expires_ns) - now)
                    else:
                        self._expired = True
                        self._raise_expired()
                    continue
                if sequence > max_sequence:
                    self._wait_ns(lock, end - now)
                    continue
                start = fmt.start_ns(unit)
                if start > now:
                    self._wait_ns(lock, start - now)  # not_before, or the first unit after it
                    continue
                if unit != self._last_unit:
                    self._sequences.clear()
                    self._last_unit = unit
                self._sequences[kind] = sequence
                break
        # The (unit, sequence) is this call's alone now: assembled outside the lock.
        return fmt.build(unit, sequence, kind)

    def _wait_ns(self, lock: threading.Lock, ns: int) -> None:
        """Sleeps with the lock released: the other threads go on (or wait
        for the same time), and a renewal's outcome can be recorded."""
        lock.release()
        try:
            self._sleep(max(ns, 1000) / _NS_PER_S)
        finally:
            lock.acquire()

    def _may_renew(self, now: int) -> bool:
        return self._renewable and not self._renewing and now >= self._retry_at

    def _renew(self, lock: threading.Lock) -> None:
        """One renewal, by this thread alone: the round trip runs with the lock
        released (the others go on inside the window); its outcome is
        recorded under the lock."""
        self._renewing = True
        lease_id = self._lease.lease_id
        source = self._source
        lease: Lease | None = None
        error: Exception | None = None
        arrived = 0
        lock.release()
        try:
            try:
                lease = source.renew(lease_id, self._ttl)
                arrived = self._monotonic_ns()
            except Exception as e:  # any failure: the window still holds
                error = e
        finally:
            lock.acquire()
            self._renewing = False
        if self._lease.lease_id != lease_id:
            return  # the generator has moved on to another lease meanwhile
        if lease is None:
            self._renew_error = error
            self._retry_at = self._clock.now_ns() + self._retry_ns
            # 55000 (expired, released, superseded) and 22023 (unknown) are final.
            if getattr(error, "sqlstate", None) in ("55000", "22023"):
                self._renewable = False
            return
        if lease.lease_id != self._lease.lease_id or lease.format != self._lease.format:
            self._renew_error = LeaseError(f"renewal returned another lease: {lease!r}")
            self._renewable = False
            return
        self._clock.sync(lease.server_time, arrived)
        self._lease = lease
        self._expires_ns = max(self._expires_ns, unix_micros_of(lease.expires) * 1000)
        self._renew_error = None
        self._retry_at = 0

    def _lease_in_child(self) -> None:
        """The first use in a child made by fork(): a lease of the child's own
        over a source of its own, or LeaseForked. Until then every ID would
        carry the parent's unit."""
        pid = _getpid()
        if self._source_pid != pid:
            make = getattr(self._source, "for_child", None)
            source = make() if make is not None else None
            if source is None:
                raise LeaseForked(self._lease.lease_id, self._lease.format, self._owner_pid, pid)
            # From here on, leases, renewals and the release go over the
            # child's own connection; the parent's is never used here.
            self._source, self._source_pid = source, pid
        holder = self._holder or f"child of lease {self._lease.lease_id}"
        lease = self._lease_from(self._source, self._lease.format, holder, self._ttl)
        try:
            self._start(lease)
        except Exception:
            self._source.release(lease.lease_id, None)
            raise

    def _raise_expired(self) -> None:
        raise LeaseExpired(
            self._lease.lease_id, self._lease.format, self._lease.expires
        ) from self._renew_error

    # --- end -----------------------------------------------------------------------------

    def release(self) -> bool:
        """``pg_flake_release`` with the last unit used; no ID after it. True
        if the lease was held, False if it had already ended (expired). In a
        forked child without a lease of its own: False, and the parent's
        lease is left alone."""
        with self._lock:
            if self._released:
                return False
            self._released = True
            if self._owner_pid != _getpid():
                return False  # the parent's lease: not this process's to end
            source, lease_id, last_used = self._source, self._lease.lease_id, self.last_used
        return source.release(lease_id, last_used)

    def __enter__(self) -> LeasedGenerator[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


#: What a leased generator makes.
LeasedId = Union[Sno, Siq, Kuid96, int]
