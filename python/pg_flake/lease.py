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
  or the same one in a later window).

The IDs are the package's values: :class:`~pg_flake.Sno`,
:class:`~pg_flake.Siq`, :class:`~pg_flake.Kuid96`, and ``int`` for Snowflake,
built with the classes' own ``from_parts``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Generic, Protocol, TypeVar, Union

from ._base import datetime_of, unix_micros_of
from .kuid import Kuid96
from .siq import KINDS, Siq, siq_domain_hash
from .sno import EPOCH_MICROS as SNO_EPOCH_MICROS
from .sno import UNIT_MICROS as SNO_UNIT_MICROS
from .sno import Sno
from .snowflake import snowflake_from_parts

__all__ = [
    "FORMATS",
    "DatabaseClock",
    "Lease",
    "LeaseError",
    "LeaseExpired",
    "LeaseSource",
    "LeasedGenerator",
    "LeasedId",
    "PsycopgLeases",
]

#: The formats that have leases (kuid64 has no node field; Flax ID and
#: DistributedId are random).
FORMATS = ("sno", "siq", "snowflake", "kuid96")

_NS_PER_S = 1_000_000_000
_LEASE_COLUMNS = (
    "lease_id, format, node, process, not_before, expires, server_time, epoch_ms, kuid_interval"
)

T = TypeVar("T")


class LeaseError(Exception):
    """A leased generator cannot make an ID (released, or a lease row it cannot use)."""


class LeaseExpired(LeaseError):
    """The lease's window has ended and it could not be renewed: take a new lease.

    ``__cause__`` is the last renewal's error, if a renewal was tried.
    """

    def __init__(self, lease_id: int, format: str, expires: datetime):
        super().__init__(
            f"lease {lease_id} of {format} expired at {expires.isoformat()} and could not be "
            "renewed; take a new lease (LeasedGenerator.take) and stop using this one"
        )
        self.lease_id = lease_id
        self.format = format
        self.expires = expires


@dataclass(frozen=True)
class Lease:
    """A row of ``pg_flake_lease`` / ``pg_flake_renew``."""

    lease_id: int
    format: str
    node: int
    process: int
    not_before: datetime
    expires: datetime
    server_time: datetime
    epoch_ms: int | None = None
    kuid_interval: int | None = None

    @classmethod
    def from_row(cls, row: Any) -> Lease:
        """From a row of the SQL functions' columns, in their order."""
        if row is None:
            raise LeaseError("the lease function returned no row")
        return cls(*row)


class LeaseSource(Protocol):
    """Where leases come from: :class:`PsycopgLeases`, or a stand-in in tests."""

    def lease(self, format: str, holder: str, ttl: float) -> Lease: ...

    def renew(self, lease_id: int, ttl: float) -> Lease: ...

    def release(self, lease_id: int, last_used: datetime | None) -> bool: ...


class PsycopgLeases:
    """The SQL functions over a psycopg 3 connection.

    Each call commits on its own (a lease is granted only once committed): the
    connection must be in autocommit mode or idle, not inside a transaction of
    the application's. Set ``connect_timeout`` / ``statement_timeout`` on it if
    a renewal must not block for long; the window keeps running meanwhile.
    """

    def __init__(self, conn: Any):
        self.conn = conn

    def _row(self, query: str, params: tuple[Any, ...]) -> Any:
        conn = self.conn
        if not conn.autocommit and conn.info.transaction_status != 0:  # 0: IDLE
            raise LeaseError(
                "the connection is inside a transaction: a lease counts only once its grant "
                "commits; use an autocommit connection (or one outside any transaction)"
            )
        with conn.transaction():
            return conn.execute(query, params).fetchone()

    def lease(self, format: str, holder: str, ttl: float) -> Lease:
        return Lease.from_row(
            self._row(
                f"SELECT {_LEASE_COLUMNS} FROM pg_flake_lease(%s, %s, %s)",
                (format, holder, timedelta(seconds=ttl)),
            )
        )

    def renew(self, lease_id: int, ttl: float) -> Lease:
        return Lease.from_row(
            self._row(
                f"SELECT {_LEASE_COLUMNS} FROM pg_flake_renew(%s, %s)",
                (lease_id, timedelta(seconds=ttl)),
            )
        )

    def release(self, lease_id: int, last_used: datetime | None) -> bool:
        row = self._row("SELECT pg_flake_release(%s, %s::timestamptz)", (lease_id, last_used))
        return bool(row[0])


