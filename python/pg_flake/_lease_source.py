"""Leases and where they come from: the rows of ``pg_flake_lease`` /
``pg_flake_renew``, the errors, the SQL functions over psycopg 3, and the
database's clock. Public through :mod:`pg_flake.lease`."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Protocol

from ._base import unix_micros_of

#: The formats that have leases (kuid64 has no node field; Flax ID and
#: DistributedId are random).
FORMATS = ("sno", "siq", "snowflake", "kuid96")

_NS_PER_S = 1_000_000_000
_LEASE_COLUMNS = (
    "lease_id, format, node, process, not_before, expires, server_time, epoch_ms, kuid_interval"
)


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


class LeaseForked(LeaseError):
    """A generator inherited across ``os.fork()`` that cannot take a lease of
    its own in the child: its unit is the parent's, so the child makes no ID
    with it. Take a new lease in the child over a connection of its own, or
    make the generator from a conninfo or a connection factory."""

    def __init__(self, lease_id: int, format: str, owner_pid: int, pid: int):
        super().__init__(
            f"lease {lease_id} of {format} belongs to process {owner_pid}, and this is process "
            f"{pid}, a child made by fork(): IDs made here would share the parent's unit and "
            "duplicate its IDs. Take a new lease in the child over a connection opened there "
            "(LeasedGenerator.take), or make the generator from a conninfo or a connection "
            "factory, which takes a lease of its own in each child on first use"
        )
        self.lease_id = lease_id
        self.format = format
        self.owner_pid = owner_pid
        self.pid = pid


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
    """Where leases come from: :class:`PsycopgLeases`, or a stand-in in tests.

    A source may also have ``for_child() -> LeaseSource | None``: a source
    that a child process made by ``os.fork()`` may use (one that opens its
    own connection there), or None. A generator whose source has none, or
    answers None, refuses in a child (:class:`LeaseForked`).
    """

    def lease(self, format: str, holder: str, ttl: float) -> Lease: ...

    def renew(self, lease_id: int, ttl: float) -> Lease: ...

    def release(self, lease_id: int, last_used: datetime | None) -> bool: ...


class PsycopgLeases:
    """The SQL functions over a psycopg 3 connection, or over connections that
    ``connect`` opens (a function returning a new connection, opened at first
    use; :meth:`from_conninfo` makes one).

    Each call commits on its own (a lease is granted only once committed): the
    connection must be in autocommit mode or idle, not inside a transaction of
    the application's. Set ``connect_timeout`` / ``statement_timeout`` on it if
    a renewal must not block for long; the window keeps running meanwhile.

    A connection must not be used by two processes: with ``connect``, a child
    made by ``os.fork()`` gets a source of its own (:meth:`for_child`) that
    opens a new connection there; without it, the child gets none.
    """

    def __init__(self, conn: Any = None, *, connect: Callable[[], Any] | None = None):
        if conn is None and connect is None:
            raise TypeError("PsycopgLeases needs a connection or a connect function")
        self._conn = conn
        self.connect = connect
        # The calls of one source follow one another (a renewal in one thread,
        # a release in another): each is its own transaction on the connection.
        self._lock = threading.RLock()

    @classmethod
    def from_conninfo(cls, conninfo: str, **kwargs: Any) -> PsycopgLeases:
        """A source that opens ``psycopg.connect(conninfo, autocommit=True, **kwargs)``."""
        import psycopg

        return cls(connect=lambda: psycopg.connect(conninfo, autocommit=True, **kwargs))

    @property
    def conn(self) -> Any:
        """The connection (opened by ``connect`` on first use, and again
        once the server closed it)."""
        with self._lock:
            if self.connect is not None and (self._conn is None or self._conn.closed):
                self._conn = self.connect()
            return self._conn

    @conn.setter
    def conn(self, conn: Any) -> None:
        with self._lock:
            self._conn = conn

    def for_child(self) -> PsycopgLeases | None:
        """A source for a child made by ``os.fork()``: a new connection there
        when this source has ``connect``, else None (the inherited connection
        is the parent's)."""
        return None if self.connect is None else PsycopgLeases(connect=self.connect)

    def _row(self, query: str, params: tuple[Any, ...]) -> Any:
        with self._lock:
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

    def sync(self, server_time: datetime, at: int | None = None) -> None:
        """Call right after a response carrying ``server_time`` arrived, or
        give the monotonic reading ``at`` taken when it arrived."""
        self._at = self._monotonic_ns() if at is None else at
        self._server_ns = unix_micros_of(server_time) * 1000

    def now_ns(self) -> int:
        """Nanoseconds since 1970-01-01 UTC on the database's clock."""
        return self._server_ns + (self._monotonic_ns() - self._at)
