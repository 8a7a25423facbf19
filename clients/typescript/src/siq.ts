// SIQ (SUOU suou.iding 0.14.0): 112 bits = 56-bit ticks of 1/65536 s since
// 1970 (40 bits of seconds, 16 of fraction), an 8-bit shard, a 32-bit domain
// hash and 16 bits holding a kind suffix and a serial. Text: the reference's
// 29-character DID body with a CRC-32 (docs/sql-reference.md, "siq";
// reference implementation core/src/formats/siq.rs).

import { createHash } from 'node:crypto'
import { bigIntOf, bytesArg, bytesOf, isHex, toHex } from './codec.js'
import { field, invalidBinary, invalidParameter, invalidText, smallField, timeOutOfRange, valueOutOfRange } from './errors.js'
import { dateOf, floorDiv, type TimeInput, unixMicrosOf } from './time.js'
import { FlakeId } from './value.js'

const MAX_TICKS = (1n << 56n) - 1n
const MAX_VALUE = (1n << 112n) - 1n
const TIME_RANGE = '1970-01-01 00:00:00+00 to 36812-02-20 00:36:15.999999+00'
const VALUE_RANGE = '0 to 5192296858534827628530496329220095'
const DID_PREFIX = 'did:siq:'
const EXPECTED_TEXT = '29 base32 characters (a-z, 2-7) with a valid checksum, optionally prefixed by "did:siq:"'
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/** The SIQ kinds: name → [suffix, suffix width]; the serial has the other 16 − width bits. */
export const SIQ_KINDS: Readonly<Record<string, readonly [number, number]>> = Object.freeze({
  user: [0b00000, 5],
  application: [0b10000, 5],
  event: [0b01000, 5],
  premium: [0b11000, 5],
  group: [0b00100, 5],
  collection: [0b10100, 5],
  invite: [0b01100, 5],
  tag: [0b00010, 5],
  channel: [0b01010, 5],
  thread: [0b0110, 4],
  message: [0b1110, 4],
  ternary: [0b001, 3],
  manytomany: [0b101, 3],
  multi: [0b011, 3],
  content: [0b111, 3]
})

export type SiqKind = 'user' | 'application' | 'event' | 'premium' | 'group' | 'collection' | 'invite' |
'tag' | 'channel' | 'thread' | 'message' | 'ternary' | 'manytomany' | 'multi' | 'content'

/** The fields of a SIQ, as `siq_parts` returns them. */
export interface SiqParts {
  time: Date
  unixMicros: bigint
  /** Ticks of 1/65536 s since 1970-01-01 UTC: the exact time. */
  ticks: bigint
  shard: number
  domainHash: number
  /** null for an unassigned suffix. */
  kind: SiqKind | null
  serial: number
  low16: number
}

/** What `Siq.fromParts` takes: `time` (rounded down to its tick) or `ticks`. */
export interface SiqFields {
  time?: TimeInput
  ticks?: bigint | number
  shard?: number
  domainHash?: number
  kind?: string
  serial?: number
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c
  }
  return table
})()

function crc32 (bytes: Uint8Array): number {
  let c = -1
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8)
  return (c ^ -1) >>> 0
}

function suffixWidth (low16: number): number {
  // Read from the least significant end: a final 1 is a 3-bit suffix, a
  // final 110 a 4-bit one, anything else 5 bits.
  if (low16 & 1) return 3
  return (low16 & 0b111) === 0b110 ? 4 : 5
}

const KIND_OF_SUFFIX = new Map<string, SiqKind>(
  Object.entries(SIQ_KINDS).map(([name, [suffix, width]]) => [`${width}:${suffix}`, name as SiqKind]))

function kindNamed (name: string): SiqKind {
  const lower = typeof name === 'string' ? name.toLowerCase() : ''
  if (Object.prototype.hasOwnProperty.call(SIQ_KINDS, lower)) return lower as SiqKind
  throw invalidParameter(`unknown SIQ kind "${String(name)}"; accepted kinds: ${Object.keys(SIQ_KINDS).join(', ')}`)
}

/** The largest serial of a kind (an unknown kind is 22023). */
export function siqMaxSerial (kind: string): number {
  return (1 << (16 - SIQ_KINDS[kindNamed(kind)][1])) - 1
}

