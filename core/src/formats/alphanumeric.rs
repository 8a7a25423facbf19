//! Alphanumeric (base62) text of Architect.Identities: 8 bytes read as a
//! big-endian `u64` become exactly 11 digits of
//! `0-9A-Za-z`, most significant first, zero-padded. The alphabet is in ASCII
//! order, so text order equals value order. A `uuid` is two independent
//! 11-digit blocks; a `distributed_id` is the 22-digit form of its 16-byte
//! big-endian value without the first 6 digits (always `0`).
//!
//! Decoding is strict where the reference is lenient: exact length, the
//! alphabet only (the reference keeps the low byte of any character), and each
//! 11-digit block below 2^64 (the reference wraps modulo 2^64).

use crate::error::{non_negative, Error, Result};
use crate::formats::distributed_id::{self, DistributedId};

pub const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// Digits of one 64-bit block (62^11 > 2^64 > 62^10).
pub const BLOCK_LEN: usize = 11;
pub const UUID_LEN: usize = 2 * BLOCK_LEN;
/// The high block of a distributed_id needs 5 digits: `id >> 64 < 2^29 < 62^5`.
pub const DISTRIBUTED_ID_LEN: usize = 16;
const HIGH_DIGITS: usize = DISTRIBUTED_ID_LEN - BLOCK_LEN;

const EXPECTED_BIGINT: &str = "11 characters of 0-9, A-Z, a-z, at most LygHa16AHYF";
const EXPECTED_UUID: &str =
    "22 characters of 0-9, A-Z, a-z, each 11-character half at most LygHa16AHYF";
const EXPECTED_DISTRIBUTED_ID: &str =
    "16 characters of 0-9, A-Z, a-z, the last 11 at most LygHa16AHYF";
const BIGINT_RANGE: &str = "00000000000 to AzL8n0Y58m7 (0 to 9223372036854775807)";
const DISTRIBUTED_ID_RANGE: &str =
    "0000000000000000 to agbFu5KnEQGxp4QB (0 to 9999999999999999999999999999)";

/// Character → digit value, 0xFF outside the alphabet (every byte of a
/// multi-byte UTF-8 character is ≥ 0x80, so those are rejected too).
const DECODE: [u8; 256] = {
    let mut table = [0xFFu8; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// Writes `value` as `out.len()` base62 digits, most significant first.
/// Callers size `out` so the value fits.
fn encode_digits(mut value: u64, out: &mut [u8]) {
    for c in out.iter_mut().rev() {
        *c = ALPHABET[(value % 62) as usize];
        value /= 62;
    }
}

/// The value of a run of base62 digits, or None for a character outside the
/// alphabet or a value of 2^64 or more.
fn decode_digits(text: &[u8]) -> Option<u64> {
    let mut value: u128 = 0;
    for &c in text {
        let digit = DECODE[c as usize];
        if digit == 0xFF {
            return None;
        }
        value = value * 62 + digit as u128;
    }
    u64::try_from(value).ok()
}

fn ascii(text: &[u8]) -> String {
    // Every byte comes from ALPHABET, so this never replaces anything.
    String::from_utf8_lossy(text).into_owned()
}

/// The 11-character form of an unsigned 64-bit value.
pub fn encode_u64(value: u64) -> String {
    let mut out = [0u8; BLOCK_LEN];
    encode_digits(value, &mut out);
    ascii(&out)
}

/// `alphanumeric_encode(bigint)`: negative values have no form (22003).
pub fn encode_i64(value: i64) -> Result<String> {
    non_negative("the alphanumeric encoding of bigint", value).map(encode_u64)
}

/// `alphanumeric_encode(uuid)`: bytes 0–7 and 8–15 as two 11-character blocks.
pub fn encode_u128_blocks(bytes: [u8; 16]) -> String {
    let value = u128::from_be_bytes(bytes);
    let mut out = [0u8; UUID_LEN];
    encode_digits((value >> 64) as u64, &mut out[..BLOCK_LEN]);
    encode_digits(value as u64, &mut out[BLOCK_LEN..]);
    ascii(&out)
}

/// `alphanumeric_encode(distributed_id)`: 5 characters for `id >> 64`, 11 for
/// `id mod 2^64`.
pub fn encode_distributed_id(id: &DistributedId) -> String {
    let value = id.to_u128();
    let mut out = [0u8; DISTRIBUTED_ID_LEN];
    encode_digits((value >> 64) as u64, &mut out[..HIGH_DIGITS]);
    encode_digits(value as u64, &mut out[HIGH_DIGITS..]);
    ascii(&out)
}

/// The unsigned 64-bit value of exactly 11 characters.
pub fn decode_u64(text: &str) -> Result<u64> {
    let bytes = text.as_bytes();
    if bytes.len() != BLOCK_LEN {
        return Err(Error::invalid_text("bigint", text, EXPECTED_BIGINT));
    }
    decode_digits(bytes).ok_or_else(|| Error::invalid_text("bigint", text, EXPECTED_BIGINT))
}

/// `alphanumeric_decode_bigint`: a block above 2^63−1 does not fit (22003).
pub fn decode_i64(text: &str) -> Result<i64> {
    let value = decode_u64(text)?;
    i64::try_from(value).map_err(|_| Error::ValueOutOfRange {
        type_name: "bigint",
        input: text.to_owned(),
        range: BIGINT_RANGE,
    })
}

/// `alphanumeric_decode_uuid`: the uuid's 16 bytes from 22 characters.
pub fn decode_u128_blocks(text: &str) -> Result<[u8; 16]> {
    let bytes = text.as_bytes();
    let invalid = || Error::invalid_text("uuid", text, EXPECTED_UUID);
    if bytes.len() != UUID_LEN {
        return Err(invalid());
    }
    let high = decode_digits(&bytes[..BLOCK_LEN]).ok_or_else(invalid)?;
    let low = decode_digits(&bytes[BLOCK_LEN..]).ok_or_else(invalid)?;
    Ok(((high as u128) << 64 | low as u128).to_be_bytes())
}

/// `alphanumeric_decode_distributed_id`: 16 characters; a value above
/// 10^28−1 is 22003.
pub fn decode_distributed_id(text: &str) -> Result<DistributedId> {
    let bytes = text.as_bytes();
    let invalid = || Error::invalid_text("distributed_id", text, EXPECTED_DISTRIBUTED_ID);
    if bytes.len() != DISTRIBUTED_ID_LEN {
        return Err(invalid());
    }
    let high = decode_digits(&bytes[..HIGH_DIGITS]).ok_or_else(invalid)?;
    let low = decode_digits(&bytes[HIGH_DIGITS..]).ok_or_else(invalid)?;
    let value = (high as u128) << 64 | low as u128;
    if value > distributed_id::MAX_VALUE {
        return Err(Error::ValueOutOfRange {
            type_name: "distributed_id",
            input: text.to_owned(),
            range: DISTRIBUTED_ID_RANGE,
        });
    }
    DistributedId::from_u128(value)
}
