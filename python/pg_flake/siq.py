"""SIQ (SUOU ``suou.iding`` 0.14.0): 112 bits = 56-bit ticks of 1/65536 s
since 1970 (40 bits of seconds, 16 of fraction), an 8-bit shard, a 32-bit
domain hash and 16 bits holding a kind suffix and a serial. Text: the
reference's 29-character DID body with a CRC-32 (docs/sql-reference.md, "siq"; reference
implementation ``core/src/formats/siq.rs``).
"""

from __future__ import annotations

import base64
import hashlib
import zlib

from ._base import (
    FlakeId,
    TimeLike,
    field,
    invalid_parameter,
    invalid_text,
    time_out_of_range,
    unix_micros_of,
    value_out_of_range,
)

TICKS_PER_SECOND = 65_536
MAX_TICKS = (1 << 56) - 1
MAX_VALUE = (1 << 112) - 1
TIME_RANGE = "1970-01-01 00:00:00+00 to 36812-02-20 00:36:15.999999+00"
VALUE_RANGE = "0 to 5192296858534827628530496329220095"
DID_PREFIX = "did:siq:"

_EXPECTED_TEXT = (
    '29 base32 characters (a-z, 2-7) with a valid checksum, optionally prefixed by "did:siq:"'
)
_EXPECTED_HEX = "1 to 28 hexadecimal digits"
_EXPECTED_BASE64 = "20 URL-safe base64 characters"
_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"
_BASE32_VALUES = {
    **{c: i for i, c in enumerate(_BASE32)},
    **{c.upper(): i for i, c in enumerate(_BASE32)},
}
_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")

#: kind → (suffix, suffix width); the serial has the remaining 16 - width bits.
KINDS = {
    "user": (0b00000, 5),
    "application": (0b10000, 5),
    "event": (0b01000, 5),
    "premium": (0b11000, 5),
    "group": (0b00100, 5),
    "collection": (0b10100, 5),
    "invite": (0b01100, 5),
    "tag": (0b00010, 5),
    "channel": (0b01010, 5),
    "thread": (0b0110, 4),
    "message": (0b1110, 4),
    "ternary": (0b001, 3),
    "manytomany": (0b101, 3),
    "multi": (0b011, 3),
    "content": (0b111, 3),
}
_KIND_OF_SUFFIX = {(width, suffix): name for name, (suffix, width) in KINDS.items()}


def _suffix_width(low16: int) -> int:
    # Read from the least significant end: a final 1 is a 3-bit suffix,
    # a final 110 a 4-bit one, anything else 5 bits.
    if low16 & 1:
        return 3
    if low16 & 0b111 == 0b110:
        return 4
    return 5


def _kind_named(name: str) -> str:
    if isinstance(name, str) and name.lower() in KINDS:
        return name.lower()
    raise invalid_parameter(f'unknown SIQ kind "{name}"; accepted kinds: {", ".join(KINDS)}')


def _ticks_at(time: TimeLike) -> int:
    """floor(µs × 65536 / 10^6), as ``siq_from_time``."""
    micros = unix_micros_of(time)
    ticks = micros * TICKS_PER_SECOND // 1_000_000
    if micros < 0 or ticks > MAX_TICKS:
        raise time_out_of_range("siq", TIME_RANGE)
    return ticks


def siq_domain_hash(domain: str) -> int:
    """``siq_domain_hash(text)``: the last 4 bytes of SHA-256 of an ASCII domain
    (``''`` and ``'0'`` give 0)."""
    if not domain.isascii():
        raise invalid_parameter(
            f'SIQ domain "{domain}" is not ASCII; pass the punycode (IDNA) form of the domain'
        )
    if domain in ("", "0"):
        return 0
    return int.from_bytes(hashlib.sha256(domain.encode("ascii")).digest()[28:], "big")


