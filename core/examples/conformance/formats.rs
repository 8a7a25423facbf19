//! Each type's operations of the conformance protocol (tests/conformance/PROTOCOL.md).

use super::*;

pub(crate) fn sno(op: &str, a: &Value) -> Answer {
    let units = |a: &Value| -> Result<u64, Refusal> {
        Ok(flake_core::sno::units_at(int(a, "time")? * 1000)?)
    };
    match op {
        "parts" => value::<Sno>(a, "bytes_hex").map(|s| {
            json!({ "parts": { "time": s.unix_micros(), "tick_tock": s.tick_tock(), "meta": s.meta(),
                    "partition": s.partition(), "sequence": s.sequence() } })
        }),
        "from_parts" => {
            let p = arg(a, "parts")?;
            let tick_tock = p.get("tick_tock").and_then(Value::as_bool).unwrap_or(false);
            let units = units(p)?;
            let meta = field(p, "sno", "meta", 255)? as u8;
            let partition = field(p, "sno", "partition", 65535)? as u16;
            let sequence = field(p, "sno", "sequence", 65535)? as u16;
            Ok(hex(Sno::from_parts(units, tick_tock, meta, partition, sequence)?.bytes()))
        }
        "from_time" => Ok(hex(Sno::from_parts(units(a)?, false, 0, 0, 0)?.bytes())),
        _ => common::<Sno>(op, a).unwrap_or_else(|| unsupported("sno", op)),
    }
}

pub(crate) fn siq(op: &str, a: &Value) -> Answer {
    match op {
        "parts" => value::<Siq>(a, "bytes_hex").map(|s| {
            json!({ "parts": { "time": s.unix_micros(), "ticks": wire(s.ticks()), "shard": s.shard(),
                    "domain_hash": s.domain_hash(), "kind": s.kind().map(|k| k.name()),
                    "serial": s.serial(), "low16": s.low16() } })
        }),
        "from_parts" => {
            let p = arg(a, "parts")?;
            let kind = siq::Kind::from_name(text(p, "kind")?)?;
            let (ticks, shard, hash) = (int(p, "ticks")?, int(p, "shard")?, int(p, "domain_hash")?);
            let serial = int(p, "serial")?;
            let siq = Siq::from_parts(i64_of(ticks), shard.clamp(-1, 256) as i32, i64_of(hash), kind,
                serial.clamp(-1, 1 << 16) as i32)?;
            Ok(hex(siq.bytes()))
        }
        "from_time" => Ok(hex(Siq::from_time(i64_of(int(a, "time")?))?.bytes())),
        "encode" => {
            let s = value::<Siq>(a, "bytes_hex")?;
            Ok(json!({ "value": match text(a, "encoding")? {
                "did" => json!(s.to_did()), "hex" => json!(s.to_hex()),
                "base64" => json!(s.to_base64()), "integer" => wire_u128(s.to_u128()),
                other => return unsupported("siq encoding", other) } }))
        }
        "decode" => {
            let siq = match text(a, "encoding")? {
                "did" => text(a, "value")?.parse::<Siq>()?,
                "hex" => Siq::from_hex(text(a, "value")?)?,
                "base64" => Siq::from_base64(text(a, "value")?)?,
                "integer" => Siq::from_u128(flake_core::numeric::numeric_integer(
                    &numeric(a)?, "siq", u128::MAX, "0 to 2^112 - 1")?)?,
                other => return unsupported("siq encoding", other),
            };
            Ok(hex(siq.bytes()))
        }
        "domain_hash" => Ok(json!({ "domain_hash": siq::domain_hash(text(a, "domain")?)? })),
        _ => common::<Siq>(op, a).unwrap_or_else(|| unsupported("siq", op)),
    }
}

