"""psycopg 3: ``register_types(conn)`` makes pg_flake's native types native
values on a connection.

After it, query results come back as :class:`~pg_flake.Sno`,
:class:`~pg_flake.Siq`, … in text and binary mode (arrays too), value
objects are sent as parameters typed as their SQL type (binary by default,
text with ``%t``), and ``copy.set_types(["sno", …])`` works in text and binary
``COPY``. A string is accepted where a value is expected and is checked
against the type's canonical text first.

Registration is per connection (or pool, with ``configure=register_types``)
and keyed by type OIDs, which change when the extension is dropped and
created again or the database is restored: call ``register_types(conn)``
again then.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import adapt, pq
from psycopg.rows import tuple_row
from psycopg.types import TypeInfo

from . import TYPES
from ._base import FlakeId
from ._catalog import TYPE_QUERY

__all__ = ["register_types"]


def _value(cls: type[FlakeId], obj: Any) -> FlakeId:
    return obj if isinstance(obj, cls) else cls(obj)


class _TextDumper(adapt.Dumper):
    value_class: type[FlakeId]

    def dump(self, obj: Any) -> bytes:
        return str(_value(self.value_class, obj)).encode("ascii")


class _BinaryDumper(adapt.Dumper):
    format = pq.Format.BINARY
    value_class: type[FlakeId]

    def dump(self, obj: Any) -> bytes:
        return bytes(_value(self.value_class, obj))


class _TextLoader(adapt.Loader):
    value_class: type[FlakeId]

    def load(self, data: Any) -> FlakeId:
        return self.value_class(bytes(data).decode("ascii"))


class _BinaryLoader(adapt.Loader):
    format = pq.Format.BINARY
    value_class: type[FlakeId]

    def load(self, data: Any) -> FlakeId:
        return self.value_class.from_bytes(data)


def _register(rows: list[tuple[Any, ...]], conn: Any) -> dict[str, TypeInfo]:
    registered = {}
    adapters = conn.adapters
    for name, oid, array_oid, regtype, delimiter, _schema in rows:
        cls = TYPES[name]
        info = TypeInfo(name, oid, array_oid, regtype=regtype, delimiter=delimiter)
        info.register(conn)  # by name (for copy.set_types) and its array type
        attrs = {"oid": oid, "value_class": cls}
        prefix = cls.__name__
        # Text first: the dumper registered last is the default (binary).
        for base in (_TextDumper, _BinaryDumper):
            adapters.register_dumper(cls, type(prefix + base.__name__, (base,), attrs))
        for base in (_TextLoader, _BinaryLoader):
            adapters.register_loader(oid, type(prefix + base.__name__, (base,), attrs))
        registered[name] = info
    return registered


def _fetch(conn: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
    # In a transaction block of its own (a savepoint inside the caller's), so
    # the connection is left in the state it was found, like TypeInfo.fetch.
    with conn.transaction(), psycopg.Cursor(conn, row_factory=tuple_row) as cur:
        cur.execute(TYPE_QUERY)
        return cur.fetchall()


async def _register_async(conn: psycopg.AsyncConnection[Any]) -> dict[str, TypeInfo]:
    async with conn.transaction():
        async with psycopg.AsyncCursor(conn, row_factory=tuple_row) as cur:
            await cur.execute(TYPE_QUERY)
            rows = await cur.fetchall()
    return _register(rows, conn)


def register_types(
    conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any],
) -> Any:
    """Registers every pg_flake type installed in ``conn``'s database.

    Looks the types up in the extension's schema (one catalog query, in a
    transaction block of its own, so the connection stays idle or in its
    transaction), skips those not installed, and returns
    ``{type name: TypeInfo}``. For an ``AsyncConnection`` it returns an
    awaitable: ``await register_types(aconn)``.

    The adapters are keyed by the types' OIDs, the numbers PostgreSQL gave
    the types when ``CREATE EXTENSION`` ran in this database. Dropping and
    creating the extension again, or restoring a dump, gives new OIDs: a
    connection registered before then fails on value parameters (``cache
    lookup failed for type …``) and returns plain strings. Call
    ``register_types(conn)`` again on it.
    """
    if isinstance(conn, psycopg.AsyncConnection):
        return _register_async(conn)
    if not isinstance(conn, psycopg.Connection):
        raise TypeError(
            "register_types() takes a psycopg Connection or AsyncConnection, "
            f"not {type(conn).__name__}"
        )
    return _register(_fetch(conn), conn)
