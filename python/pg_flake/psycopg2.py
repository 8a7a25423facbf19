"""psycopg2: ``register_types(conn_or_curs)`` makes pg_flake's native types
native values, as pgvector's ``register_vector`` does for ``vector``.

After it, query results come back as :class:`~pg_flake.Sno`,
:class:`~pg_flake.Siq`, … and arrays (``sno[]``) as lists of them. Value
objects are accepted as query parameters everywhere (psycopg2's adapters are
global): each is sent as its canonical text with a cast to its type,
``'brpk4q72xwf2m63l'::sno``, and a list of them as ``ARRAY[…]``, a typed
array. psycopg2 speaks text only; there is no binary mode.

The result casters are keyed by type OIDs, which change when the extension is
dropped and created again or the database is restored: until
``register_types`` is called again, results of the types arrive as plain
strings. Parameters hold no OIDs (they name the type) and go on working.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import psycopg2.extensions as ext

from . import TYPES
from ._base import FlakeId
from ._catalog import TYPE_QUERY

__all__ = ["TypeInfo", "register_types"]


class TypeInfo(NamedTuple):
    """One registered type: its name, OIDs and the name to cast to (``regtype``)."""

    name: str
    oid: int
    array_oid: int
    regtype: str


# The type name each connection casts parameters to (``regtype`` text, schema-
# qualified when the extension's schema is not on the search_path), by type
# name. Written by register_types, read when a parameter is quoted.
_REGTYPES: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()


class _Adapter:
    """psycopg2's ISQLQuote protocol for a value: ``'<canonical text>'::<type>``."""

    def __init__(self, value: FlakeId) -> None:
        self._value = value
        self._type = value.TYPE_NAME

    def prepare(self, conn: Any) -> None:
        # Called with the connection the query runs on, before getquoted().
        self._type = _REGTYPES.get(conn, {}).get(self._value.TYPE_NAME, self._type)

    def getquoted(self) -> bytes:
        # Canonical text never holds a quote or a backslash: no escaping needed.
        return f"'{self._value}'::{self._type}".encode("ascii")

    def __conform__(self, proto: Any) -> Any:
        return self if proto is ext.ISQLQuote else None

    def __str__(self) -> str:
        return self.getquoted().decode("ascii")


for _cls in TYPES.values():
    ext.register_adapter(_cls, _Adapter)


def _caster(cls: type[FlakeId]) -> Any:
    def cast(value: str | None, _cursor: Any) -> FlakeId | None:
        return None if value is None else cls(value)

    return cast


def _rows(conn: Any) -> list[tuple[Any, ...]]:
    # Leave the connection as it was found: idle stays idle (the catalog
    # query's transaction is rolled back), a transaction in progress goes on.
    idle = not conn.autocommit and conn.info.transaction_status == ext.TRANSACTION_STATUS_IDLE
    with conn.cursor() as cur:
        cur.execute(TYPE_QUERY)
        rows = cur.fetchall()
    if idle:
        conn.rollback()
    return rows


def register_types(conn_or_curs: Any, globally: bool = False) -> dict[str, TypeInfo]:
    """Registers every pg_flake type installed in the database of ``conn_or_curs``
    (a psycopg2 connection or cursor); returns ``{type name: TypeInfo}``.

    One catalog query finds the types in the extension's schema (types not
    installed are skipped); their result casters are registered on the
    connection or cursor given, or for every connection with
    ``globally=True`` (only right when all of them use databases whose types
    have the same OIDs). An idle connection is left idle.

    The casters are keyed by the types' OIDs, given when ``CREATE EXTENSION``
    ran in that database; after ``DROP``/``CREATE EXTENSION`` or a restore,
    results of the types arrive as plain strings until this is called again.
    """
    if isinstance(conn_or_curs, ext.cursor):
        conn = conn_or_curs.connection
    elif isinstance(conn_or_curs, ext.connection):
        conn = conn_or_curs
    else:
        raise TypeError(
            "register_types() takes a psycopg2 connection or cursor, "
            f"not {type(conn_or_curs).__name__}"
        )
    scope = None if globally else conn_or_curs
    registered = {}
    regtypes = {}
    for name, oid, array_oid, regtype, _delimiter, _schema in _rows(conn):
        cls = TYPES[name]
        caster = ext.new_type((oid,), name.upper(), _caster(cls))
        ext.register_type(caster, scope)
        ext.register_type(ext.new_array_type((array_oid,), f"{name.upper()}[]", caster), scope)
        registered[name] = TypeInfo(name, oid, array_oid, regtype)
        regtypes[name] = regtype
    _REGTYPES[conn] = regtypes
    return registered
