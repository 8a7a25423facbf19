"""SQLAlchemy 2: column types for pg_flake's native types.

``SnoType``, ``SiqType``, ``DistributedIdType``, ``FlaxIdType`` and
``Kuid96Type`` bind and return the value classes. They need no driver
registration and no type OIDs: values travel as canonical text with a cast
to the SQL type (``%(id)s::sno`` with psycopg, ``$1::sno`` with asyncpg,
``'…'::sno`` in literal SQL), and results are converted whether the driver
returns text, bytes or (after ``register_types``) value objects. A bound
value may also be the canonical text, checked before it is sent.

Importing this module registers the type names in the PostgreSQL dialect's
``ischema_names``, so reflection (``Table(..., autoload_with=engine)``) gives
these types; :func:`register` does the same explicitly. The types render
their bare names, so the extension's schema must be on the ``search_path``
(as it is after a plain ``CREATE EXTENSION pg_flake``).
"""

from __future__ import annotations

from typing import Any, Callable

from sqlalchemy.dialects.postgresql import base as postgresql_base
from sqlalchemy.types import UserDefinedType

from . import DistributedId, FlaxId, Kuid96, Siq, Sno
from ._base import FlakeId

__all__ = [
    "DistributedIdType",
    "FlakeIdType",
    "FlaxIdType",
    "Kuid96Type",
    "SiqType",
    "SnoType",
    "TYPE_ANNOTATION_MAP",
    "register",
]


class FlakeIdType(UserDefinedType):
    """Base of the column types; ``value_class`` is the Python value class.

    SQLAlchemy reads ``cache_ok`` from each class itself, so every subclass
    states it: the types have no state, so compiled statements may be cached.
    """

    # Dialects that render bind casts (psycopg, asyncpg) write %(x)s::sno.
    render_bind_cast = True
    value_class: type[FlakeId]

    def get_col_spec(self, **kw: Any) -> str:
        return self.value_class.TYPE_NAME

    @property
    def python_type(self) -> type[FlakeId]:
        return self.value_class

    def _text(self, value: Any) -> str:
        cls = self.value_class
        return str(value if isinstance(value, cls) else cls(value))

    def bind_processor(self, dialect: Any) -> Callable[[Any], str | None]:
        def process(value: Any) -> str | None:
            return None if value is None else self._text(value)

        return process

    def literal_processor(self, dialect: Any) -> Callable[[Any], str]:
        name = self.value_class.TYPE_NAME

        def process(value: Any) -> str:
            # Canonical text never holds a quote: no escaping needed.
            return f"'{self._text(value)}'::{name}"

        return process

    def result_processor(self, dialect: Any, coltype: Any) -> Callable[[Any], Any]:
        cls = self.value_class

        def process(value: Any) -> Any:
            if value is None or isinstance(value, cls):
                return value
            if isinstance(value, str):
                return cls(value)
            return cls.from_bytes(value)

        return process


class SnoType(FlakeIdType):
    """The SQL type ``sno``, as :class:`pg_flake.Sno`."""

    cache_ok = True
    value_class = Sno


class SiqType(FlakeIdType):
    """The SQL type ``siq``, as :class:`pg_flake.Siq`."""

    cache_ok = True
    value_class = Siq


class DistributedIdType(FlakeIdType):
    """The SQL type ``distributed_id``, as :class:`pg_flake.DistributedId`."""

    cache_ok = True
    value_class = DistributedId


class FlaxIdType(FlakeIdType):
    """The SQL type ``flaxid``, as :class:`pg_flake.FlaxId`."""

    cache_ok = True
    value_class = FlaxId


class Kuid96Type(FlakeIdType):
    """The SQL type ``kuid96``, as :class:`pg_flake.Kuid96`."""

    cache_ok = True
    value_class = Kuid96


_COLUMN_TYPES = (SnoType, SiqType, DistributedIdType, FlaxIdType, Kuid96Type)

#: For a declarative base: ``type_annotation_map = TYPE_ANNOTATION_MAP`` lets
#: ``Mapped[Sno]`` mean a ``sno`` column.
TYPE_ANNOTATION_MAP: dict[type, type[FlakeIdType]] = {t.value_class: t for t in _COLUMN_TYPES}


def register() -> None:
    """Registers the SQL type names for reflection (idempotent; done on import)."""
    postgresql_base.ischema_names.update({t.value_class.TYPE_NAME: t for t in _COLUMN_TYPES})


register()
