"""Django (5.0 or later): model fields for pg_flake's native types.

``SnoField``, ``SiqField``, ``Kuid96Field``, ``DistributedIdField`` and
``FlaxIdField`` are columns of the SQL types ``sno``, ``siq``, ``kuid96``,
``distributed_id`` and ``flaxid`` whose values are the package's value classes
(:class:`~pg_flake.Sno`, …). They work with both of Django's PostgreSQL
drivers, psycopg 3 and psycopg2, and need no type OIDs and no driver
registration: values are sent as their canonical text and read from the
text the server returns (or from value objects, where the connection has
``register_types``), so they go on working after ``DROP``/``CREATE
EXTENSION``.

- ``generate=True`` makes the database generate the value: Django 5's
  ``db_default`` with the type's ``*_generate()`` function, read back with
  ``RETURNING`` (``SnoField(primary_key=True, generate=True)``; a
  ``SiqField`` needs ``kind=``). Such a field is not editable in forms, like
  an ``AutoField``.
- ``PgFlakeExtension()`` is the migration operation that creates the
  extension (Django's ``CreateExtension("pg_flake")``).
- Lookups: ``exact``, ``in``, ``gt``, ``gte``, ``lt``, ``lte``, ``range`` on the
  values (the btree index), and ``__time``, the ID's time (``T_timestamp``)
  as a ``DateTimeField``: ``id__time__gte=dt`` adds an index range condition
  on the column itself (``id >= <T_from_time(dt)>``, computed in Python) to
  the exact ``T_timestamp(id) >= dt``, so it is an index scan.
- Forms, the admin and serialisation use the canonical text.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.contrib.postgres.operations import CreateExtension
from django.core import exceptions
from django.db import models
from django.db.models import lookups
from django.utils import timezone

from . import DistributedId, FlaxId, Kuid96, Siq, Sno
from ._base import FlakeError, FlakeId
from .kuid import DEFAULT_INTERVAL, _interval

__all__ = [
    "DistributedIdField",
    "FlakeIdField",
    "FlakeIdFormField",
    "FlaxIdField",
    "Kuid96Field",
    "PgFlakeExtension",
    "SiqField",
    "SnoField",
    "TimeTransform",
]


class PgFlakeExtension(CreateExtension):
    """``CREATE EXTENSION IF NOT EXISTS pg_flake`` in a migration (reversed:
    ``DROP EXTENSION``); put it before the first model with a pg_flake field."""

    def __init__(self) -> None:
        self.name = "pg_flake"


def _value(cls: type[FlakeId], value: Any) -> FlakeId:
    """A value object from what a driver, a form or a fixture gives."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        return cls(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return cls.from_bytes(value)
    raise TypeError(f"a {cls.__name__} is given as its canonical text, not {type(value).__name__}")


class FlakeIdFormField(forms.CharField):
    """A text input that cleans to the value class (the model field's form field)."""

    def __init__(self, *, value_class: type[FlakeId], **kwargs: Any) -> None:
        self.value_class = value_class
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        return str(value) if isinstance(value, FlakeId) else value

    def to_python(self, value: Any) -> FlakeId | None:
        value = super().to_python(value)
        if value in self.empty_values:
            return None
        try:
            return _value(self.value_class, value.strip())
        except FlakeError as error:
            raise exceptions.ValidationError(error.message, code="invalid") from None