/** floor(µs × 65536 / 10^6), as `siq_from_time`. */
export function siqTicksAt (time: TimeInput): bigint {
  const micros = unixMicrosOf(time)
  const ticks = floorDiv(micros * 65536n, 1_000_000n)
  if (micros < 0n || ticks > MAX_TICKS) throw timeOutOfRange('siq', TIME_RANGE)
  return ticks
}

/** `siq_domain_hash(text)`: the last 4 bytes of SHA-256 of an ASCII domain ('' and '0' give 0). */
export function siqDomainHash (domain: string): number {
  if (typeof domain !== 'string') throw new TypeError('a SIQ domain is a string')
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(domain)) {
    throw invalidParameter(`SIQ domain "${domain}" is not ASCII; pass the punycode (IDNA) form of the domain`)
  }
  if (domain === '' || domain === '0') return 0
  const digest = createHash('sha256').update(domain, 'ascii').digest()
  return digest.readUInt32BE(28)
}

/** A value of the SQL type `siq`: `Siq.parse('crxckuyagku7racaaacmgzymuoabo')`.
 * Text input also takes the `did:siq:` prefix and upper case, and checks the CRC-32. */
export class Siq extends FlakeId {
  static readonly TYPE_NAME = 'siq'
  static readonly LENGTH = 14

  get typeName (): string { return 'siq' }

  static parse (text: string): Siq {
    if (typeof text !== 'string') throw invalidText('siq', String(text), EXPECTED_TEXT)
    const body = text.slice(0, DID_PREFIX.length).toLowerCase() === DID_PREFIX ? text.slice(DID_PREFIX.length) : text
    if (body.length !== 29) throw invalidText('siq', text, EXPECTED_TEXT)
    // 145 bits: the top one belongs to the zero prefix (whose other 15 bits
    // the reference drops), then come the CRC-32 and the 14 bytes.
    let n = 0n
    for (const c of body.toLowerCase()) {
      const v = BASE32.indexOf(c)
      if (v < 0) throw invalidText('siq', text, EXPECTED_TEXT)
      n = (n << 5n) | BigInt(v)
    }
    if (n >> 144n) throw invalidText('siq', text, EXPECTED_TEXT)
    const framed = bytesOf(n, 18)
    const data = framed.slice(4)
    const checksum = ((framed[0] << 24) | (framed[1] << 16) | (framed[2] << 8) | framed[3]) >>> 0
    if (crc32(data) !== checksum) throw invalidText('siq', text, EXPECTED_TEXT)
    return new Siq(data)
  }

  static fromBytes (bytes: Uint8Array): Siq {
    const copy = bytesArg(bytes, 'Siq.fromBytes()')
    if (copy.length !== 14) throw invalidBinary('siq', 14, copy.length)
    return new Siq(copy)
  }

  /** `siq_from_parts`: every field range-checked (22003); `time` rounds down to its tick. */
  static fromParts ({ time, ticks, shard = 0, domainHash = 0, kind = 'user', serial = 0 }: SiqFields): Siq {
    const name = kindNamed(kind)
    const [suffix, width] = SIQ_KINDS[name]
    const s = smallField('siq', 'serial', serial, 0, (1 << (16 - width)) - 1)
    let t: bigint
    if (ticks !== undefined) t = field('siq', 'ticks', ticks, 0n, MAX_TICKS)
    else if (time !== undefined) t = siqTicksAt(time)
    else throw new TypeError('Siq.fromParts() needs time or ticks')
    return Siq.ofFields(t, smallField('siq', 'shard', shard, 0, 255),
      smallField('siq', 'domain_hash', domainHash, 0, 0xffffffff), (s << width) | suffix)
  }

  /** `siq_from_time`: the smallest siq at that instant (every other field zero). */
  static fromTime (time: TimeInput): Siq {
    return Siq.ofFields(siqTicksAt(time), 0, 0, 0)
  }

  /** Fields known to be in range (the leased generator's hot path). */
  static ofFields (ticks: bigint | number, shard: number, domainHash: number, low16: number): Siq {
    // The 56 bits of ticks as 32 high and 24 low bits (a number is below 2^53).
    let high: number
    let low: number
    if (typeof ticks === 'bigint') {
      high = Number(ticks >> 24n)
      low = Number(ticks & 0xffffffn)
    } else {
      high = Math.floor(ticks / 0x1000000)
      low = ticks - high * 0x1000000
    }
    const b = new Uint8Array(14)
    b[0] = high >>> 24
    b[1] = (high >>> 16) & 0xff
    b[2] = (high >>> 8) & 0xff
    b[3] = high & 0xff
    b[4] = low >>> 16
    b[5] = (low >>> 8) & 0xff
    b[6] = low & 0xff
    b[7] = shard
    b[8] = domainHash >>> 24
    b[9] = (domainHash >>> 16) & 0xff
    b[10] = (domainHash >>> 8) & 0xff
    b[11] = domainHash & 0xff
    b[12] = low16 >> 8
    b[13] = low16 & 0xff
    return new Siq(b)
  }

