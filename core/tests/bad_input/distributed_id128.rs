//! DistributedId128 (docs/sql-reference.md, "distributed_id128 (on uuid)"): the uuid text and
//! numeric decoders.
//!
//! | decoder | accepted form → canonical form | rejected |
//! |---|---|---|
//! | `DistributedId128::from_str` | 8-4-4-4-12 hex digits, either case → lower case | 22P02 |
//! | `DistributedId128::decode(&[u8])` | same, as bytes | `None` (22P02) |
//! | `DistributedId128::from_numeric_text` | numeric text ([`crate::numeric`]) of an integer ≤ 2^128−1 | 22P02; 22003 |

use crate::harness::{check_bytes, check_text, decoded, parsed, shown, INVALID_TEXT, OUT_OF_RANGE};
use crate::inputs::{text_bytes, texts, UUID};
use crate::numeric::{numeric_spec, NUMERIC_39};
use crate::oracle::{on_bytes, uuid_spec};
use flake_core::distributed_id128::DistributedId128;

#[test]
fn distributed_id128_from_str() {
    check_text(
        "DistributedId128::from_str",
        &[INVALID_TEXT],
        texts(&UUID),
        parsed::<DistributedId128>,
        uuid_spec,
    );
}

#[test]
fn distributed_id128_decode() {
    let spec = on_bytes(uuid_spec, INVALID_TEXT);
    check_bytes(
        "DistributedId128::decode",
        &[INVALID_TEXT],
        text_bytes(&UUID),
        |b| decoded(DistributedId128::decode(b)),
        spec,
    );
}

#[test]
fn distributed_id128_from_numeric_text() {
    check_text(
        "DistributedId128::from_numeric_text",
        &[INVALID_TEXT, OUT_OF_RANGE],
        texts(&NUMERIC_39),
        |s| shown(DistributedId128::from_numeric_text(s).map(|v| v.to_u128())),
        numeric_spec(u128::MAX),
    );
}
