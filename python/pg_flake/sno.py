"""sno (muyo/sno v1.2.1): 80 bits = 39 bits of 4 ms units since 2010-01-01
and a tick-tock bit, a metabyte, a 16-bit partition and a 16-bit sequence.
Text: 16 characters over ``23456789abcdefghijklmnopqrstuvwx`` (docs/sql-reference.md, "sno";
reference implementation ``core/src/formats/sno.rs``).
"""

from __future__ import annotations

from ._base import FlakeId, TimeLike, field, invalid_text, time_out_of_range, unix_micros_of
from ._codec import Alphabet

EPOCH_MICROS = 1_262_304_000_000_000  # 2010-01-01T00:00:00Z
UNIT_MICROS = 4_000
MAX_UNITS = (1 << 39) - 1
TIME_RANGE = "2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00"

_SNO32 = Alphabet("23456789abcdefghijklmnopqrstuvwx")
_EXPECTED_TEXT = "16 characters from 2-9 and a-x"


def _units_at(time: TimeLike) -> int:
    since = unix_micros_of(time) - EPOCH_MICROS
    if since < 0 or since // UNIT_MICROS > MAX_UNITS:
        raise time_out_of_range("sno", TIME_RANGE)
    return since // UNIT_MICROS


class Sno(FlakeId):
    """A value of the SQL type ``sno``: ``Sno("brpk4q72xwf2m63l")``."""

    __slots__ = ()
    TYPE_NAME = "sno"
    LEN = 10

    @classmethod
    def _parse(cls, text: str) -> bytes:
        n = _SNO32.decode(text, 80, 16)
        if n is None:
            raise invalid_text("sno", text, _EXPECTED_TEXT)
        return n.to_bytes(10, "big")

    def _format(self) -> str:
        return _SNO32.encode(self._int, 80, 16)

    @classmethod
    def from_parts(
        cls, time: TimeLike, meta: int, partition: int, sequence: int, tick_tock: bool = False
    ) -> Sno:
        """``sno_from_parts``: every field range-checked; the time rounds down to its 4 ms unit."""
        units = _units_at(time)
        meta = field("sno", "meta", meta, 0, 255)
        partition = field("sno", "partition", partition, 0, 65535)
        sequence = field("sno", "sequence", sequence, 0, 65535)
        head = units << 1 | bool(tick_tock)
        return cls._from_int(head << 40 | meta << 32 | partition << 16 | sequence)

    @classmethod
    def from_time(cls, time: TimeLike) -> Sno:
        """``sno_from_time``: the smallest sno at that instant."""
        return cls.from_parts(time, 0, 0, 0)

    @property
    def units(self) -> int:
        """4 ms units since 2010-01-01."""
        return self._int >> 41

    @property
    def unix_micros(self) -> int:
        return EPOCH_MICROS + self.units * UNIT_MICROS

    @property
    def tick_tock(self) -> bool:
        return bool(self._bytes[4] & 1)

    @property
    def meta(self) -> int:
        return self._bytes[5]

    @property
    def partition(self) -> int:
        return int.from_bytes(self._bytes[6:8], "big")

    @property
    def sequence(self) -> int:
        return int.from_bytes(self._bytes[8:10], "big")