/// An integer encoding as `numeric` text (what the SQL casts read).
fn numeric(a: &Value) -> Result<String, Refusal> {
    Ok(match arg(a, "value")? {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

pub(crate) fn distributed(op: &str, a: &Value) -> Answer {
    match op {
        "parts" => value::<DistributedId>(a, "bytes_hex")
            .map(|d| json!({ "parts": { "time": d.unix_micros(), "random": d.random() } })),
        "from_parts" => {
            let p = arg(a, "parts")?;
            Ok(hex(DistributedId::from_parts(
                i64_of(int(p, "time")?),
                i64_of(int(p, "random")?),
            )?
            .bytes()))
        }
        "from_time" => Ok(hex(
            DistributedId::from_time(i64_of(int(a, "time")?))?.bytes()
        )),
        "encode" => {
            let d = value::<DistributedId>(a, "bytes_hex")?;
            Ok(json!({ "value": match text(a, "encoding")? {
                "integer" => wire_u128(d.to_u128()), "hex" => json!(d.to_hex()),
                "alphanumeric" => json!(alphanumeric::encode_distributed_id(&d)),
                other => return unsupported("distributed_id encoding", other) } }))
        }
        "decode" => {
            let d = match text(a, "encoding")? {
                "integer" => DistributedId::from_numeric_text(&numeric(a)?)?,
                "hex" => DistributedId::from_hex(text(a, "value")?)?,
                "alphanumeric" => alphanumeric::decode_distributed_id(text(a, "value")?)?,
                other => return unsupported("distributed_id encoding", other),
            };
            Ok(hex(d.bytes()))
        }
        "random_increment" => {
            let r = distributed_id::increment_random(
                int(a, "previous_random")? as u64,
                int(a, "draw")? as u64,
            );
            Ok(json!({ "random": r.map(wire) }))
        }
        "random_from_bytes" => {
            let b: [u8; 6] = bytes_of(a, "bytes_hex")?
                .try_into()
                .map_err(|_| bad("6 bytes"))?;
            Ok(json!({ "random": wire(distributed_id::random_from_bytes(b)) }))
        }
        _ => common::<DistributedId>(op, a).unwrap_or_else(|| unsupported("distributed_id", op)),
    }
}

fn uuid_of(a: &Value, key: &str) -> Result<DistributedId128, Refusal> {
    let bytes: [u8; 16] = bytes_of(a, key)?.try_into().map_err(|b: Vec<u8>| {
        Refusal(Some("22P03"), format!("expected 16 bytes, got {}", b.len()))
    })?;
    Ok(DistributedId128::from_bytes(bytes))
}

pub(crate) fn distributed128(op: &str, a: &Value) -> Answer {
    match op {
        "parse" => Ok(hex(&text(a, "text")?
            .parse::<DistributedId128>()?
            .to_bytes())),
        "format" => uuid_of(a, "bytes_hex").map(|u| json!({ "text": u.to_string() })),
        "compare" => Ok(order(
            uuid_of(a, "a")?.to_u128(),
            uuid_of(a, "b")?.to_u128(),
        )),
        "parts" => uuid_of(a, "bytes_hex").map(
            |u| json!({ "parts": { "time": u.unix_micros(), "random": wire_u128(u.random()) } }),
        ),
        "from_parts" => {
            let p = arg(a, "parts")?;
            Ok(hex(&DistributedId128::from_parts(
                i64_of(int(p, "time")?),
                int(p, "random")?,
            )?
            .to_bytes()))
        }
        "from_time" => Ok(hex(
            &DistributedId128::from_time(i64_of(int(a, "time")?))?.to_bytes()
        )),
        "encode" => {
            let u = uuid_of(a, "bytes_hex")?;
            Ok(json!({ "value": match text(a, "encoding")? {
                "numeric" => wire_u128(u.to_u128()),
                "alphanumeric" => json!(alphanumeric::encode_u128_blocks(u.to_bytes())),
                other => return unsupported("distributed_id128 encoding", other) } }))
        }
        "decode" => Ok(hex(&match text(a, "encoding")? {
            "numeric" => DistributedId128::from_numeric_text(&numeric(a)?)?,
            "alphanumeric" => {
                DistributedId128::from_bytes(alphanumeric::decode_u128_blocks(text(a, "value")?)?)
            }
            other => return unsupported("distributed_id128 encoding", other),
        }
        .to_bytes())),
        "random_increment" => {
            let (previous, draw) = (int(a, "previous_random")? as u128, int(a, "draw")? as u128);
            Ok(
                json!({ "random": distributed_id128::increment_random(previous, draw).map(wire_u128) }),
            )
        }
        "random_from_bytes" => {
            let b: [u8; 16] = bytes_of(a, "bytes_hex")?
                .try_into()
                .map_err(|_| bad("16 bytes"))?;
            Ok(json!({ "random": wire_u128(distributed_id128::random_from_bytes(b)) }))
        }
        _ => unsupported("distributed_id128", op),
    }
}

pub(crate) fn flaxid(op: &str, a: &Value) -> Answer {
    match op {
        "parts" => value::<FlaxId>(a, "bytes_hex")
            .map(|f| json!({ "parts": { "time": f.unix_micros(), "random": wire(f.random()) } })),
        "from_parts" => {
            let p = arg(a, "parts")?;
            let millis = i64_of(int(p, "time")?).div_euclid(1000);
            Ok(hex(
                FlaxId::from_parts(millis, i64_of(int(p, "random")?))?.bytes()
            ))
        }
        "from_time" => Ok(hex(FlaxId::from_time(i64_of(int(a, "time")?))?.bytes())),
        _ => common::<FlaxId>(op, a).unwrap_or_else(|| unsupported("flaxid", op)),
    }
}

pub(crate) fn kuid96(op: &str, a: &Value) -> Answer {
    match op {
        "parts" => {
            let p = value::<Kuid96>(a, "bytes_hex")?.parts(interval(a)?)?;
            Ok(json!({ "parts": { "time": wire(p.time), "node": p.node, "seq": p.seq } }))
        }
        "from_parts" => {
            let p = arg(a, "parts")?;
            let node = field(p, "kuid96", "node", u32::MAX.into())? as u32;
            let k = Kuid96::from_parts(
                i64_of(int(p, "time")?),
                node,
                i64_of(int(p, "seq")?),
                interval(a)?,
            )?;
            Ok(hex(k.bytes()))
        }
        "from_time" => Ok(hex(Kuid96::from_time(
            i64_of(int(a, "time")?),
            interval(a)?,
        )?
        .bytes())),
        "globalize" => {
            let node = field(a, "kuid96", "node", u32::MAX.into())? as u32;
            Ok(hex(Kuid96::globalize(
                i64_of(int(a, "kuid64")?),
                node,
                interval(a)?,
            )?
            .bytes()))
        }
        "localize" => {
            let local = value::<Kuid96>(a, "bytes_hex")?.localize(interval(a)?)?;
            Ok(json!({ "kuid64": wire(local) }))
        }
        "node_fingerprint" => Ok(json!({ "node": kuid::node_fingerprint(text(a, "name")?) })),
        _ => common::<Kuid96>(op, a).unwrap_or_else(|| unsupported("kuid96", op)),
    }
}

fn bigint_value(v: i64) -> Value {
    hex(&v.to_be_bytes())
}

pub(crate) fn kuid64(op: &str, a: &Value) -> Answer {
    match op {
        "parse" => Ok(bigint_value(kuid::kuid64_decode(text(a, "text")?)?)),
        "format" => Ok(json!({ "text": kuid::kuid64_encode(bigint(a, "bytes_hex")?)? })),
        "compare" => Ok(order(bigint(a, "a")?, bigint(a, "b")?)),
        "parts" => {
            let p = kuid::kuid64_parts(bigint(a, "bytes_hex")?)?;
            Ok(
                json!({ "parts": { "time": wire(p.time), "megaseconds": p.megaseconds,
                "seconds": p.seconds, "microseconds": p.microseconds, "seq": p.seq } }),
            )
        }
        "from_parts" => {
            let p = arg(a, "parts")?;
            Ok(bigint_value(kuid::kuid64_from_parts(
                i64_of(int(p, "time")?),
                i64_of(int(p, "seq")?),
            )?))
        }
        "from_time" => Ok(bigint_value(kuid::kuid64_from_time(i64_of(int(
            a, "time",
        )?))?)),
        "encode" if text(a, "encoding")? == "integer" => {
            let v = bigint(a, "bytes_hex")?;
            kuid::kuid64_parts(v)?; // a negative bigint is no kuid64
            Ok(json!({ "value": wire(v) }))
        }
        "decode" if text(a, "encoding")? == "integer" => {
            let v = i64::try_from(int(a, "value")?).map_err(|_| bad("not a bigint"))?;
            kuid::kuid64_parts(v)?;
            Ok(bigint_value(v))
        }
        _ => unsupported("kuid64", op),
    }
}

pub(crate) fn snowflake(op: &str, a: &Value) -> Answer {
    match op {
        "parse" => {
            let v: i64 = text(a, "text")?
                .parse()
                .map_err(|_| Refusal(Some("22P02"), "not a bigint".into()))?;
            snowflake::parts(v, snowflake::DEFAULT_EPOCH_MILLIS)?; // refuses a negative one
            Ok(bigint_value(v))
        }
        "format" => Ok(json!({ "text": bigint(a, "bytes_hex")?.to_string() })),
        "compare" => Ok(order(bigint(a, "a")?, bigint(a, "b")?)),
        "parts" => {
            let p = snowflake::parts(bigint(a, "bytes_hex")?, epoch(a)?)?;
            Ok(
                json!({ "parts": { "time": wire(p.time), "worker": p.worker, "process": p.process,
                "sequence": p.sequence } }),
            )
        }
        "from_parts" => {
            let p = arg(a, "parts")?;
            let millis = i64_of(int(p, "time")?).div_euclid(1000);
            let (w, pr, s) = (int(p, "worker")?, int(p, "process")?, int(p, "sequence")?);
            Ok(bigint_value(snowflake::from_parts(
                millis,
                i64_of(w),
                i64_of(pr),
                i64_of(s),
                epoch(a)?,
            )?))
        }
        "from_time" => Ok(bigint_value(snowflake::from_time(
            i64_of(int(a, "time")?),
            epoch(a)?,
        )?)),
        _ => unsupported("snowflake", op),
    }
}

pub(crate) fn plain_bigint(op: &str, a: &Value) -> Answer {
    match (op, text(a, "encoding")?) {
        ("encode", "alphanumeric") => {
            Ok(json!({ "value": alphanumeric::encode_i64(bigint(a, "bytes_hex")?)? }))
        }
        ("decode", "alphanumeric") => {
            Ok(bigint_value(alphanumeric::decode_i64(text(a, "value")?)?))
        }
        _ => unsupported("bigint", op),
    }
}

pub(crate) fn public(op: &str, a: &Value) -> Answer {
    let key = public_id::PublicIdKey::from_base64(text(a, "key_base64")?)?;
    let uuid =
        |s: &str| -> Result<[u8; 16], Refusal> { Ok(s.parse::<DistributedId128>()?.to_bytes()) };
    match op {
        "encrypt" => {
            let input = text(a, "input")?;
            let block = match text(a, "input_type")? {
                "bigint" => key.encrypt_i64(input.parse().map_err(|_| bad("not a bigint"))?)?,
                "distributed_id" => {
                    key.encrypt_distributed_id(&DistributedId::from_numeric_text(input)?)
                }
                "uuid" => key.encrypt_uuid(uuid(input)?),
                other => return unsupported("public_id input_type", other),
            };
            Ok(json!({ "public_id": DistributedId128::from_bytes(block).to_string() }))
        }
        "decrypt" => {
            let block = uuid(text(a, "public_id")?)?;
            Ok(json!({ "value": match text(a, "output_type")? {
                "bigint" => key.decrypt_i64(block).map(|v| json!(v.to_string())),
                "distributed_id" => key.decrypt_distributed_id(block).map(|d| json!(d.to_string())),
                "uuid" => Some(json!(DistributedId128::from_bytes(key.decrypt_uuid(block)).to_string())),
                other => return unsupported("public_id output_type", other),
            } }))
        }
        _ => unsupported("public_id", op),
    }
}
