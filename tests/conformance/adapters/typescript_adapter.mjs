#!/usr/bin/env node
// The conformance adapter of the npm package pg-flake (clients/typescript),
// speaking tests/conformance/PROTOCOL.md on stdin/stdout. Public API only,
// of the built package: `PG_FLAKE_TS` names another copy (an installed one).
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'

const where = process.env.PG_FLAKE_TS ??
  new URL('../../../clients/typescript/dist/esm/index.js', import.meta.url).href
const pf = await import(where.startsWith('file:') ? where : pathToFileURL(where).href)

const int = (v) => BigInt(v)
const wire = (v) => (typeof v === 'bigint' ? ((v <= 2n ** 53n && v >= -(2n ** 53n)) ? Number(v) : v.toString()) : v)
const hexOf = (bytes) => Buffer.from(bytes).toString('hex')
const bytesOf = (hex) => Buffer.from(hex, 'hex')
const big8 = (v) => { const b = Buffer.alloc(8); b.writeBigInt64BE(v); return hexOf(b) }
const bigOf = (hex) => { const b = bytesOf(hex); if (b.length !== 8) throw new pf.FlakeError(`expected 8 bytes, got ${b.length}`, '22P03'); return b.readBigInt64BE() }
const time = (a) => int(a.time)
const order = (x, y) => ({ order: x.compareTo ? x.compareTo(y) : (x < y ? -1 : x > y ? 1 : 0), equal: x.equals ? x.equals(y) : x === y })
const interval = (a) => (a.interval === undefined ? undefined : Number(a.interval))
const epoch = (a) => (a.epoch_ms === undefined ? undefined : int(a.epoch_ms))
const partsOut = (p, drop = ['time']) => {
  const out = {}
  for (const [k, v] of Object.entries(p)) {
    if (drop.includes(k)) continue
    const name = k === 'unixMicros' ? 'time' : k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())
    out[name] = wire(v)
  }
  return out
}

// The native types: one value class each.
function valueType (cls, fromParts, encodings = {}) {
  const value = (hex) => cls.fromBytes(bytesOf(hex))
  return {
    parse: (a) => ({ bytes_hex: hexOf(cls.parse(a.text).toBytes()) }),
    format: (a) => ({ text: value(a.bytes_hex).toString() }),
    parts: (a) => ({ parts: partsOut(value(a.bytes_hex).parts(interval(a))) }),
    from_parts: (a) => ({ bytes_hex: hexOf(fromParts(a.parts, a).toBytes()) }),
    from_time: (a) => ({ bytes_hex: hexOf(cls.fromTime(time(a), interval(a)).toBytes()) }),
    encode: (a) => ({ value: wire(encodings[a.encoding][0](value(a.bytes_hex))) }),
    decode: (a) => ({ bytes_hex: hexOf(encodings[a.encoding][1](a.value).toBytes()) }),
    compare: (a) => order(value(a.a), value(a.b))
  }
}

