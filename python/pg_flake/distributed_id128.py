"""DistributedId128 (Architect.Identities 2.1.1) on ``uuid``: 48 bits of
milliseconds since 1700-01-01 UTC, the version nibble 7, and a 75-bit random
R (12 bits, then bit 63 clear, then 63 bits). No SQL type of its own, so
plain functions on ``uuid.UUID`` (docs/sql-reference.md, "distributed_id128 (on uuid)";
reference implementation ``core/src/formats/distributed_id128.rs``).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import NamedTuple

from ._base import (
    TimeLike,
    datetime_of,
    field,
    time_out_of_range,
    unix_micros_of,
    value_out_of_range,
)

EPOCH_UNIX_MILLIS = -8_520_336_000_000  # 1700-01-01T00:00:00Z
MAX_TIMESTAMP_MS = (1 << 48) - 1
MAX_RANDOM = (1 << 75) - 1
VERSION = 7
TIME_RANGE = "1700-01-01 00:00:00+00 to 10619-08-04 05:31:50.655999+00"
VALUE_RANGE = "0 to 340282366920938463463374607431768211455"
_LOW_BITS = 63
_LOW_MASK = (1 << _LOW_BITS) - 1


class DistributedId128Parts(NamedTuple):
    """What ``distributed_id128_parts`` returns; ``time`` is the start of the millisecond."""

    unix_micros: int
    random: int

    @property
    def time(self) -> datetime:
        return datetime_of(self.unix_micros, "this distributed_id128")


def _uuid(value: uuid.UUID) -> int:
    if not isinstance(value, uuid.UUID):
        raise TypeError(f"a distributed_id128 is a uuid.UUID, not {type(value).__name__}")
    return value.int


def distributed_id128_parts(value: uuid.UUID) -> DistributedId128Parts:
    """``distributed_id128_parts``: any uuid decodes (the version nibble and bit 63 are ignored)."""
    n = _uuid(value)
    random = (n >> 64 & 0xFFF) << _LOW_BITS | n & _LOW_MASK
    return DistributedId128Parts(((n >> 80) + EPOCH_UNIX_MILLIS) * 1000, random)


def distributed_id128_from_parts(time: TimeLike, random: int) -> uuid.UUID:
    """``distributed_id128_from_parts``: R 0 … 2^75 − 1; the time rounds down to the millisecond."""
    ms = unix_micros_of(time) // 1000 - EPOCH_UNIX_MILLIS
    if not 0 <= ms <= MAX_TIMESTAMP_MS:
        raise time_out_of_range("distributed_id128", TIME_RANGE)
    random = field("distributed_id128", "random", random, 0, MAX_RANDOM)
    return uuid.UUID(
        int=ms << 80 | VERSION << 76 | (random >> _LOW_BITS) << 64 | random & _LOW_MASK
    )


def distributed_id128_from_time(time: TimeLike) -> uuid.UUID:
    """``distributed_id128_from_time``: the smallest value at that instant (R = 0)."""
    return distributed_id128_from_parts(time, 0)


def distributed_id128_to_numeric(value: uuid.UUID) -> int:
    """``distributed_id128_to_numeric``: the 128-bit integer."""
    return _uuid(value)


def distributed_id128_from_numeric(value: int) -> uuid.UUID:
    """``distributed_id128_from_numeric``: 0 … 2^128 − 1, else 22003."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"distributed_id128_from_numeric() takes an int, not {type(value).__name__}"
        )
    if not 0 <= value < 1 << 128:
        raise value_out_of_range("uuid", str(value), VALUE_RANGE)
    return uuid.UUID(int=value)