class FlakeIdField(models.Field):
    """Base of the fields: a column of ``value_class.TYPE_NAME``."""

    empty_strings_allowed = False
    value_class: type[FlakeId]
    #: Slack added to a time before it becomes an upper bound: at least the
    #: format's time unit, so that every ID of the unit holding the time sorts
    #: below the bound.
    time_slack = timedelta(milliseconds=1)

    def __init__(self, *args: Any, generate: bool = False, **kwargs: Any) -> None:
        self.generate = generate
        if generate:
            if "db_default" in kwargs:
                raise TypeError("give generate=True or db_default, not both")
            kwargs["db_default"] = self.generate_expression()
            kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"pg_flake {self.value_class.TYPE_NAME}"

    def generate_expression(self) -> models.Func:
        """What ``generate=True`` puts in ``db_default``: ``T_generate()``."""
        return models.Func(function=f"{self.value_class.TYPE_NAME}_generate", output_field=self)

    def timestamp_sql(self, column: str) -> str:
        """The SQL of the ID's time (``T_timestamp``), for ``__time``."""
        return f"{self.value_class.TYPE_NAME}_timestamp({column})"

    def from_time(self, time: datetime) -> FlakeId:
        """The smallest value at ``time`` (``T_from_time``), for ``__time`` bounds."""
        return self.value_class.from_time(time)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        if self.generate:
            kwargs.pop("db_default", None)
            if kwargs.get("editable", True) is False:
                del kwargs["editable"]
            elif "editable" not in kwargs:
                kwargs["editable"] = True
            kwargs["generate"] = True
        return name, path, args, kwargs

    def db_type(self, connection: Any) -> str:
        return self.value_class.TYPE_NAME

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> FlakeId | None:
        return None if value is None else _value(self.value_class, value)

    def to_python(self, value: Any) -> FlakeId | None:
        if value is None:
            return None
        try:
            return _value(self.value_class, value)
        except (FlakeError, TypeError) as error:
            raise exceptions.ValidationError(
                str(error), code="invalid", params={"value": value}
            ) from None

    def get_prep_value(self, value: Any) -> str | None:
        value = super().get_prep_value(value)
        return None if value is None else str(self.to_python(value))

    def value_to_string(self, obj: Any) -> str | None:
        value = self.value_from_object(obj)
        return None if value is None else str(value)

    def formfield(self, **kwargs: Any) -> Any:
        return super().formfield(
            **{"form_class": FlakeIdFormField, "value_class": self.value_class, **kwargs}
        )


class SnoField(FlakeIdField):
    """A ``sno`` column, as :class:`pg_flake.Sno`."""

    value_class = Sno
    time_slack = timedelta(milliseconds=4)


class SiqField(FlakeIdField):
    """A ``siq`` column, as :class:`pg_flake.Siq`; ``generate=True`` needs
    ``kind=`` (``siq_generate(kind)``)."""

    value_class = Siq
    # A tick is 1/65536 s and siq_timestamp rounds it down to the microsecond.
    time_slack = timedelta(microseconds=32)

    def __init__(self, *args: Any, kind: str | None = None, **kwargs: Any) -> None:
        if kwargs.get("generate") and not kind:
            raise TypeError("SiqField(generate=True) needs kind=, the kind siq_generate makes")
        self.kind = kind
        super().__init__(*args, **kwargs)

    def generate_expression(self) -> models.Func:
        return models.Func(
            models.Value(self.kind, output_field=models.TextField()),
            function="siq_generate",
            output_field=self,
        )

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        if self.kind is not None:
            kwargs["kind"] = self.kind
        return name, path, args, kwargs


class Kuid96Field(FlakeIdField):
    """A ``kuid96`` column, as :class:`pg_flake.Kuid96`.

    ``interval`` (5–10, default 8) is the neighborhood interval the IDs were
    made with, which the value does not store: ``__time`` reads the time with
    ``kuid96_timestamp(id, interval)`` (the ``IMMUTABLE`` form, so an
    expression index on it matches) and bounds the column with it.
    """

    value_class = Kuid96

    def __init__(self, *args: Any, interval: int = DEFAULT_INTERVAL, **kwargs: Any) -> None:
        self.interval = _interval(interval)  # 5 to 10, else FlakeError
        # Within a 2^interval-second window kuid96 sorts by node before time,
        # so an upper bound must lie in the next window.
        self.time_slack = timedelta(seconds=1 << interval)
        super().__init__(*args, **kwargs)

    def timestamp_sql(self, column: str) -> str:
        return f"kuid96_timestamp({column}, {int(self.interval)})"

    def from_time(self, time: datetime) -> FlakeId:
        return Kuid96.from_time(time, self.interval)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        if self.interval != DEFAULT_INTERVAL:
            kwargs["interval"] = self.interval
        return name, path, args, kwargs


