"""Architect.Identities' base62 text (docs/sql-reference.md, "Alphanumeric encoding";
reference implementation ``core/src/formats/alphanumeric.rs``): 8 bytes read as a
big-endian unsigned integer become exactly 11 characters of ``0-9A-Za-z``.
Decoding is strict: exact length, the alphabet only, each block below 2^64.
"""

from __future__ import annotations

import uuid

from ._base import field, invalid_text, value_out_of_range

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_VALUES = {c: i for i, c in enumerate(ALPHABET)}
_U64 = (1 << 64) - 1

_EXPECTED_BIGINT = "11 characters of 0-9, A-Z, a-z, at most LygHa16AHYF"
_EXPECTED_UUID = "22 characters of 0-9, A-Z, a-z, each 11-character half at most LygHa16AHYF"
_EXPECTED_DISTRIBUTED_ID = "16 characters of 0-9, A-Z, a-z, the last 11 at most LygHa16AHYF"


def _encode(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        value, digit = divmod(value, 62)
        out.append(ALPHABET[digit])
    return "".join(reversed(out))


def _decode(text: str) -> int | None:
    value = 0
    for c in text:
        digit = _VALUES.get(c)
        if digit is None:
            return None
        value = value * 62 + digit
    return value if value <= _U64 else None


def encode_bigint(value: int) -> str:
    """``alphanumeric_encode(bigint)``: 11 characters; negative values have none."""
    return _encode(field("alphanumeric", "value", value, 0, (1 << 63) - 1), 11)


def decode_bigint(text: str) -> int:
    """``alphanumeric_decode_bigint``: 11 characters, at most 2^63 − 1."""
    value = _decode(text) if len(text) == 11 else None
    if value is None:
        raise invalid_text("bigint", text, _EXPECTED_BIGINT)
    if value >= 1 << 63:
        raise value_out_of_range(
            "bigint", text, "00000000000 to AzL8n0Y58m7 (0 to 9223372036854775807)"
        )
    return value


def encode_uuid(value: uuid.UUID) -> str:
    """``alphanumeric_encode(uuid)``: two 11-character blocks (bytes 0–7, 8–15)."""
    return _encode(value.int >> 64, 11) + _encode(value.int & _U64, 11)


def decode_uuid(text: str) -> uuid.UUID:
    """``alphanumeric_decode_uuid``: 22 characters."""
    high = _decode(text[:11]) if len(text) == 22 else None
    low = _decode(text[11:]) if high is not None else None
    if low is None:
        raise invalid_text("uuid", text, _EXPECTED_UUID)
    return uuid.UUID(int=high << 64 | low)


def encode_distributed_id(value: int) -> str:
    """``alphanumeric_encode(distributed_id)``: 5 characters for ``id >> 64``, 11 for the rest."""
    return _encode(value >> 64, 5) + _encode(value & _U64, 11)


def decode_distributed_id(text: str) -> int:
    """``alphanumeric_decode_distributed_id``: 16 characters, at most 10^28 − 1."""
    high = _decode(text[:5]) if len(text) == 16 else None
    low = _decode(text[5:]) if high is not None else None
    if low is None:
        raise invalid_text("distributed_id", text, _EXPECTED_DISTRIBUTED_ID)
    value = high << 64 | low
    if value > 10**28 - 1:
        raise value_out_of_range(
            "distributed_id",
            text,
            "0000000000000000 to agbFu5KnEQGxp4QB (0 to 9999999999999999999999999999)",
        )
    return value
