"""Flax ID (python-flax-id 1.1.0): 96 bits = 40 bits of milliseconds since
2015-01-01 and 56 random bits. Text: 16 characters over ``-0-9A-Z_a-z``
(docs/sql-reference.md, "flaxid"; reference implementation ``core/src/formats/flaxid.rs``).
"""

from __future__ import annotations

from ._base import FlakeId, TimeLike, field, invalid_text, time_out_of_range, unix_micros_of
from ._codec import Alphabet

EPOCH_MILLIS = 1_420_070_400_000  # 2015-01-01T00:00:00Z
MAX_MILLIS = (1 << 40) - 1
MAX_RANDOM = (1 << 56) - 1
TIME_RANGE = "2015-01-01 00:00:00+00 to 2049-11-03 19:53:47.775+00"

_FLAX64 = Alphabet("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
_EXPECTED_TEXT = "16 characters from '-', 0-9, A-Z, '_' and a-z"


class FlaxId(FlakeId):
    """A value of the SQL type ``flaxid``: ``FlaxId("17cQYV3E6XowHpdd")``."""

    __slots__ = ()
    TYPE_NAME = "flaxid"
    LEN = 12

    @classmethod
    def _parse(cls, text: str) -> bytes:
        n = _FLAX64.decode(text, 96, 16)
        if n is None:
            raise invalid_text("flaxid", text, _EXPECTED_TEXT)
        return n.to_bytes(12, "big")

    def _format(self) -> str:
        return _FLAX64.encode(self._int, 96, 16)

    @classmethod
    def from_parts(cls, time: TimeLike, random: int) -> FlaxId:
        """``flaxid_from_parts``: the time rounds down to the millisecond."""
        millis = unix_micros_of(time) // 1000 - EPOCH_MILLIS
        if not 0 <= millis <= MAX_MILLIS:
            raise time_out_of_range("flaxid", TIME_RANGE)
        random = field("flaxid", "random", random, 0, MAX_RANDOM)
        return cls._from_int(millis << 56 | random)

    @classmethod
    def from_time(cls, time: TimeLike) -> FlaxId:
        """``flaxid_from_time``: the smallest flaxid at that instant (random 0)."""
        return cls.from_parts(time, 0)

    @property
    def unix_micros(self) -> int:
        return (EPOCH_MILLIS + (self._int >> 56)) * 1000

    @property
    def random(self) -> int:
        return self._int & MAX_RANDOM