class Siq(FlakeId):
    """A value of the SQL type ``siq``: ``Siq("crxckuyagku7racaaacmgzymuoabo")``.

    Text input also takes the ``did:siq:`` prefix and upper case, and checks the CRC-32.
    """

    __slots__ = ()
    TYPE_NAME = "siq"
    LEN = 14

    @classmethod
    def _parse(cls, text: str) -> bytes:
        body = text[len(DID_PREFIX) :] if text[: len(DID_PREFIX)].lower() == DID_PREFIX else text
        values = [_BASE32_VALUES.get(c) for c in body]
        if len(body) != 29 or None in values:
            raise invalid_text("siq", text, _EXPECTED_TEXT)
        n = 0
        for v in values:
            n = n << 5 | v
        # 145 bits: the top one belongs to the zero prefix (whose other 15
        # bits the reference drops), then come the CRC-32 and the 14 bytes.
        if n >> 144:
            raise invalid_text("siq", text, _EXPECTED_TEXT)
        framed = n.to_bytes(18, "big")
        checksum, data = framed[:4], framed[4:]
        if zlib.crc32(data).to_bytes(4, "big") != checksum:
            raise invalid_text("siq", text, _EXPECTED_TEXT)
        return data

    def _format(self) -> str:
        framed = zlib.crc32(self._bytes).to_bytes(4, "big") + self._bytes
        n = int.from_bytes(framed, "big")  # 144 bits: 29 characters of 5 bits, the first 4-bit
        return "".join(_BASE32[(n >> (5 * (28 - i))) & 31] for i in range(29))

    @classmethod
    def from_parts_ticks(
        cls, ticks: int, shard: int, domain_hash: int, kind: str, serial: int
    ) -> Siq:
        """``siq_from_parts(ticks bigint, …)``: every field range-checked."""
        suffix, width = KINDS[_kind_named(kind)]
        serial = field("siq", "serial", serial, 0, (1 << (16 - width)) - 1)
        ticks = field("siq", "ticks", ticks, 0, MAX_TICKS)
        shard = field("siq", "shard", shard, 0, 255)
        domain_hash = field("siq", "domain_hash", domain_hash, 0, 0xFFFF_FFFF)
        low16 = serial << width | suffix
        return cls._from_int(ticks << 56 | shard << 48 | domain_hash << 16 | low16)

    @classmethod
    def from_parts(
        cls, time: TimeLike, shard: int, domain_hash: int, kind: str, serial: int
    ) -> Siq:
        """``siq_from_parts(time timestamptz, …)``: the time rounds down to its tick."""
        return cls.from_parts_ticks(_ticks_at(time), shard, domain_hash, kind, serial)

    @classmethod
    def from_time(cls, time: TimeLike) -> Siq:
        """``siq_from_time``: the smallest siq at that instant (every other field zero)."""
        return cls._from_int(_ticks_at(time) << 56)

    @classmethod
    def from_int(cls, value: int) -> Siq:
        """``numeric::siq``: the 112-bit integer."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"Siq.from_int() takes an int, not {type(value).__name__}")
        if not 0 <= value <= MAX_VALUE:
            raise value_out_of_range("siq", str(value), VALUE_RANGE)
        return cls._from_int(value)

    @classmethod
    def from_hex(cls, text: str) -> Siq:
        """``siq_from_hex``: 1 to 28 hexadecimal digits, any case."""
        if not 1 <= len(text) <= 28 or not set(text) <= _HEX_DIGITS:
            raise invalid_text("siq", text, _EXPECTED_HEX)
        return cls._from_int(int(text, 16))

    @classmethod
    def from_base64(cls, text: str) -> Siq:
        """The inverse of ``base64``: 20 URL-safe characters whose first byte is zero."""
        if len(text) != 20 or not set(text) <= _BASE64_CHARS:
            raise invalid_text("siq", text, _EXPECTED_BASE64)
        data = base64.urlsafe_b64decode(text)
        if data[0]:
            raise value_out_of_range("siq", text, VALUE_RANGE)
        return cls._new(data[1:])

    def __int__(self) -> int:
        """``siq::numeric``: the 112-bit integer."""
        return self._int

    @property
    def ticks(self) -> int:
        """Ticks of 1/65536 s since 1970-01-01 UTC: the exact time."""
        return self._int >> 56

    @property
    def unix_micros(self) -> int:
        """Start of the tick, rounded down to the microsecond (as ``siq_timestamp``)."""
        return self.ticks * 1_000_000 // TICKS_PER_SECOND

    @property
    def shard(self) -> int:
        return self._bytes[7]

    @property
    def domain_hash(self) -> int:
        return int.from_bytes(self._bytes[8:12], "big")

    @property
    def low16(self) -> int:
        return int.from_bytes(self._bytes[12:14], "big")

    @property
    def kind(self) -> str | None:
        """The kind's name, None for an unassigned suffix."""
        low16 = self.low16
        width = _suffix_width(low16)
        return _KIND_OF_SUFFIX.get((width, low16 & ((1 << width) - 1)))

    @property
    def serial(self) -> int:
        low16 = self.low16
        return low16 >> _suffix_width(low16)

    @property
    def did(self) -> str:
        """``siq_to_did``: ``did:siq:`` and the text."""
        return DID_PREFIX + self._format()

    @property
    def hex(self) -> str:
        """``siq_to_hex``: 28 lower-case digits."""
        return self._bytes.hex()

    @property
    def base64(self) -> str:
        """``siq_to_base64``: URL-safe base64 of a zero byte and the 14 bytes (20 characters)."""
        return base64.urlsafe_b64encode(b"\0" + self._bytes).decode("ascii")