class DatabaseClock:
    """The database's time: ``server_time`` of the last response advanced by a
    monotonic clock (``time.monotonic_ns`` unless told otherwise), never the
    wall clock."""

    def __init__(self, server_time: datetime, monotonic_ns: Callable[[], int] = time.monotonic_ns):
        self._monotonic_ns = monotonic_ns
        self._server_ns = 0
        self._at = 0
        self.sync(server_time)

    def sync(self, server_time: datetime) -> None:
        """Call right after a response carrying ``server_time`` arrived."""
        self._at = self._monotonic_ns()
        self._server_ns = unix_micros_of(server_time) * 1000

    def now_ns(self) -> int:
        """Nanoseconds since 1970-01-01 UTC on the database's clock."""
        return self._server_ns + (self._monotonic_ns() - self._at)


# --- formats: units on the time line and assembly through the value classes -------------
#
# A unit is an int that grows with time; start_ns(u) is the first whole
# nanosecond inside it (the ceiling of its exact start), so "unit u lies
# inside [a, b)" is exactly start_ns(u) >= a and start_ns(next(u)) <= b.


class _Format(Generic[T]):
    name: str

    def unit_at(self, ns: int) -> int:
        raise NotImplementedError  # pragma: no cover

    def start_ns(self, unit: int) -> int:
        raise NotImplementedError  # pragma: no cover

    def next_unit(self, unit: int) -> int:
        return unit + 1

    def max_sequence(self, kind: str) -> int:
        raise NotImplementedError  # pragma: no cover

    def build(self, unit: int, sequence: int, kind: str) -> T:
        raise NotImplementedError  # pragma: no cover

    def first_unit_from(self, ns: int) -> int:
        """The first unit that starts at or after ``ns``."""
        unit = self.unit_at(ns)
        return unit if self.start_ns(unit) >= ns else self.next_unit(unit)


