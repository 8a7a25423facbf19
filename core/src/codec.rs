//! The text codec behind every "number in a fixed-width alphabet" form (sno32,
//! Flax ID, kuid, SIQ's base64): a big-endian number cut into 5- or 6-bit
//! groups, most significant first, zero-padded at the end to a whole number
//! of characters. Decoding is strict: exact length, alphabet only, padding
//! bits zero, so every accepted text is the canonical form of its value.

pub struct Alphabet {
    chars: &'static [u8],
    decode: [u8; 256],
    bits: u32,
}

const INVALID: u8 = 0xFF;

impl Alphabet {
    /// An alphabet of 32 or 64 distinct ASCII characters, in value order.
    pub const fn new(chars: &'static [u8]) -> Alphabet {
        let bits = match chars.len() {
            32 => 5,
            64 => 6,
            _ => panic!("an alphabet has 32 or 64 characters"),
        };
        let mut decode = [INVALID; 256];
        let mut i = 0;
        while i < chars.len() {
            decode[chars[i] as usize] = i as u8;
            i += 1;
        }
        Alphabet {
            chars,
            decode,
            bits,
        }
    }

    /// The `bits`-wide `value` as `N` characters.
    #[inline]
    pub fn encode<const N: usize>(&self, value: u128, bits: u32) -> [u8; N] {
        let width = N as u32 * self.bits;
        let padded = value << (width - bits);
        let mask = (1u64 << self.bits) - 1;
        // Characters in chunks of at most 60 bits (12 base32 or 10 base64
        // characters): one 128-bit shift per chunk, 64-bit work per character.
        let per_chunk = (60 / self.bits) as usize;
        let mut out = [0u8; N];
        for (k, chunk) in out.chunks_mut(per_chunk).enumerate() {
            let end = (k * per_chunk + chunk.len()) as u32 * self.bits;
            let group = (padded >> (width - end)) as u64;
            let last = chunk.len() - 1;
            for (i, c) in chunk.iter_mut().enumerate() {
                let shift = (last - i) as u32 * self.bits;
                *c = self.chars[((group >> shift) & mask) as usize];
            }
        }
        out
    }

    /// The `bits`-wide value of exactly `N` characters, if canonical.
    #[inline]
    pub fn decode<const N: usize>(&self, text: &[u8], bits: u32) -> Option<u128> {
        if text.len() != N {
            return None;
        }
        let mut n: u128 = 0;
        let mut seen = 0u8;
        for &c in text {
            let v = self.decode[c as usize];
            seen |= v;
            n = n << self.bits | (v & 63) as u128;
        }
        let padding = N as u32 * self.bits - bits;
        if seen == INVALID || seen & 0x80 != 0 || n & ((1 << padding) - 1) != 0 {
            return None;
        }
        Some(n >> padding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNO32: Alphabet = Alphabet::new(b"23456789abcdefghijklmnopqrstuvwx");
    const KUID: Alphabet =
        Alphabet::new(b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz");

    #[test]
    fn encodes_most_significant_first_with_zero_padding() {
        assert_eq!(&SNO32.encode::<16>(0, 80), b"2222222222222222");
        assert_eq!(&SNO32.encode::<16>((1 << 80) - 1, 80), b"xxxxxxxxxxxxxxxx");
        assert_eq!(&KUID.encode::<11>(1, 64), b"..........3");
        assert_eq!(KUID.decode::<11>(b"..........3", 64), Some(1));
    }

    #[test]
    fn decoding_is_strict() {
        assert_eq!(SNO32.decode::<16>(b"222222222222222", 80), None);
        assert_eq!(SNO32.decode::<16>(b"22222222222222y2", 80), None);
        assert_eq!(SNO32.decode::<16>("2222222222222é".as_bytes(), 80), None);
        // Non-zero padding bits are not canonical.
        assert_eq!(KUID.decode::<11>(b"..........0", 64), None);
    }
}