class DistributedIdField(FlakeIdField):
    """A ``distributed_id`` column, as :class:`pg_flake.DistributedId`."""

    value_class = DistributedId


class FlaxIdField(FlakeIdField):
    """A ``flaxid`` column, as :class:`pg_flake.FlaxId`."""

    value_class = FlaxId


# --- __time --------------------------------------------------------------------------


@FlakeIdField.register_lookup
class TimeTransform(models.Transform):
    """``__time``: the ID's time, ``T_timestamp(id)``, a ``timestamptz``."""

    lookup_name = "time"
    output_field = models.DateTimeField()

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        column, params = compiler.compile(self.lhs)
        return self.lhs.output_field.timestamp_sql(column), params


def _aware(value: Any) -> datetime | None:
    """The instant a lookup's right-hand side means, or None where Python cannot tell."""
    if not isinstance(value, datetime):
        return None  # an expression, or what the database alone can read
    if timezone.is_naive(value):
        # USE_TZ = False: the connection's time zone is TIME_ZONE.
        return timezone.make_aware(value, timezone.get_default_timezone())
    return value


class _TimeBounds:
    """A lookup on ``__time`` that also bounds the column, for the index.

    The time condition stays as written (exact); the bounds only let the
    planner use the column's btree index: every ID whose time is ``>= t`` sorts
    at or above ``T_from_time(t)`` (the smallest ID at ``t``), and every ID
    whose time is ``<= t`` below ``T_from_time(t + time_slack)``. A bound
    Python cannot compute (an expression, a time outside the format's range)
    is left out.
    """

    lower = False  # the lookup implies time >= rhs (or rhs[0])
    upper = False  # the lookup implies time <= rhs (or rhs[-1])

    def _bounds(self) -> list[tuple[str, FlakeId]]:
        field = self.lhs.lhs.output_field  # type: ignore[attr-defined]
        rhs = self.rhs  # type: ignore[attr-defined]
        low, high = (rhs[0], rhs[-1]) if isinstance(rhs, (list, tuple)) else (rhs, rhs)
        bounds = []
        for wanted, op, time, slack in (
            (self.lower, ">=", _aware(low), timedelta(0)),
            (self.upper, "<", _aware(high), field.time_slack),
        ):
            if wanted and time is not None:
                try:
                    bounds.append((op, field.from_time(time + slack)))
                except (FlakeError, OverflowError):
                    pass
        return bounds

    def as_sql(self, compiler: Any, connection: Any) -> Any:
        sql, params = super().as_sql(compiler, connection)  # type: ignore[misc]
        bounds = self._bounds()
        if not bounds:
            return sql, params
        column, column_params = compiler.compile(self.lhs.lhs)  # type: ignore[attr-defined]
        parts, all_params = [], []
        for op, bound in bounds:
            parts.append(f"{column} {op} %s")
            all_params += [*column_params, str(bound)]
        parts.append(sql)
        return "(" + " AND ".join(parts) + ")", (*all_params, *params)


@TimeTransform.register_lookup
class TimeExact(_TimeBounds, lookups.Exact):
    lower = upper = True


@TimeTransform.register_lookup
class TimeGreaterThan(_TimeBounds, lookups.GreaterThan):
    lower = True


@TimeTransform.register_lookup
class TimeGreaterThanOrEqual(_TimeBounds, lookups.GreaterThanOrEqual):
    lower = True


@TimeTransform.register_lookup
class TimeLessThan(_TimeBounds, lookups.LessThan):
    upper = True


@TimeTransform.register_lookup
class TimeLessThanOrEqual(_TimeBounds, lookups.LessThanOrEqual):
    upper = True


@TimeTransform.register_lookup
class TimeRange(_TimeBounds, lookups.Range):
    lower = upper = True