class _SnoFormat(_Format[Sno]):
    """4 ms units since 2010; partition = node << 8 | process; tick-tock 0."""

    name = "sno"

    def __init__(self, lease: Lease, meta: int = 0):
        self.partition = lease.node << 8 | lease.process
        self.meta = meta
        Sno.from_parts(SNO_EPOCH_MICROS, meta, self.partition, 0)  # checks the fields now

    def unit_at(self, ns: int) -> int:
        return (ns // 1000 - SNO_EPOCH_MICROS) // SNO_UNIT_MICROS

    def start_ns(self, unit: int) -> int:
        return (SNO_EPOCH_MICROS + unit * SNO_UNIT_MICROS) * 1000

    def max_sequence(self, kind: str) -> int:
        return 65535

    def build(self, unit: int, sequence: int, kind: str) -> Sno:
        return Sno.from_parts(self.start_ns(unit) // 1000, self.meta, self.partition, sequence)


class _SnowflakeFormat(_Format[int]):
    """Milliseconds since the lease's epoch; worker = node."""

    name = "snowflake"

    def __init__(self, lease: Lease):
        if lease.epoch_ms is None:
            raise LeaseError(f"lease {lease.lease_id} of snowflake has no epoch_ms")
        self.epoch_ms = lease.epoch_ms
        self.worker = lease.node
        self.process = lease.process
        snowflake_from_parts(self.epoch_ms * 1000, self.worker, self.process, 0, self.epoch_ms)

    def unit_at(self, ns: int) -> int:
        return ns // 1_000_000 - self.epoch_ms

    def start_ns(self, unit: int) -> int:
        return (self.epoch_ms + unit) * 1_000_000

    def max_sequence(self, kind: str) -> int:
        return 4095

    def build(self, unit: int, sequence: int, kind: str) -> int:
        return snowflake_from_parts(
            self.start_ns(unit) // 1000, self.worker, self.process, sequence, self.epoch_ms
        )


class _Kuid96Format(_Format[Kuid96]):
    """1024 µs units within each second (the last one of a second is 576 µs);
    a unit is ``second << 10 | microseconds >> 10``."""

    name = "kuid96"

    def __init__(self, lease: Lease):
        if lease.kuid_interval is None:
            raise LeaseError(f"lease {lease.lease_id} of kuid96 has no kuid_interval")
        self.interval = lease.kuid_interval
        self.node = lease.node
        Kuid96.from_parts(0, self.node, 0, self.interval)

    def unit_at(self, ns: int) -> int:
        micros = ns // 1000
        return (micros // 1_000_000) << 10 | (micros % 1_000_000) >> 10

    def start_ns(self, unit: int) -> int:
        return ((unit >> 10) * 1_000_000 + (unit & 1023) * 1024) * 1000

    def next_unit(self, unit: int) -> int:
        # 999_424 µs starts the last unit of a second.
        return unit + 1 if unit & 1023 < 999_424 >> 10 else ((unit >> 10) + 1) << 10

    def max_sequence(self, kind: str) -> int:
        return (1 << 14) - 1

    def build(self, unit: int, sequence: int, kind: str) -> Kuid96:
        return Kuid96.from_parts(self.start_ns(unit) // 1000, self.node, sequence, self.interval)


class _SiqFormat(_Format[Siq]):
    """Ticks of 1/65536 s; shard = process; the node in the domain hash's top
    byte; a serial per kind per tick."""

    name = "siq"

    def __init__(self, lease: Lease, domain: str = "", kind: str = "user"):
        self.shard = lease.process
        self.domain_hash = (siq_domain_hash(domain) & 0x00FF_FFFF) | lease.node << 24
        Siq.from_parts_ticks(0, self.shard, self.domain_hash, kind, 0)  # checks kind, fields
        self.kind = kind.lower()

    def unit_at(self, ns: int) -> int:
        return ns * 65536 // _NS_PER_S

    def start_ns(self, unit: int) -> int:
        return -(-unit * _NS_PER_S // 65536)

    def max_sequence(self, kind: str) -> int:
        if kind not in KINDS:
            Siq.from_parts_ticks(0, 0, 0, kind, 0)  # the extension's 22023 for an unknown kind
        return (1 << (16 - KINDS[kind][1])) - 1

    def build(self, unit: int, sequence: int, kind: str) -> Siq:
        return Siq.from_parts_ticks(unit, self.shard, self.domain_hash, kind, sequence)


def _format_for(lease: Lease, options: dict[str, Any]) -> _Format[Any]:
    if lease.format == "sno":
        return _SnoFormat(lease, **options)
    if lease.format == "snowflake":
        return _SnowflakeFormat(lease, **options)
    if lease.format == "kuid96":
        return _Kuid96Format(lease, **options)
    if lease.format == "siq":
        return _SiqFormat(lease, **options)
    raise LeaseError(f'no leased generator for format "{lease.format}"')


def _check_format(format: str) -> None:
    if format not in FORMATS:
        raise ValueError(
            f'no leases for format "{format}"; accepted formats: {", ".join(FORMATS)} '
            "(kuid64 has no node field: use kuid96)"
        )


# --- the generator ---------------------------------------------------------------------


class LeasedGenerator(Generic[T]):
    """IDs of one format inside a lease's window (see the module's description).

    ``LeasedGenerator.sno(conn, "billing-7")`` (or ``.snowflake``, ``.kuid96``,
    ``.siq``, or ``.take(conn, format, holder)``) takes a lease;
    ``generate()`` makes IDs, renewing when due; ``release()`` ends the lease
    and reports the last unit used so that the next holder need not wait for
    the whole window. Not thread-safe: one generator per thread, or a lock.
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
    ):
        self._source = source
        self._ttl = float(ttl)
        self._sleep = sleep
        self._format: _Format[T] = _format_for(lease, dict(format_options or {}))
        self._clock = DatabaseClock(lease.server_time, monotonic_ns)
        self._lease = lease
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
        self._renew_error: BaseException | None = None
        self._last_unit: int | None = None
        self._sequences: dict[str, int] = {}
        self._released = False
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

        ``conn`` is a psycopg 3 connection (autocommit, or idle) or a
        :class:`LeaseSource`. ``format_options``: sno ``meta`` (0); siq
        ``domain`` ('') and ``kind`` ('user', the default of ``generate``).
        Errors of the SQL function (53400 when every unit is held, 55000 …)
        are raised as the driver raises them.
        """
        _check_format(format)
        source: LeaseSource = conn if hasattr(conn, "renew") else PsycopgLeases(conn)
        lease = source.lease(format, holder, float(ttl))
        if lease.format != format:
            raise LeaseError(f"asked for a lease of {format}, got one of {lease.format}")
        try:
            return cls(source, lease, ttl, format_options, monotonic_ns=monotonic_ns, sleep=sleep)
        except Exception:
            source.release(lease.lease_id, None)
            raise

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
        """The lease as last granted or renewed."""
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
        if self._last_unit is None:
            return None
        return datetime_of(self._format.start_ns(self._last_unit) // 1000, "the last unit")

    # --- generation --------------------------------------------------------------------

    def generate(self, kind: str | None = None) -> T:
        """The next ID; waits for ``not_before`` and for the next unit when a
        unit's sequence is used up; raises :class:`LeaseExpired` once no unit
        fits in the window and renewing failed. ``kind``: siq only."""
        fmt = self._format
        if kind is None:
            kind = getattr(fmt, "kind", "")
        elif not isinstance(fmt, _SiqFormat):
            raise ValueError(f"kind applies to siq only, not {fmt.name}")
        else:
            kind = kind.lower()
        max_sequence = fmt.max_sequence(kind)  # also refuses an unknown siq kind
        while True:
            if self._released:
                raise LeaseError(f"lease {self._lease.lease_id} was released")
            if self._expired:
                self._raise_expired()
            now = self._clock.now_ns()
            if now >= self._expires_ns - self._renew_ahead_ns:
                self._try_renew(now)
                now = self._clock.now_ns()
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
                self._try_renew(now)
                if end > self._expires_ns:
                    if now < self._expires_ns and self._renewable:
                        # Retry until the window ends.
                        self._wait_ns(min(self._retry_at, self._expires_ns) - now)
                        continue
                    self._expired = True
                    self._raise_expired()
                continue
            if sequence > max_sequence:
                self._wait_ns(end - now)
                continue
            start = fmt.start_ns(unit)
            if start > now:
                self._wait_ns(start - now)  # not_before, or the first unit after it
                continue
            value = fmt.build(unit, sequence, kind)
            if unit != self._last_unit:
                self._sequences.clear()
                self._last_unit = unit
            self._sequences[kind] = sequence
            return value

    def _wait_ns(self, ns: int) -> None:
        self._sleep(max(ns, 1000) / _NS_PER_S)

    def _try_renew(self, now: int) -> None:
        if not self._renewable or now < self._retry_at:
            return
        try:
            lease = self._source.renew(self._lease.lease_id, self._ttl)
        except Exception as error:  # any failure: the window still holds
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
        self._clock.sync(lease.server_time)
        self._lease = lease
        self._expires_ns = max(self._expires_ns, unix_micros_of(lease.expires) * 1000)
        self._renew_error = None
        self._retry_at = 0

    def _raise_expired(self) -> None:
        raise LeaseExpired(
            self._lease.lease_id, self._lease.format, self._lease.expires
        ) from self._renew_error

    # --- end -----------------------------------------------------------------------------

    def release(self) -> bool:
        """``pg_flake_release`` with the last unit used; no ID after it. True
        if the lease was held, False if it had already ended (expired)."""
        if self._released:
            return False
        self._released = True
        return self._source.release(self._lease.lease_id, self.last_used)

    def __enter__(self) -> LeasedGenerator[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


#: What a leased generator makes.
LeasedId = Union[Sno, Siq, Kuid96, int]
