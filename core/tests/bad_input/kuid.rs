//! The k-ordered uid (docs/sql-reference.md, "k-ordered uid"): kuid96's text and byte
//! decoders, kuid64's text decoder and the node name's fingerprint.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `Kuid96::from_str` | exactly 16 of `.0-9A-Z_a-z` (strict) | 22P02 |
//! | `Kuid96::decode(&[u8])` | same, as bytes | `None` (22P02) |
//! | `kuid::kuid64_decode` | exactly 11 of `.0-9A-Z_a-z`, the 2 padding bits zero (strict) | 22P02; top bit set: 22003 |
//! | `kuid::node_fingerprint` | every text (total): the ELF hash of its Latin-1 bytes, other characters as their UTF-8 bytes | — |
//! | `Kuid96::from_slice` (`FlakeId`) = `TryFrom<&[u8]>` | exactly 12 bytes | 22P03 |
//! | serde `Deserialize` of `Kuid96` (feature `serde`) | as `from_str` | the `from_str` error's message (22P02) |
//! | postgres `FromSql` of `Kuid96` (feature `postgres`) | as `from_slice` | 22P03 |

use crate::harness::{check_text, refused, Verdict, INVALID_TEXT, OUT_OF_RANGE};
use crate::inputs::{no_special, take, texts, Form};
use crate::oracle::{bits_of, is_over};
use flake_core::kuid::{self, Kuid96};

// --- the spec ----------------------------------------------------------------

const KUID64: &[u8] = b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

fn kuid64_spec(text: &str) -> Verdict {
    let bits = is_over(text, KUID64, 11)
        .then(|| bits_of(text.as_bytes(), KUID64))
        .flatten()
        .ok_or(INVALID_TEXT)?;
    // 66 bits: the value, then two padding bits that must be zero.
    if bits[64] || bits[65] {
        return Err(INVALID_TEXT);
    }
    if bits[0] {
        return Err(OUT_OF_RANGE);
    }
    Ok(text.to_owned())
}

/// The ELF hash (`erlang:phash2` of an atom) of the Latin-1 bytes of the
/// name; characters beyond Latin-1 count as their UTF-8 bytes.
fn node_fingerprint_spec(text: &str) -> Verdict {
    let mut h: u32 = 0;
    for c in text.chars() {
        let bytes = match u8::try_from(c) {
            Ok(latin1) => vec![latin1],
            Err(_) => c.to_string().into_bytes(),
        };
        for byte in bytes {
            h = (h << 4).wrapping_add(byte as u32);
            let high = h & 0xF000_0000;
            if high != 0 {
                h ^= high >> 24;
            }
            h &= !high;
        }
    }
    Ok(h.to_string())
}

// --- inputs ------------------------------------------------------------------

fn kuid96_seed(r: &[u8; 32]) -> String {
    Kuid96::from_bytes(take(r)).to_string()
}

fn kuid64_seed(r: &[u8; 32]) -> String {
    kuid::kuid64_encode(i64::from_be_bytes(take(r)) & i64::MAX).expect("non-negative")
}

const NODE_CHARS: &str = "abcxyz019@._-Àéÿ\u{80}\u{ff}\u{100}€🦀";

fn node_seed(r: &[u8; 32]) -> String {
    let chars: Vec<char> = NODE_CHARS.chars().collect();
    r[1..1 + r[0] as usize % 24]
        .iter()
        .map(|&b| chars[b as usize % chars.len()])
        .collect()
}

const KUID96: Form = Form {
    alphabet: ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
    len: 16,
    seed: kuid96_seed,
};

const KUID64_TEXT: Form = Form {
    alphabet: ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
    len: 11,
    seed: kuid64_seed,
};

const NODE: Form = Form {
    alphabet: NODE_CHARS,
    len: 12,
    seed: node_seed,
};

// --- tests -------------------------------------------------------------------

sixteen_character_decoders! {
    Kuid96: kuid96_from_str, kuid96_decode, KUID64, KUID96;
}

from_slice_decoders! {
    Kuid96: kuid96_from_slice, 12, no_special;
}

#[test]
fn kuid64_decode() {
    check_text(
        "kuid::kuid64_decode",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&KUID64_TEXT),
        |s| {
            kuid::kuid64_decode(s)
                .map_err(refused)
                .and_then(|v| kuid::kuid64_encode(v).map_err(refused))
        },
        kuid64_spec,
    );
}

#[test]
fn kuid_node_fingerprint() {
    check_text(
        "kuid::node_fingerprint",
        &[],
        texts(&NODE),
        |s| Ok(kuid::node_fingerprint(s).to_string()),
        node_fingerprint_spec,
    );
}

#[cfg(feature = "serde")]
mod serde_text {
    use super::*;
    use crate::harness::deserialized;
    use crate::oracle::every_text_of;

    #[test]
    fn kuid96() {
        check_text(
            "serde Kuid96",
            &[INVALID_TEXT],
            texts(&KUID96),
            deserialized::<Kuid96>,
            every_text_of(KUID64, 16),
        );
    }
}

#[cfg(feature = "postgres")]
mod postgres_binary {
    use super::*;
    use crate::harness::{check_bytes, from_sql, INVALID_BINARY};
    use crate::inputs::binary;
    use crate::oracle::exactly;

    #[test]
    fn kuid96() {
        check_bytes(
            "FromSql Kuid96",
            &[INVALID_BINARY],
            binary(12, no_special),
            from_sql::<Kuid96>,
            exactly(12),
        );
    }
}
