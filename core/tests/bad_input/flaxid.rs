//! Flax ID (docs/sql-reference.md, "flaxid"): the text and byte decoders.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `FlaxId::from_str` | exactly 16 of `-0-9A-Z_a-z` (strict, case matters) | 22P02 |
//! | `FlaxId::decode(&[u8])` | same, as bytes | `None` (22P02) |
//! | `FlaxId::from_slice` (`FlakeId`) = `TryFrom<&[u8]>` | exactly 12 bytes | 22P03 |
//! | serde `Deserialize` (feature `serde`) | as `from_str` | the `from_str` error's message (22P02) |
//! | postgres `FromSql` (feature `postgres`) | as `from_slice` | 22P03 |

use crate::inputs::{no_special, take, Form};
use flake_core::flaxid::FlaxId;

const FLAX64: &[u8] = b"-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

fn flaxid_seed(r: &[u8; 32]) -> String {
    FlaxId::from_bytes(take(r)).to_string()
}

const FLAXID: Form = Form {
    alphabet: "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
    len: 16,
    seed: flaxid_seed,
};

sixteen_character_decoders! {
    FlaxId: flaxid_from_str, flaxid_decode, FLAX64, FLAXID;
}

from_slice_decoders! {
    FlaxId: flaxid_from_slice, 12, no_special;
}

#[cfg(feature = "serde")]
mod serde_text {
    use super::*;
    use crate::harness::{check_text, deserialized, INVALID_TEXT};
    use crate::inputs::texts;
    use crate::oracle::every_text_of;

    #[test]
    fn flaxid() {
        check_text(
            "serde FlaxId",
            &[INVALID_TEXT],
            texts(&FLAXID),
            deserialized::<FlaxId>,
            every_text_of(FLAX64, 16),
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
    fn flaxid() {
        check_bytes(
            "FromSql FlaxId",
            &[INVALID_BINARY],
            binary(12, no_special),
            from_sql::<FlaxId>,
            exactly(12),
        );
    }
}
