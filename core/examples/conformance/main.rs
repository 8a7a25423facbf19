//! The conformance adapter of `flake-core` (tests/conformance/PROTOCOL.md):
//! JSON-lines requests on stdin, one answer per line on stdout, every answer
//! from the crate's public API with the SQLSTATE its errors carry.
//! `cargo run -p flake-core --example conformance < requests.jsonl`
//! Each type's operations are in formats.rs.

mod formats;
use formats::{
    distributed, distributed128, flaxid, kuid64, kuid96, plain_bigint, public, siq, sno, snowflake,
};

use flake_core::error::field_in_range;
use flake_core::{
    alphanumeric, distributed_id, distributed_id128, kuid, public_id, siq, snowflake,
};
use flake_core::{
    distributed_id::DistributedId, distributed_id128::DistributedId128, flaxid::FlaxId,
    kuid::Kuid96, siq::Siq, sno::Sno,
};
use flake_core::{Error, FlakeId};
use serde_json::{json, Map, Value};
use std::io::{BufRead, BufWriter, Write};

/// A refusal with its SQLSTATE, or (None) a malformed request.
struct Refusal(Option<&'static str>, String);

impl From<Error> for Refusal {
    fn from(e: Error) -> Self {
        Refusal(Some(e.kind().sqlstate()), e.to_string())
    }
}

type Answer = Result<Value, Refusal>;

fn bad(what: impl Into<String>) -> Refusal {
    Refusal(None, what.into())
}

fn arg<'a>(args: &'a Value, key: &str) -> Result<&'a Value, Refusal> {
    args.get(key).ok_or_else(|| bad(format!("missing {key}")))
}

fn text<'a>(args: &'a Value, key: &str) -> Result<&'a str, Refusal> {
    arg(args, key)?
        .as_str()
        .ok_or_else(|| bad(format!("{key} is no string")))
}

/// An integer of the protocol: a JSON number or a decimal string.
fn int(args: &Value, key: &str) -> Result<i128, Refusal> {
    match arg(args, key)? {
        Value::Number(n) => n.as_i64().map(i128::from),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| bad(format!("{key} is no integer")))
}

/// A field of a type's range, checked as the SQL functions check it (22003).
fn field(args: &Value, ty: &'static str, key: &'static str, max: i128) -> Result<i128, Refusal> {
    Ok(field_in_range(ty, key, int(args, key)?, 0, max)?)
}

fn i64_of(value: i128) -> i64 {
    value.clamp(i64::MIN.into(), i64::MAX.into()) as i64
}

fn wire(value: impl Into<i128>) -> Value {
    let value: i128 = value.into();
    if value.unsigned_abs() <= 1 << 53 {
        json!(value as i64)
    } else {
        json!(value.to_string())
    }
}

fn wire_u128(value: u128) -> Value {
    i128::try_from(value).map_or_else(|_| json!(value.to_string()), wire)
}

fn bytes_of(args: &Value, key: &str) -> Result<Vec<u8>, Refusal> {
    let hex = text(args, key)?;
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect::<Option<_>>()
        .filter(|_| hex.len() % 2 == 0)
        .ok_or_else(|| bad("bytes_hex is no hex"))
}

fn hex(bytes: &[u8]) -> Value {
    json!({ "bytes_hex": bytes.iter().map(|b| format!("{b:02x}")).collect::<String>() })
}

fn value<T: FlakeId>(args: &Value, key: &str) -> Result<T, Refusal> {
    Ok(T::from_wire(&bytes_of(args, key)?)?)
}

/// A bigint format's value from its 8 bytes (22P03 otherwise).
fn bigint(args: &Value, key: &str) -> Result<i64, Refusal> {
    let bytes: [u8; 8] = bytes_of(args, key)?.try_into().map_err(|b: Vec<u8>| {
        Refusal(Some("22P03"), format!("expected 8 bytes, got {}", b.len()))
    })?;
    Ok(i64::from_be_bytes(bytes))
}

fn order<T: Ord + PartialEq>(a: T, b: T) -> Value {
    json!({ "order": a.cmp(&b) as i8, "equal": a == b })
}

fn interval(args: &Value) -> Result<u32, Refusal> {
    let given = if args.get("interval").is_some() {
        int(args, "interval")?
    } else {
        8
    };
    Ok(kuid::check_interval(i64_of(given))?)
}

fn epoch(args: &Value) -> Result<i64, Refusal> {
    match args.get("epoch_ms") {
        Some(_) => Ok(snowflake::check_epoch(i64_of(int(args, "epoch_ms")?))?),
        None => Ok(snowflake::DEFAULT_EPOCH_MILLIS),
    }
}

/// The operations every native type answers alike.
fn common<T: FlakeId>(op: &str, args: &Value) -> Option<Answer> {
    Some(match op {
        "parse" => text(args, "text").and_then(|t| Ok(hex(t.parse::<T>()?.bytes()))),
        "format" => value::<T>(args, "bytes_hex").map(|v| json!({ "text": v.to_string() })),
        "compare" => (|| Ok(order(value::<T>(args, "a")?, value::<T>(args, "b")?)))(),
        _ => return None,
    })
}

fn unsupported(what: &str, op: &str) -> Answer {
    Err(Refusal(
        Some("unsupported"),
        format!("flake-core has no {what} {op}"),
    ))
}

fn answer(request: &Value) -> Map<String, Value> {
    let (ty, op) = (
        request["type"].as_str().unwrap_or(""),
        request["op"].as_str().unwrap_or(""),
    );
    let args = &request["args"];
    let result = match ty {
        _ if op == "hello" => Ok(json!({ "language": "rust",
            "package": concat!("flake-core ", env!("CARGO_PKG_VERSION")), "protocol": 1 })),
        "sno" => sno(op, args),
        "siq" => siq(op, args),
        "distributed_id" => distributed(op, args),
        "distributed_id128" => distributed128(op, args),
        "flaxid" => flaxid(op, args),
        "kuid96" => kuid96(op, args),
        "kuid64" => kuid64(op, args),
        "snowflake" => snowflake(op, args),
        "bigint" => plain_bigint(op, args),
        "public_id" => public(op, args),
        _ => unsupported(ty, op),
    };
    let mut out = Map::new();
    out.insert("id".into(), request["id"].clone());
    match result {
        Ok(ok) => out.insert("ok".into(), ok),
        Err(Refusal(Some("unsupported"), message)) => {
            out.insert("unsupported".into(), json!(message))
        }
        Err(Refusal(state, message)) => out.insert(
            "error".into(),
            json!({ "sqlstate": state, "message": message }),
        ),
    };
    out
}

fn main() {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let request: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        let answer = Value::Object(answer(&request));
        writeln!(out, "{answer}").expect("stdout");
    }
}