const TYPES = {
  sno: valueType(pf.Sno, (p) => pf.Sno.fromParts({ time: time(p), meta: p.meta, partition: p.partition, sequence: p.sequence, tickTock: p.tick_tock ?? false })),
  siq: {
    ...valueType(pf.Siq, (p) => pf.Siq.fromParts({ ticks: int(p.ticks), shard: p.shard, domainHash: Number(p.domain_hash), kind: p.kind, serial: p.serial }), {
      did: [(s) => s.did, (v) => pf.Siq.parse(v)],
      hex: [(s) => s.hex, (v) => pf.Siq.fromHex(v)],
      base64: [(s) => s.base64, (v) => pf.Siq.fromBase64(v)],
      integer: [(s) => s.toBigInt(), (v) => pf.Siq.fromBigInt(int(v))]
    }),
    domain_hash: (a) => ({ domain_hash: pf.siqDomainHash(a.domain) })
  },
  distributed_id: valueType(pf.DistributedId, (p) => pf.DistributedId.fromParts({ time: time(p), random: int(p.random) }), {
    integer: [(d) => d.toBigInt(), (v) => pf.DistributedId.fromBigInt(int(v))],
    hex: [(d) => d.hex, (v) => pf.DistributedId.fromHex(v)],
    alphanumeric: [(d) => d.alphanumeric, (v) => pf.DistributedId.fromAlphanumeric(v)]
  }),
  distributed_id128: valueType(pf.DistributedId128, (p) => pf.DistributedId128.fromParts({ time: time(p), random: int(p.random) }), {
    numeric: [(u) => u.toBigInt(), (v) => pf.DistributedId128.fromBigInt(int(v))],
    alphanumeric: [(u) => u.alphanumeric, (v) => pf.DistributedId128.fromAlphanumeric(v)]
  }),
  flaxid: valueType(pf.FlaxId, (p) => pf.FlaxId.fromParts({ time: time(p), random: int(p.random) })),
  kuid96: {
    ...valueType(pf.Kuid96, (p, a) => pf.Kuid96.fromParts({ time: time(p), node: int(p.node), seq: p.seq }, interval(a))),
    globalize: (a) => ({ bytes_hex: hexOf(pf.Kuid96.globalize(int(a.kuid64), int(a.node), interval(a)).toBytes()) }),
    localize: (a) => ({ kuid64: wire(pf.Kuid96.fromBytes(bytesOf(a.bytes_hex)).localize(interval(a))) }),
    node_fingerprint: (a) => ({ node: pf.kuidNodeFingerprint(a.name) })
  },
  kuid64: {
    parse: (a) => ({ bytes_hex: big8(pf.kuid64Decode(a.text)) }),
    format: (a) => ({ text: pf.kuid64Encode(bigOf(a.bytes_hex)) }),
    parts: (a) => ({ parts: partsOut(pf.kuid64Parts(bigOf(a.bytes_hex))) }),
    from_parts: (a) => ({ bytes_hex: big8(pf.kuid64FromParts({ time: time(a.parts), seq: a.parts.seq })) }),
    from_time: (a) => ({ bytes_hex: big8(pf.kuid64FromTime(time(a))) }),
    encode: (a) => { const v = bigOf(a.bytes_hex); pf.kuid64Parts(v); return { value: wire(v) } },
    decode: (a) => { const v = int(a.value); pf.kuid64Encode(v); return { bytes_hex: big8(v) } },
    compare: (a) => order(bigOf(a.a), bigOf(a.b))
  },
  snowflake: {
    parse: (a) => ({ bytes_hex: big8(pf.parseSnowflake(a.text)) }),
    format: (a) => ({ text: bigOf(a.bytes_hex).toString() }),
    parts: (a) => ({ parts: partsOut(pf.snowflakeParts(bigOf(a.bytes_hex), epoch(a))) }),
    from_parts: (a) => ({ bytes_hex: big8(pf.snowflakeFromParts({ time: time(a.parts), worker: a.parts.worker, process: a.parts.process, sequence: a.parts.sequence }, epoch(a))) }),
    from_time: (a) => ({ bytes_hex: big8(pf.snowflakeFromTime(time(a), epoch(a))) }),
    compare: (a) => order(bigOf(a.a), bigOf(a.b))
  },
  bigint: {
    encode: (a) => ({ value: pf.alphanumericEncodeBigint(bigOf(a.bytes_hex)) }),
    decode: (a) => ({ bytes_hex: big8(pf.alphanumericDecodeBigint(a.value)) })
  },
  public_id: {
    encrypt: (a) => {
      const key = pf.PublicIdKey.fromBase64(a.key_base64)
      const made = a.input_type === 'bigint'
        ? key.encryptBigint(int(a.input))
        : a.input_type === 'distributed_id'
          ? key.encryptDistributedId(pf.DistributedId.fromBigInt(int(a.input)))
          : key.encryptUuid(pf.DistributedId128.parse(a.input))
      return { public_id: made.toString() }
    },
    decrypt: (a) => {
      const key = pf.PublicIdKey.fromBase64(a.key_base64)
      const id = pf.DistributedId128.parse(a.public_id)
      const got = a.output_type === 'bigint'
        ? key.decryptBigint(id)
        : a.output_type === 'distributed_id' ? key.decryptDistributedId(id) : key.decryptUuid(id)
      return { value: got === null ? null : got.toString() }
    }
  }
}

function answer (request) {
  const { type, op, args } = request
  if (op === 'hello') return { ok: { language: 'typescript', package: `pg-flake ${pf.VERSION}`, protocol: 1 } }
  const handler = TYPES[type]?.[op]
  if (handler === undefined) return { unsupported: `pg-flake has no ${type} ${op}` }
  try {
    return { ok: handler(args) }
  } catch (error) {
    // The package's refusals carry their SQLSTATE; anything else is a bug.
    return { error: { sqlstate: error instanceof pf.FlakeError ? error.sqlstate : null, message: String(error) } }
  }
}

const out = []
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line) continue
  const request = JSON.parse(line)
  out.push(JSON.stringify({ id: request.id, ...answer(request) }))
  if (out.length >= 512) process.stdout.write(out.splice(0).join('\n') + '\n')
}
if (out.length) process.stdout.write(out.join('\n') + '\n')
