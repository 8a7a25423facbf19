"""The leased formats: units on the time line and the assembly of an ID
through the value classes (used by :mod:`pg_flake.lease`)."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from ._lease_source import _NS_PER_S, FORMATS, Lease, LeaseError
from .kuid import Kuid96
from .siq import KINDS, Siq, siq_domain_hash
from .sno import EPOCH_MICROS as SNO_EPOCH_MICROS
from .sno import UNIT_MICROS as SNO_UNIT_MICROS
from .sno import Sno
from .snowflake import snowflake_from_parts

T = TypeVar("T")


# A unit is an int that grows with time; start_ns(u) is the first whole
# nanosecond inside it (the ceiling of its exact start), so "unit u lies
# inside [a, b)" is exactly start_ns(u) >= a and start_ns(next(u)) <= b.


class _Format(Generic[T]):
    name: str

    def unit_at(self, ns: int) -> int:
        raise NotImplementedError  # pragma: no cover

    def start_ns(self, unit: int) -> int:
        raise NotImplementedError  # pragma: no cover

    def next_unit(self, unit: int) -> int:
        return unit + 1

    def max_sequence(self, kind: str) -> int:
        raise NotImplementedError  # pragma: no cover

    def build(self, unit: int, sequence: int, kind: str) -> T:
        raise NotImplementedError  # pragma: no cover

    def first_unit_from(self, ns: int) -> int:
        """The first unit that starts at or after ``ns``."""
        unit = self.unit_at(ns)
        return unit if self.start_ns(unit) >= ns else self.next_unit(unit)


class _SnoFormat(_Format[Sno]):
    """4 ms units since 2010; partition = node << 8 | process; tick-tock 0."""

    name = "sno"

    def __init__(self, lease: Lease, meta: int = 0):
        self.partition = lease.node << 8 | lease.process
        self.meta = meta
        Sno.from_parts(SNO_EPOCH_MICROS, meta, self.partition, 0)  # checks the fields now

    def unit_at(self, ns: int) -> int:
        return (ns // 1000 - SNO_EPOCH_MICROS) // SNO_UNIT_MICROS

    def start_ns(self, unit: int) -> int:
        return (SNO_EPOCH_MICROS + unit * SNO_UNIT_MICROS) * 1000

    def max_sequence(self, kind: str) -> int:
        return 65535

    def build(self, unit: int, sequence: int, kind: str) -> Sno:
        return Sno.from_parts(self.start_ns(unit) // 1000, self.meta, self.partition, sequence)


class _SnowflakeFormat(_Format[int]):
    """Milliseconds since the lease's epoch; worker = node."""

    name = "snowflake"

    def __init__(self, lease: Lease):
        if lease.epoch_ms is None:
            raise LeaseError(f"lease {lease.lease_id} of snowflake has no epoch_ms")
        self.epoch_ms = lease.epoch_ms
        self.worker = lease.node
        self.process = lease.process
        snowflake_from_parts(self.epoch_ms * 1000, self.worker, self.process, 0, self.epoch_ms)

    def unit_at(self, ns: int) -> int:
        return ns // 1_000_000 - self.epoch_ms

    def start_ns(self, unit: int) -> int:
        return (self.epoch_ms + unit) * 1_000_000

    def max_sequence(self, kind: str) -> int:
        return 4095

    def build(self, unit: int, sequence: int, kind: str) -> int:
        return snowflake_from_parts(
            self.start_ns(unit) // 1000, self.worker, self.process, sequence, self.epoch_ms
        )


class _Kuid96Format(_Format[Kuid96]):
    """1024 µs units within each second (the last one of a second is 576 µs);
    a unit is ``second << 10 | microseconds >> 10``."""

    name = "kuid96"

    def __init__(self, lease: Lease):
        if lease.kuid_interval is None:
            raise LeaseError(f"lease {lease.lease_id} of kuid96 has no kuid_interval")
        self.interval = lease.kuid_interval
        self.node = lease.node
        Kuid96.from_parts(0, self.node, 0, self.interval)

    def unit_at(self, ns: int) -> int:
        micros = ns // 1000
        return (micros // 1_000_000) << 10 | (micros % 1_000_000) >> 10

    def start_ns(self, unit: int) -> int:
        return ((unit >> 10) * 1_000_000 + (unit & 1023) * 1024) * 1000

    def next_unit(self, unit: int) -> int:
        # 999_424 µs starts the last unit of a second.
        return unit + 1 if unit & 1023 < 999_424 >> 10 else ((unit >> 10) + 1) << 10

    def max_sequence(self, kind: str) -> int:
        return (1 << 14) - 1

    def build(self, unit: int, sequence: int, kind: str) -> Kuid96:
        return Kuid96.from_parts(self.start_ns(unit) // 1000, self.node, sequence, self.interval)


class _SiqFormat(_Format[Siq]):
    """Ticks of 1/65536 s; shard = process; the node in the domain hash's top
    byte; a serial per kind per tick."""

    name = "siq"

    def __init__(self, lease: Lease, domain: str = "", kind: str = "user"):
        self.shard = lease.process
        self.domain_hash = (siq_domain_hash(domain) & 0x00FF_FFFF) | lease.node << 24
        Siq.from_parts_ticks(0, self.shard, self.domain_hash, kind, 0)  # checks kind, fields
        self.kind = kind.lower()

    def unit_at(self, ns: int) -> int:
        return ns * 65536 // _NS_PER_S

    def start_ns(self, unit: int) -> int:
        return -(-unit * _NS_PER_S // 65536)

    def max_sequence(self, kind: str) -> int:
        if kind not in KINDS:
            Siq.from_parts_ticks(0, 0, 0, kind, 0)  # the extension's 22023 for an unknown kind
        return (1 << (16 - KINDS[kind][1])) - 1

    def build(self, unit: int, sequence: int, kind: str) -> Siq:
        return Siq.from_parts_ticks(unit, self.shard, self.domain_hash, kind, sequence)


def _format_for(lease: Lease, options: dict[str, Any]) -> _Format[Any]:
    if lease.format == "sno":
        return _SnoFormat(lease, **options)
    if lease.format == "snowflake":
        return _SnowflakeFormat(lease, **options)
    if lease.format == "kuid96":
        return _Kuid96Format(lease, **options)
    if lease.format == "siq":
        return _SiqFormat(lease, **options)
    raise LeaseError(f'no leased generator for format "{lease.format}"')


def _check_format(format: str) -> None:
    if format not in FORMATS:
        raise ValueError(
            f'no leases for format "{format}"; accepted formats: {", ".join(FORMATS)} '
            "(kuid64 has no node field: use kuid96)"
        )