  /** `numeric::siq`: the 112-bit integer. */
  static fromBigInt (value: bigint): Siq {
    if (typeof value !== 'bigint') throw new TypeError('Siq.fromBigInt() takes a bigint')
    if (value < 0n || value > MAX_VALUE) throw valueOutOfRange('siq', String(value), VALUE_RANGE)
    return new Siq(bytesOf(value, 14))
  }

  /** `siq_from_hex`: 1 to 28 hexadecimal digits, any case. */
  static fromHex (text: string): Siq {
    if (typeof text !== 'string' || text.length < 1 || text.length > 28 || !isHex(text)) {
      throw invalidText('siq', String(text), '1 to 28 hexadecimal digits')
    }
    return new Siq(bytesOf(BigInt('0x' + text), 14))
  }

  /** The inverse of `base64`: 20 URL-safe characters whose first byte is zero. */
  static fromBase64 (text: string): Siq {
    if (typeof text !== 'string' || !/^[A-Za-z0-9_-]{20}$/.test(text)) {
      throw invalidText('siq', String(text), '20 URL-safe base64 characters')
    }
    const data = Buffer.from(text, 'base64url')
    if (data[0] !== 0) throw valueOutOfRange('siq', text, VALUE_RANGE)
    return new Siq(new Uint8Array(data.subarray(1)))
  }

  toString (): string {
    const framed = new Uint8Array(18)
    const crc = crc32(this.raw)
    framed[0] = crc >>> 24
    framed[1] = (crc >>> 16) & 0xff
    framed[2] = (crc >>> 8) & 0xff
    framed[3] = crc & 0xff
    framed.set(this.raw, 4)
    // 144 bits: 29 characters of 5 bits, the first one 4 bits.
    let out = BASE32[framed[0] >> 4]
    let acc = framed[0] & 0xf
    let held = 4
    for (let i = 1; i < 18; i++) {
      acc = ((acc << 8) | framed[i]) & 0xffff
      held += 8
      while (held >= 5) {
        held -= 5
        out += BASE32[(acc >> held) & 31]
      }
    }
    return out
  }

  /** `siq::numeric`: the 112-bit integer. */
  toBigInt (): bigint { return bigIntOf(this.raw) }

  /** Ticks of 1/65536 s since 1970-01-01 UTC: the exact time. */
  get ticks (): bigint { return bigIntOf(this.raw.subarray(0, 7)) }
  /** Start of the tick, rounded down to the microsecond (as `siq_timestamp`). */
  get unixMicros (): bigint { return (this.ticks * 1_000_000n) / 65536n }
  get shard (): number { return this.raw[7] }
  get domainHash (): number { return ((this.raw[8] << 24) | (this.raw[9] << 16) | (this.raw[10] << 8) | this.raw[11]) >>> 0 }
  get low16 (): number { return (this.raw[12] << 8) | this.raw[13] }

  /** The kind's name, null for an unassigned suffix. */
  get kind (): SiqKind | null {
    const low16 = this.low16
    const width = suffixWidth(low16)
    return KIND_OF_SUFFIX.get(`${width}:${low16 & ((1 << width) - 1)}`) ?? null
  }

  get serial (): number { return this.low16 >> suffixWidth(this.low16) }
  /** `siq_to_did`. */
  get did (): string { return DID_PREFIX + this.toString() }
  /** `siq_to_hex`: 28 lower-case digits. */
  get hex (): string { return toHex(this.raw) }
  /** `siq_to_base64`: URL-safe base64 of a zero byte and the 14 bytes (20 characters). */
  get base64 (): string {
    const data = new Uint8Array(15)
    data.set(this.raw, 1)
    return Buffer.from(data).toString('base64url')
  }

  parts (): SiqParts {
    const unixMicros = this.unixMicros
    return {
      time: dateOf(unixMicros), unixMicros, ticks: this.ticks, shard: this.shard, domainHash: this.domainHash,
      kind: this.kind, serial: this.serial, low16: this.low16
    }
  }
}
