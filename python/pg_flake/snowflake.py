"""Snowflake, Discord flavour: a positive ``bigint``
``ms << 22 | worker << 17 | process << 12 | sequence`` with ``ms`` the
milliseconds since an epoch (Discord's 2015-01-01 by default). No SQL type of
its own, so plain functions on ``int`` (docs/sql-reference.md, "Snowflake"; reference
implementation ``core/src/formats/snowflake.rs``).
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from ._base import (
    TimeLike,
    datetime_of,
    field,
    invalid_parameter,
    time_out_of_range,
    unix_micros_of,
    value_out_of_range,
)

DISCORD_EPOCH_MS = 1_420_070_400_000
MAX_MILLIS = (1 << 41) - 1
TIME_RANGE = (
    "the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)"
)


class SnowflakeParts(NamedTuple):
    """What ``snowflake_parts`` returns; ``time`` is the start of the millisecond."""

    unix_micros: int
    worker: int
    process: int
    sequence: int

    @property
    def time(self) -> datetime:
        return datetime_of(self.unix_micros, "this snowflake")


def _epoch(epoch_ms: int) -> int:
    if isinstance(epoch_ms, bool) or not isinstance(epoch_ms, int):
        raise TypeError(f"epoch_ms must be an int, not {type(epoch_ms).__name__}")
    if not 0 <= epoch_ms <= 253_402_300_799_999:
        raise invalid_parameter(
            f"snowflake epoch {epoch_ms} is outside 0 to 253402300799999 "
            "(milliseconds since 1970-01-01 00:00:00 UTC, up to 9999-12-31)"
        )
    return epoch_ms


def snowflake_parts(value: int, epoch_ms: int = DISCORD_EPOCH_MS) -> SnowflakeParts:
    """``snowflake_parts(bigint, epoch_ms)``; a negative value is no snowflake."""
    epoch_ms = _epoch(epoch_ms)
    if not 0 <= value < 1 << 63:
        raise value_out_of_range("snowflake", str(value), "0 to 9223372036854775807")
    return SnowflakeParts(
        ((value >> 22) + epoch_ms) * 1000, value >> 17 & 31, value >> 12 & 31, value & 4095
    )


def snowflake_from_parts(
    time: TimeLike, worker: int, process: int, sequence: int, epoch_ms: int = DISCORD_EPOCH_MS
) -> int:
    """``snowflake_from_parts``: worker and process 0–31, sequence 0–4095."""
    epoch_ms = _epoch(epoch_ms)
    worker = field("snowflake", "worker", worker, 0, 31)
    process = field("snowflake", "process", process, 0, 31)
    sequence = field("snowflake", "sequence", sequence, 0, 4095)
    millis = unix_micros_of(time) // 1000 - epoch_ms
    if not 0 <= millis <= MAX_MILLIS:
        raise time_out_of_range("snowflake", TIME_RANGE)
    return millis << 22 | worker << 17 | process << 12 | sequence


def snowflake_from_time(time: TimeLike, epoch_ms: int = DISCORD_EPOCH_MS) -> int:
    """``snowflake_from_time``: the smallest snowflake at that instant."""
    return snowflake_from_parts(time, 0, 0, 0, epoch_ms)
