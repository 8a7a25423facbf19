//! The spec helpers the formats share: texts read as bits or digits of an
//! alphabet, fixed-length forms, uuid text and standard base64. Written
//! from the formats' documentation alone: nothing here calls the
//! crate, so a decoder's bug cannot hide in its own oracle.

use crate::harness::{Verdict, INVALID_BINARY, INVALID_TEXT};
use flake_test_support::{base64, to_hex, STD64};

const HEX: &[u8] = b"0123456789abcdef";

/// C `isspace`: what PostgreSQL trims around numbers.
pub const C_SPACE: [char; 6] = [' ', '\t', '\n', '\r', '\x0b', '\x0c'];

/// The bits of `text` read as digits of a power-of-two `alphabet`, most
/// significant first; None for a character outside it.
pub fn bits_of(text: &[u8], alphabet: &[u8]) -> Option<Vec<bool>> {
    let width = alphabet.len().trailing_zeros();
    let mut bits = Vec::with_capacity(text.len() * width as usize);
    for c in text {
        let digit = alphabet.iter().position(|a| a == c)?;
        bits.extend((0..width).rev().map(|i| digit >> i & 1 == 1));
    }
    Some(bits)
}

fn number(bits: &[bool]) -> u128 {
    bits.iter().fold(0, |n, &b| n << 1 | b as u128)
}

pub fn bytes_of(bits: &[bool]) -> Vec<u8> {
    bits.chunks_exact(8).map(|c| number(c) as u8).collect()
}

/// The value of digits of any `alphabet` (base = its length); None outside
/// it or beyond u128.
pub fn digits_value(text: &[u8], alphabet: &[u8]) -> Option<u128> {
    text.iter().try_fold(0u128, |n, c| {
        let digit = alphabet.iter().position(|a| a == c)?;
        n.checked_mul(alphabet.len() as u128)?
            .checked_add(digit as u128)
    })
}

pub fn is_over(text: &str, alphabet: &[u8], len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| alphabet.contains(&b))
}

/// Strict forms where every text of the right length and alphabet is the
/// canonical text of exactly one value (no padding bits, no range).
pub fn every_text_of(alphabet: &'static [u8], len: usize) -> impl Fn(&str) -> Verdict {
    move |text| {
        if is_over(text, alphabet, len) {
            Ok(text.to_owned())
        } else {
            Err(INVALID_TEXT)
        }
    }
}

/// A spec for text applied to bytes: every accepted form is ASCII, so
/// bytes that are not UTF-8 are refused as text would be.
pub fn on_bytes(
    spec: impl Fn(&str) -> Verdict,
    refusal: &'static str,
) -> impl Fn(&[u8]) -> Verdict {
    move |bytes| std::str::from_utf8(bytes).map_or(Err(refusal), &spec)
}

pub fn exactly(len: usize) -> impl Fn(&[u8]) -> Verdict {
    move |bytes| {
        if bytes.len() == len {
            Ok(to_hex(bytes))
        } else {
            Err(INVALID_BINARY)
        }
    }
}

pub fn uuid_bytes(text: &str) -> Option<[u8; 16]> {
    let b = text.as_bytes();
    let hyphens = [8, 13, 18, 23];
    let shaped = b.len() == 36
        && b.iter().enumerate().all(|(i, c)| {
            if hyphens.contains(&i) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'-').collect();
    let value = shaped
        .then(|| digits_value(&digits.to_ascii_lowercase(), HEX))
        .flatten()?;
    Some(value.to_be_bytes())
}

pub fn uuid_spec(text: &str) -> Verdict {
    uuid_bytes(text)
        .map(|_| text.to_ascii_lowercase())
        .ok_or(INVALID_TEXT)
}

/// The bytes of a base64 text if it is the canonical base64 of the whole
/// bytes its digits carry.
pub fn canonical_base64(text: &str) -> Option<Vec<u8>> {
    let bits = bits_of(text.trim_end_matches('=').as_bytes(), STD64)?;
    let bytes = bytes_of(&bits);
    (base64(&bytes) == text).then_some(bytes)
}
