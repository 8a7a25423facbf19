"""The k-ordered uid (fogfish/uid 1.3.5): Erlang's timestamp triple (A
megaseconds, B seconds, C microseconds of which only ``C >> 10`` is kept, so
the unit is 1024 µs) and a 14-bit sequence. kuid64 is a positive ``bigint``
(plain functions here); kuid96 is the SQL type ``kuid96``, which carries a
32-bit node inside B at a place given by the neighborhood interval I (5–10,
not stored in the value; the extension's default is 8). docs/sql-reference.md, "k-ordered
uid"; reference implementation ``core/src/formats/kuid.rs``.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from ._base import (
    FlakeId,
    TimeLike,
    datetime_of,
    field,
    invalid_parameter,
    invalid_text,
    time_out_of_range,
    unix_micros_of,
    value_out_of_range,
)
from ._codec import Alphabet

DEFAULT_INTERVAL = 8
MAX_SEQ = (1 << 14) - 1
KUID64_TIME_RANGE = "1970-01-01 00:00:00+00 to 18584-01-10 03:33:19.999999+00"
KUID96_TIME_RANGE = "1970-01-01 00:00:00+00 to 35198-01-19 07:06:39.999999+00"
KUID64_VALUE_RANGE = "0 to 9223372036854775807"

_KUID64 = Alphabet(".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
_KUID64_EXPECTED = (
    "11 characters from '.', 0-9, A-Z, '_' and a-z whose last two padding bits are zero"
)
_KUID96_EXPECTED = "16 characters from '.', 0-9, A-Z, '_' and a-z"


class Kuid64Parts(NamedTuple):
    """What ``kuid64_parts`` returns; ``microseconds`` is ``(C >> 10) << 10``."""

    unix_micros: int
    megaseconds: int
    seconds: int
    microseconds: int
    seq: int

    @property
    def time(self) -> datetime:
        return datetime_of(self.unix_micros, "this kuid64")


class Kuid96Parts(NamedTuple):
    """What ``kuid96_parts`` returns for one interval."""

    unix_micros: int
    node: int
    seq: int

    @property
    def time(self) -> datetime:
        return datetime_of(self.unix_micros, "this kuid96")


def _local_bits(
    time: TimeLike, seq: int, type_name: str, megaseconds_limit: int, accepted: str
) -> int:
    """The kuid64 layout of a time (rounded down to its 1024 µs unit) and seq."""
    micros = unix_micros_of(time)
    seconds = micros // 1_000_000
    if micros < 0 or seconds // 1_000_000 >= megaseconds_limit:
        raise time_out_of_range(type_name, accepted)
    seq = field(type_name, "seq", seq, 0, MAX_SEQ)
    units = micros % 1_000_000 >> 10
    return seconds // 1_000_000 << 44 | seconds % 1_000_000 << 24 | units << 14 | seq


def _fields(local: int) -> tuple[int, int, int, int]:
    """(megaseconds, seconds, units, seq) of the kuid64 layout, every field as stored."""
    return local >> 44, local >> 24 & 0xF_FFFF, local >> 14 & 0x3FF, local & MAX_SEQ


def _micros(megaseconds: int, seconds: int, units: int) -> int:
    return (megaseconds * 1_000_000 + seconds) * 1_000_000 + (units << 10)


def _kuid64_bits(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"a kuid64 is an int, not {type(value).__name__}")
    if not 0 <= value < 1 << 63:
        raise value_out_of_range("kuid64", str(value), KUID64_VALUE_RANGE)
    return value


def kuid64_encode(value: int) -> str:
    """``kuid64_encode``: the 11-character text."""
    return _KUID64.encode(_kuid64_bits(value), 64, 11)


def kuid64_decode(text: str) -> int:
    """``kuid64_decode``: strict; a value with the top bit set is no positive bigint."""
    value = _KUID64.decode(text, 64, 11)
    if value is None:
        raise invalid_text("kuid64", text, _KUID64_EXPECTED)
    if value >> 63:
        raise value_out_of_range("kuid64", text, KUID64_VALUE_RANGE)
    return value


def kuid64_parts(value: int) -> Kuid64Parts:
    """``kuid64_parts``: the time (start of its 1024 µs unit) and every field."""
    megaseconds, seconds, units, seq = _fields(_kuid64_bits(value))
    return Kuid64Parts(_micros(megaseconds, seconds, units), megaseconds, seconds, units << 10, seq)


def kuid64_from_parts(time: TimeLike, seq: int) -> int:
    """``kuid64_from_parts``: seq 0–16383; the time rounds down to its 1024 µs unit."""
    return _local_bits(time, seq, "kuid64", 1 << 19, KUID64_TIME_RANGE)


def kuid64_from_time(time: TimeLike) -> int:
    """``kuid64_from_time``: the smallest kuid64 at that instant."""
    return kuid64_from_parts(time, 0)


def kuid_node_fingerprint(name: str) -> int:
    """``kuid_node_fingerprint``: the ELF hash the reference gets from Erlang's
    ``phash2`` of the node atom, over the name's Latin-1 bytes (a character
    above U+00FF counts as its UTF-8 bytes, as in the extension)."""
    h = 0
    for c in name:
        for byte in [ord(c)] if ord(c) < 256 else c.encode("utf-8"):
            h = ((h << 4) + byte) & 0xFFFF_FFFF
            g = h & 0xF000_0000
            if g:
                h ^= g >> 24
                h ^= g
    return h


def _interval(interval: int) -> int:
    if isinstance(interval, bool) or not isinstance(interval, int):
        raise TypeError(f"a kuid interval is an int, not {type(interval).__name__}")
    if not 5 <= interval <= 10:
        raise invalid_parameter(f"kuid interval {interval} is outside 5 to 10")
    return interval


def _insert_node(local: int, node: int, interval: int) -> int:
    low = 24 + interval
    return (local >> low) << (low + 32) | node << low | local & ((1 << low) - 1)


def _remove_node(value: int, interval: int) -> tuple[int, int]:
    low = 24 + interval
    local = (value >> (low + 32)) << low | value & ((1 << low) - 1)
    return local, value >> low & 0xFFFF_FFFF


class Kuid96(FlakeId):
    """A value of the SQL type ``kuid96``: ``Kuid96(".5.tXa0xODNvPN.0")``.

    Where the node sits depends on the interval, which the value does not
    store: ``time``, ``unix_micros`` and ``node`` read it with the default
    interval 8, ``parts(interval)`` with any other.
    """

    __slots__ = ()
    TYPE_NAME = "kuid96"
    LEN = 12

    @classmethod
    def _parse(cls, text: str) -> bytes:
        n = _KUID64.decode(text, 96, 16)
        if n is None:
            raise invalid_text("kuid96", text, _KUID96_EXPECTED)
        return n.to_bytes(12, "big")

    def _format(self) -> str:
        return _KUID64.encode(self._int, 96, 16)

    @classmethod
    def from_parts(
        cls, time: TimeLike, node: int, seq: int, interval: int = DEFAULT_INTERVAL
    ) -> Kuid96:
        """``kuid96_from_parts``: node 0 … 2^32 − 1, seq 0–16383."""
        node = field("kuid96", "node", node, 0, 0xFFFF_FFFF)
        interval = _interval(interval)
        local = _local_bits(time, seq, "kuid96", 1 << 20, KUID96_TIME_RANGE)
        return cls._from_int(_insert_node(local, node, interval))

    @classmethod
    def from_time(cls, time: TimeLike, interval: int = DEFAULT_INTERVAL) -> Kuid96:
        """``kuid96_from_time``: the smallest kuid96 at that instant (node 0, seq 0)."""
        return cls.from_parts(time, 0, 0, interval)

    @classmethod
    def globalize(cls, kuid64: int, node: int, interval: int = DEFAULT_INTERVAL) -> Kuid96:
        """``kuid96_globalize``: a kuid64 with a node added."""
        node = field("kuid96", "node", node, 0, 0xFFFF_FFFF)
        interval = _interval(interval)
        return cls._from_int(_insert_node(_kuid64_bits(kuid64), node, interval))

    def localize(self, interval: int = DEFAULT_INTERVAL) -> int:
        """``kuid96_localize``: the kuid64 without its node."""
        local, _ = _remove_node(self._int, _interval(interval))
        if local >> 63:
            raise time_out_of_range("kuid64", KUID64_TIME_RANGE)
        return local

    def parts(self, interval: int = DEFAULT_INTERVAL) -> Kuid96Parts:
        """``kuid96_parts(id, interval)``: time, node and seq read with that interval."""
        local, node = _remove_node(self._int, _interval(interval))
        megaseconds, seconds, units, seq = _fields(local)
        return Kuid96Parts(_micros(megaseconds, seconds, units), node, seq)

    @property
    def unix_micros(self) -> int:
        """Start of the 1024 µs unit, read with the default interval 8."""
        return self.parts().unix_micros

    @property
    def node(self) -> int:
        """The node fingerprint, read with the default interval 8."""
        return self.parts().node

    @property
    def seq(self) -> int:
        """The sequence (the low 14 bits, whatever the interval)."""
        return self._int & MAX_SEQ
