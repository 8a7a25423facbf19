//! What flake-core's tests and the integration tests both need: the vectors
//! in `tests/vectors/` (conventions in `tests/vectors/README.md`) and the
//! encodings their fields are written in.
//!
//! Nothing here knows a format, so this crate does not depend on flake-core
//! (a dev-dependency cycle would give the core's tests two copies of its
//! types); what needs the core's types stays in each tree's own helpers.

use serde_json::Value;

/// The vectors of one file of `tests/vectors/`, one JSON object per line.
/// Found from this crate's own directory, so every caller reads the same
/// files.
pub fn vectors(file: &str) -> Vec<Value> {
    let path = format!("{}/../vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}: {l}")))
        .collect()
}

/// The vectors whose `kind` is one of `kinds`.
pub fn of_kind<'a>(all: &'a [Value], kinds: &[&str]) -> Vec<&'a Value> {
    all.iter()
        .filter(|v| kinds.contains(&v["kind"].as_str().unwrap()))
        .collect()
}

/// A vector's `name`, unique within its file.
pub fn name(v: &Value) -> &str {
    v["name"].as_str().unwrap()
}

/// An integer written either as a JSON number or, above 2^53, as a decimal
/// string.
pub fn int(v: &Value) -> i128 {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .unwrap(),
        Value::String(s) => s.parse().unwrap_or_else(|e| panic!("{s}: {e}")),
        other => panic!("not an integer: {other}"),
    }
}

/// [`int`] of a field that holds an `i64` (a bigint).
pub fn as_i64(v: &Value) -> i64 {
    let n = int(v);
    i64::try_from(n).unwrap_or_else(|_| panic!("{n} is not an i64"))
}

/// The bytes of a hex text such as a vector's `bytes_hex`.
pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|e| panic!("{s}: {e}")))
        .collect()
}

/// Lower-case hex, as `bytes_hex` is written.
pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The alphabet of standard base64 (RFC 4648 §4).
pub const STD64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding: how test inputs in that form are written.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let mut group = [0u8; 3];
        group[..chunk.len()].copy_from_slice(chunk);
        let n = u32::from_be_bytes([0, group[0], group[1], group[2]]);
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                STD64[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}
