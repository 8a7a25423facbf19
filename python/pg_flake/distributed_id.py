"""DistributedId (Architect.Identities 2.1.1): the non-negative integer
``id = ts · 2^48 + r`` with ``ts`` 45 bits of milliseconds since 1900-01-01
UTC and ``r`` 48 random bits, stored in 12 bytes; valid values 0 … 10^28 − 1.
Text: the plain decimal integer (docs/sql-reference.md, "distributed_id"; reference
implementation ``core/src/formats/distributed_id.rs``).
"""

from __future__ import annotations

from ._base import (
    FlakeId,
    TimeLike,
    field,
    invalid_text,
    time_out_of_range,
    unix_micros_of,
    value_out_of_range,
)

EPOCH_UNIX_MILLIS = -2_208_988_800_000  # 1900-01-01T00:00:00Z
MAX_TIMESTAMP_MS = (1 << 45) - 1
MAX_RANDOM = (1 << 48) - 1
MAX_VALUE = 10**28 - 1
TIME_RANGE = "1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00"
VALUE_RANGE = "0 to 9999999999999999999999999999"

_C_SPACE = " \t\n\r\x0b\x0c"  # what PostgreSQL's integer input skips around a number
_DIGITS = frozenset("0123456789")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class DistributedId(FlakeId):
    """A value of the SQL type ``distributed_id``:
    ``DistributedId("1088824355131185736905670087")``."""

    __slots__ = ()
    TYPE_NAME = "distributed_id"
    LEN = 12

    @classmethod
    def _parse(cls, text: str) -> bytes:
        digits = text.strip(_C_SPACE)
        if not digits or not set(digits) <= _DIGITS:
            raise invalid_text("distributed_id", text, "1 to 28 decimal digits")
        if len(digits.lstrip("0")) > 28:
            raise value_out_of_range("distributed_id", text, VALUE_RANGE)
        return int(digits).to_bytes(12, "big")

    def _format(self) -> str:
        return str(self._int)

    @classmethod
    def _check_bytes(cls, data: bytes) -> None:
        value = int.from_bytes(data, "big")
        if value > MAX_VALUE:
            raise value_out_of_range("distributed_id", str(value), VALUE_RANGE)

    @classmethod
    def from_int(cls, value: int) -> DistributedId:
        """``numeric::distributed_id``: 0 … 10^28 − 1."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"DistributedId.from_int() takes an int, not {type(value).__name__}")
        if not 0 <= value <= MAX_VALUE:
            raise value_out_of_range("distributed_id", str(value), VALUE_RANGE)
        return cls._from_int(value)

    @classmethod
    def from_parts(cls, time: TimeLike, random: int) -> DistributedId:
        """``distributed_id_from_parts``: the time rounds down to the millisecond."""
        ms = unix_micros_of(time) // 1000 - EPOCH_UNIX_MILLIS
        if not 0 <= ms <= MAX_TIMESTAMP_MS:
            raise time_out_of_range("distributed_id", TIME_RANGE)
        random = field("distributed_id", "random", random, 0, MAX_RANDOM)
        return cls._from_int(ms << 48 | random)

    @classmethod
    def from_time(cls, time: TimeLike) -> DistributedId:
        """``distributed_id_from_time``: the smallest value at that instant (random 0)."""
        return cls.from_parts(time, 0)

    @classmethod
    def from_hex(cls, text: str) -> DistributedId:
        """``distributed_id_from_hex``: exactly 26 hexadecimal digits, any case."""
        if len(text) != 26 or not set(text) <= _HEX_DIGITS:
            raise invalid_text("distributed_id", text, "exactly 26 hexadecimal digits")
        value = int(text, 16)
        if value > MAX_VALUE:
            raise value_out_of_range("distributed_id", text, VALUE_RANGE)
        return cls._from_int(value)

    @classmethod
    def from_alphanumeric(cls, text: str) -> DistributedId:
        """``alphanumeric_decode_distributed_id``: 16 base62 characters."""
        from .alphanumeric import decode_distributed_id

        return cls.from_int(decode_distributed_id(text))

    @property
    def value(self) -> int:
        """The integer (``distributed_id::numeric``)."""
        return self._int

    def __int__(self) -> int:
        return self._int

    @property
    def timestamp_ms(self) -> int:
        """``id >> 48``: milliseconds since 1900-01-01 UTC."""
        return self._int >> 48

    @property
    def random(self) -> int:
        return self._int & MAX_RANDOM

    @property
    def unix_micros(self) -> int:
        return (self.timestamp_ms + EPOCH_UNIX_MILLIS) * 1000

    @property
    def hex(self) -> str:
        """``distributed_id_to_hex``: 26 upper-case digits (a ``00`` byte, then the 12 bytes)."""
        return f"{self._int:026X}"

    @property
    def alphanumeric(self) -> str:
        """``alphanumeric_encode(distributed_id)``: 16 base62 characters."""
        from .alphanumeric import encode_distributed_id

        return encode_distributed_id(self._int)
