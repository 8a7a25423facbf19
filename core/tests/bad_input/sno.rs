//! sno (docs/sql-reference.md, "sno"): the text and byte decoders.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `Sno::from_str` | exactly 16 of `2-9a-x` (strict) | 22P02 |
//! | `Sno::decode(&[u8])` | same, as bytes (any bytes, not only UTF-8) | `None` (the type input's 22P02) |
//! | `Sno::from_slice` (`FlakeId`) = `TryFrom<&[u8]>` | exactly 10 bytes | 22P03 |
//! | serde `Deserialize` (feature `serde`) | as `from_str` | the `from_str` error's message (22P02) |
//! | postgres `FromSql` (feature `postgres`) | as `from_slice` | 22P03 |

use crate::inputs::{no_special, take, Form};
use flake_core::sno::Sno;

const SNO32: &[u8] = b"23456789abcdefghijklmnopqrstuvwx";

fn sno_seed(r: &[u8; 32]) -> String {
    Sno::from_bytes(take(r)).to_string()
}

const SNO: Form = Form {
    alphabet: "23456789abcdefghijklmnopqrstuvwx",
    len: 16,
    seed: sno_seed,
};

sixteen_character_decoders! {
    Sno: sno_from_str, sno_decode, SNO32, SNO;
}

from_slice_decoders! {
    Sno: sno_from_slice, 10, no_special;
}

#[cfg(feature = "serde")]
mod serde_text {
    use super::*;
    use crate::harness::{check_text, deserialized, INVALID_TEXT};
    use crate::inputs::texts;
    use crate::oracle::every_text_of;

    #[test]
    fn sno() {
        check_text(
            "serde Sno",
            &[INVALID_TEXT],
            texts(&SNO),
            deserialized::<Sno>,
            every_text_of(SNO32, 16),
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
    fn sno() {
        check_bytes(
            "FromSql Sno",
            &[INVALID_BINARY],
            binary(10, no_special),
            from_sql::<Sno>,
            exactly(10),
        );
    }
}
