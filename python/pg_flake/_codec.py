"""The "number in a fixed-width alphabet" text forms (sno, flaxid, kuid):
a big-endian number cut into 5- or 6-bit groups, most significant first,
zero-padded at the end. Decoding is strict (exact length, alphabet only,
padding bits zero), so every accepted text is canonical. Mirrors
``core/src/codec.rs``.
"""

from __future__ import annotations


class Alphabet:
    def __init__(self, chars: str):
        self.chars = chars
        self.bits = {32: 5, 64: 6}[len(chars)]
        self.values = {c: i for i, c in enumerate(chars)}

    def encode(self, value: int, bits: int, length: int) -> str:
        padded = value << (length * self.bits - bits)
        mask = (1 << self.bits) - 1
        return "".join(
            self.chars[(padded >> (self.bits * (length - 1 - i))) & mask] for i in range(length)
        )

    def decode(self, text: str, bits: int, length: int) -> int | None:
        """The value of exactly ``length`` characters, or None if not canonical."""
        if len(text) != length:
            return None
        n = 0
        for c in text:
            v = self.values.get(c)
            if v is None:
                return None
            n = n << self.bits | v
        padding = length * self.bits - bits
        if n & ((1 << padding) - 1):
            return None
        return n >> padding
