"""asyncpg: ``await register_types(conn)`` sets binary codecs for pg_flake's
native types on a connection.

After it, results come back as :class:`~pg_flake.Sno`, :class:`~pg_flake.Siq`,
… and value objects (or their canonical text) are accepted as parameters and
by ``copy_records_to_table``. For a pool, pass it as the pool's ``init``:
``asyncpg.create_pool(dsn, init=register_types)``.

Codecs are keyed by type OIDs, which change when the extension is dropped and
created again or the database is restored: call ``register_types(conn)``
again on that connection, or ``await pool.expire_connections()`` so that
every pooled connection is replaced (and initialised again).
"""

from __future__ import annotations

from typing import Any, Callable

from . import TYPES
from ._base import FlakeId
from ._catalog import TYPE_QUERY

__all__ = ["register_types"]


def _encoder(cls: type[FlakeId]) -> Callable[[Any], bytes]:
    def encode(obj: Any) -> bytes:
        return bytes(obj if isinstance(obj, cls) else cls(obj))

    return encode


async def register_types(conn: Any) -> dict[str, int]:
    """Sets binary codecs for every pg_flake type installed in ``conn``'s
    database, in the extension's schema; returns ``{type name: OID}``.

    The codecs are keyed by the types' OIDs, given when ``CREATE EXTENSION``
    ran in this database. After ``DROP``/``CREATE EXTENSION`` or a restore the
    types have new OIDs: value parameters fail (``cache lookup failed for
    type …``) and results arrive as plain strings until this is called again
    on the connection, which sets codecs for the new OIDs (``set_type_codec``
    also drops the connection's cached statements, which hold the old ones).
    For a pool: ``await pool.expire_connections()``.
    """
    rows = await conn.fetch(TYPE_QUERY)
    registered = {}
    for name, oid, _array_oid, _regtype, _delimiter, schema in rows:
        cls = TYPES[name]
        await conn.set_type_codec(
            name, schema=schema, encoder=_encoder(cls), decoder=cls.from_bytes, format="binary"
        )
        registered[name] = oid
    return registered
