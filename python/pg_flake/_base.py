"""What every value class shares: the stored bytes, ordering, hashing, errors
and time conversions.

A value holds exactly the big-endian bytes PostgreSQL stores, which are also
its binary wire format, so byte order is sort order (docs/sql-reference.md, "What every
native type has").
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, ClassVar, Union

UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

#: A time argument: an aware ``datetime``, or an ``int`` of microseconds since
#: 1970-01-01 UTC (for instants past year 9999, which ``datetime`` cannot hold).
TimeLike = Union[datetime, int]


class FlakeError(ValueError):
    """A value the extension would reject, with the message it would give.

    ``sqlstate`` is the SQLSTATE the extension raises for the same mistake
    (docs/sql-reference.md, "Errors"); ``detail`` the accepted form where there is one.
    """

    __module__ = "pg_flake"  # where users import it from

    def __init__(self, message: str, sqlstate: str, detail: str | None = None):
        super().__init__(message if detail is None else f"{message}. {detail}")
        self.message = message
        self.sqlstate = sqlstate
        self.detail = detail


def invalid_text(type_name: str, text: str, expected: str) -> FlakeError:
    return FlakeError(
        f'invalid input syntax for type {type_name}: "{text}"', "22P02", f"Expected {expected}."
    )


def invalid_binary(type_name: str, expected: str, actual: int) -> FlakeError:
    return FlakeError(
        f"invalid binary value for type {type_name}: expected {expected}, got {actual} bytes",
        "22P03",
    )


def value_out_of_range(type_name: str, text: str, accepted: str) -> FlakeError:
    return FlakeError(
        f'value "{text}" is out of range for type {type_name}',
        "22003",
        f"Accepted values: {accepted}.",
    )


def time_out_of_range(type_name: str, accepted: str) -> FlakeError:
    return FlakeError(f"timestamp out of range for type {type_name}: accepted {accepted}", "22008")


def invalid_parameter(message: str) -> FlakeError:
    return FlakeError(message, "22023")


def field(type_name: str, name: str, value: int, low: int, high: int) -> int:
    """``value`` if it is an integer in ``low ..= high``, else the extension's 22003."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{type_name} field {name!r} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise FlakeError(
            f'{type_name} field "{name}" out of range: {value} (accepted: {low} to {high})',
            "22003",
        )
    return value


def unix_micros_of(time: TimeLike) -> int:
    """Microseconds since 1970-01-01 UTC of a time argument.

    A naive ``datetime`` is refused: which zone it means is the caller's
    knowledge, and guessing would shift every ID made from it.
    """
    if isinstance(time, datetime):
        if time.tzinfo is None or time.utcoffset() is None:
            raise ValueError(
                f"naive datetime {time.isoformat()}: give an aware datetime "
                "(for instance with tzinfo=timezone.utc)"
            )
        delta = time - UNIX_EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(time, int) and not isinstance(time, bool):
        return time
    raise TypeError(
        "a time is an aware datetime or an int of microseconds since 1970-01-01 UTC, "
        f"not {type(time).__name__}"
    )


def datetime_of(unix_micros: int, what: str) -> datetime:
    """The aware UTC datetime of ``unix_micros``; Python's datetime ends at year 9999."""
    try:
        return UNIX_EPOCH + timedelta(microseconds=unix_micros)
    except OverflowError:
        raise OverflowError(
            f"the time of {what} lies after 9999-12-31, beyond Python's datetime; "
            "use unix_micros (microseconds since 1970-01-01 UTC)"
        ) from None


class FlakeId:
    """Base of the value classes: immutable, ordered and hashed by the stored bytes."""

    __module__ = "pg_flake"
    __slots__ = ("_bytes",)
    _bytes: bytes

    #: The SQL type name.
    TYPE_NAME: ClassVar[str]
    #: The stored length in bytes.
    LEN: ClassVar[int]

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(
                f"{type(self).__name__}() takes the canonical text (str), not "
                f"{type(text).__name__}; use {type(self).__name__}.from_bytes() for bytes"
            )
        object.__setattr__(self, "_bytes", self._parse(text))

    @classmethod
    def _parse(cls, text: str) -> bytes:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def _format(self) -> str:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    @classmethod
    def _check_bytes(cls, data: bytes) -> None:
        """Refuses bytes of the right length that are no value of the type."""

    @classmethod
    def _new(cls, data: bytes):
        value = object.__new__(cls)
        object.__setattr__(value, "_bytes", data)
        return value

    @classmethod
    def _from_int(cls, value: int):
        return cls._new(value.to_bytes(cls.LEN, "big"))

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview):
        """The value of its stored bytes (the binary wire format); strict like ``bytea::T``."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{cls.__name__}.from_bytes() takes bytes, not {type(data).__name__}")
        data = bytes(data)
        if len(data) != cls.LEN:
            raise invalid_binary(cls.TYPE_NAME, f"exactly {cls.LEN}", len(data))
        cls._check_bytes(data)
        return cls._new(data)

    @property
    def _int(self) -> int:
        return int.from_bytes(self._bytes, "big")

    @property
    def unix_micros(self) -> int:
        """Start of the value's time unit, in microseconds since 1970-01-01 UTC."""
        raise NotImplementedError  # pragma: no cover

    @property
    def time(self) -> datetime:
        """Start of the value's time unit as an aware UTC datetime (as ``T_timestamp``)."""
        return datetime_of(self.unix_micros, f"{self!r}")

    def __bytes__(self) -> bytes:
        return self._bytes

    def __str__(self) -> str:
        return self._format()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._format()!r})"

    def __hash__(self) -> int:
        return hash((self.TYPE_NAME, self._bytes))

    def __eq__(self, other: Any) -> bool:
        if type(other) is type(self):
            return self._bytes == other._bytes
        return NotImplemented

    def __lt__(self, other: Any) -> bool:
        if type(other) is type(self):
            return self._bytes < other._bytes
        return NotImplemented

    def __le__(self, other: Any) -> bool:
        if type(other) is type(self):
            return self._bytes <= other._bytes
        return NotImplemented

    def __gt__(self, other: Any) -> bool:
        if type(other) is type(self):
            return self._bytes > other._bytes
        return NotImplemented

    def __ge__(self, other: Any) -> bool:
        if type(other) is type(self):
            return self._bytes >= other._bytes
        return NotImplemented

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self):
        return (type(self).from_bytes, (self._bytes,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: Any):
        return self
