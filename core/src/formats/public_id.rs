//! Public identities (Architect.Identities 2.1.1): an internal ID becomes a
//! 128-bit public identifier through AES in ECB mode over one 16-byte block,
//! without padding, under a 16-, 24- or 32-byte key (AES-128, -192, -256).
//!
//! What this is and is not:
//! - deterministic: equal IDs give equal public IDs (no nonce);
//! - unauthenticated: no tag, so a forged public ID decrypts to *something*.
//!   For a `bigint` the 8 zero bytes are the only check (a random forgery
//!   passes with probability 2^-64, and then also needs the sign bit clear);
//!   a `uuid` public ID always decrypts;
//! - a `distributed_id` below 2^64 has the same public ID as the `bigint` of
//!   the same value (the reference's plaintext layouts coincide there).
//!
//! The ciphertext is turned into a .NET `Guid`, whose text form swaps byte
//! groups, so the public uuid's bytes are `C[3] C[2] C[1] C[0] C[5] C[4]
//! C[7] C[6] C[8..15]`. The permutation is its own inverse.

use crate::error::{non_negative, Error, Result};
use crate::formats::distributed_id::DistributedId;
use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
use aes::{Aes128, Aes192, Aes256, Block};
use std::fmt;

const KEY_LENGTHS: &str = "16, 24 or 32 bytes (AES-128, AES-192, AES-256)";

/// A key expanded once, so a server can cache it between calls. Neither
/// `Debug` nor any error ever shows the key.
#[derive(Clone)]
pub struct PublicIdKey(Cipher);

#[derive(Clone)]
enum Cipher {
    Aes128(Aes128),
    Aes192(Aes192),
    Aes256(Aes256),
}

fn bad_key_length(actual: usize) -> Error {
    Error::InvalidParameter {
        message: format!("public id key must be {KEY_LENGTHS}, got {actual} bytes"),
    }
}

/// .NET `Guid(byte[])` stores the first three fields little-endian; its text
/// (and PostgreSQL's uuid) is big-endian.
fn guid_byte_order(b: [u8; 16]) -> [u8; 16] {
    [
        b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13],
        b[14], b[15],
    ]
}

impl PublicIdKey {
    /// A key of 16, 24 or 32 bytes; any other length is 22023.
    pub fn new(key: &[u8]) -> Result<PublicIdKey> {
        let cipher = match key.len() {
            16 => Aes128::new_from_slice(key).map(Cipher::Aes128),
            24 => Aes192::new_from_slice(key).map(Cipher::Aes192),
            32 => Aes256::new_from_slice(key).map(Cipher::Aes256),
            other => return Err(bad_key_length(other)),
        };
        cipher
            .map(PublicIdKey)
            .map_err(|_| bad_key_length(key.len()))
    }

    /// A key from its standard base64 text (`pg_flake.public_id_key`).
    pub fn from_base64(text: &str) -> Result<PublicIdKey> {
        let key = decode_base64(text).ok_or_else(|| Error::InvalidParameter {
            message: format!(
                "public id key must be standard base64 (with = padding) of {KEY_LENGTHS}"
            ),
        })?;
        PublicIdKey::new(&key)
    }

    /// 128, 192 or 256.
    pub fn bits(&self) -> u32 {
        match self.0 {
            Cipher::Aes128(_) => 128,
            Cipher::Aes192(_) => 192,
            Cipher::Aes256(_) => 256,
        }
    }

    fn encrypt_block(&self, plaintext: [u8; 16]) -> [u8; 16] {
        let mut block = Block::from(plaintext);
        match &self.0 {
            Cipher::Aes128(c) => c.encrypt_block(&mut block),
            Cipher::Aes192(c) => c.encrypt_block(&mut block),
            Cipher::Aes256(c) => c.encrypt_block(&mut block),
        }
        guid_byte_order(block.into())
    }

    fn decrypt_block(&self, public_id: [u8; 16]) -> [u8; 16] {
        let mut block = Block::from(guid_byte_order(public_id));
        match &self.0 {
            Cipher::Aes128(c) => c.decrypt_block(&mut block),
            Cipher::Aes192(c) => c.decrypt_block(&mut block),
            Cipher::Aes256(c) => c.decrypt_block(&mut block),
        }
        block.into()
    }

    /// Plaintext: 8 zero bytes, then the value little-endian. Negative
    /// values are 22003.
    pub fn encrypt_i64(&self, value: i64) -> Result<[u8; 16]> {
        let value = non_negative("a public identity of bigint", value)?;
        let mut plaintext = [0u8; 16];
        plaintext[8..].copy_from_slice(&value.to_le_bytes());
        Ok(self.encrypt_block(plaintext))
    }

    /// Plaintext: the .NET `decimal` layout: flags (0), hi, lo, mid, each
    /// 4 bytes little-endian.
    pub fn encrypt_distributed_id(&self, id: &DistributedId) -> [u8; 16] {
        let value = id.to_u128();
        let mut plaintext = [0u8; 16];
        plaintext[4..8].copy_from_slice(&((value >> 64) as u32).to_le_bytes());
        plaintext[8..12].copy_from_slice(&(value as u32).to_le_bytes());
        plaintext[12..].copy_from_slice(&((value >> 32) as u32).to_le_bytes());
        self.encrypt_block(plaintext)
    }

    /// Plaintext: the uuid's 16 bytes in order.
    pub fn encrypt_uuid(&self, uuid: [u8; 16]) -> [u8; 16] {
        self.encrypt_block(uuid)
    }

    /// None (SQL NULL) unless the first 8 plaintext bytes are zero and the
    /// value is at most 2^63−1.
    pub fn decrypt_i64(&self, public_id: [u8; 16]) -> Option<i64> {
        let plaintext = self.decrypt_block(public_id);
        if plaintext[..8] != [0; 8] {
            return None;
        }
        let mut value = [0u8; 8];
        value.copy_from_slice(&plaintext[8..]);
        i64::try_from(u64::from_le_bytes(value)).ok()
    }

    /// None (SQL NULL) unless the first 4 plaintext bytes are zero and the
    /// value is at most 10^28−1.
    pub fn decrypt_distributed_id(&self, public_id: [u8; 16]) -> Option<DistributedId> {
        let plaintext = self.decrypt_block(public_id);
        if plaintext[..4] != [0; 4] {
            return None;
        }
        let word = |at: usize| {
            u32::from_le_bytes([
                plaintext[at],
                plaintext[at + 1],
                plaintext[at + 2],
                plaintext[at + 3],
            ]) as u128
        };
        // from_u128 rejects values above 10^28−1.
        DistributedId::from_u128(word(4) << 64 | word(12) << 32 | word(8)).ok()
    }

    /// Always a value: a uuid has no structure to check.
    pub fn decrypt_uuid(&self, public_id: [u8; 16]) -> [u8; 16] {
        self.decrypt_block(public_id)
    }
}

impl fmt::Debug for PublicIdKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicIdKey(AES-{})", self.bits())
    }
}

/// Strict standard base64 (RFC 4648 §4): length a multiple of 4, `=` only as
/// the final padding, and the unused bits of the last digit zero, so every
/// key has exactly one accepted text.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let padding = bytes.iter().rev().take_while(|&&b| b == b'=').count();
    if padding > 2 {
        return None;
    }
    let digits = &bytes[..bytes.len() - padding];
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for &c in digits {
        buffer = buffer << 6 | base64_digit(c)? as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    (buffer == 0).then_some(out)
}

fn base64_digit(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}
