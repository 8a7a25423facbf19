// The k-ordered uid (fogfish/uid 1.3.5): Erlang's timestamp triple (A
// megaseconds, B seconds, C microseconds of which only C >> 10 is kept, so
// the unit is 1024 µs) and a 14-bit sequence. kuid64 is a positive `bigint`
// (plain functions on bigint here); kuid96 is the SQL type `kuid96`, which
// carries a 32-bit node inside B at a place given by the neighborhood
// interval I (5–10, not stored in the value; the extension's default is 8).
// docs/sql-reference.md, "k-ordered uid"; reference implementation core/src/formats/kuid.rs.

import { Alphabet, bigIntOf, bytesArg, bytesOf } from './codec.js'
import { describe, field, invalidBinary, invalidParameter, invalidText, timeOutOfRange, valueOutOfRange } from './errors.js'
import { dateOf, type TimeInput, unixMicrosOf } from './time.js'
import { FlakeId } from './value.js'

export const KUID_DEFAULT_INTERVAL = 8
const MAX_SEQ = (1n << 14n) - 1n
const KUID64_TIME_RANGE = '1970-01-01 00:00:00+00 to 18584-01-10 03:33:19.999999+00'
const KUID96_TIME_RANGE = '1970-01-01 00:00:00+00 to 35198-01-19 07:06:39.999999+00'
const KUID64_VALUE_RANGE = '0 to 9223372036854775807'
const KUID64 = new Alphabet('.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz')

/** What `kuid64Parts` returns; `microseconds` is `(C >> 10) << 10`. */
export interface Kuid64Parts {
  time: Date
  unixMicros: bigint
  megaseconds: number
  seconds: number
  microseconds: number
  seq: number
}

/** What `Kuid96#parts` returns for one interval. */
export interface Kuid96Parts {
  time: Date
  unixMicros: bigint
  node: number
  seq: number
}

/** The kuid64 layout of a time (rounded down to its 1024 µs unit) and seq. */
function localBits (time: TimeInput, seq: number | bigint, typeName: string, megasecondsLimit: bigint, accepted: string): bigint {
  const micros = unixMicrosOf(time)
  const seconds = micros / 1_000_000n
  if (micros < 0n || seconds / 1_000_000n >= megasecondsLimit) throw timeOutOfRange(typeName, accepted)
  const s = field(typeName, 'seq', seq, 0n, MAX_SEQ)
  const units = (micros % 1_000_000n) >> 10n
  return ((seconds / 1_000_000n) << 44n) | ((seconds % 1_000_000n) << 24n) | (units << 14n) | s
}

function fieldsOf (local: bigint): [bigint, bigint, bigint, bigint] {
  return [local >> 44n, (local >> 24n) & 0xfffffn, (local >> 14n) & 0x3ffn, local & MAX_SEQ]
}

function microsOf (megaseconds: bigint, seconds: bigint, units: bigint): bigint {
  return (megaseconds * 1_000_000n + seconds) * 1_000_000n + (units << 10n)
}

function kuid64Bits (value: bigint): bigint {
  if (typeof value !== 'bigint') throw new TypeError(`a kuid64 is a bigint, not ${describe(value)}`)
  if (value < 0n || value >> 63n) throw valueOutOfRange('kuid64', String(value), KUID64_VALUE_RANGE)
  return value
}

/** `kuid64_encode`: the 11-character text. */
export function kuid64Encode (value: bigint): string {
  return KUID64.encode(bytesOf(kuid64Bits(value), 8), 11)
}

/** `kuid64_decode`: strict; a value with the top bit set is no positive bigint (22003). */
export function kuid64Decode (text: string): bigint {
  const bytes = typeof text === 'string' ? KUID64.decode(text, 11, 8) : null
  if (bytes === null) {
    throw invalidText('kuid64', String(text), "11 characters from '.', 0-9, A-Z, '_' and a-z whose last two padding bits are zero")
  }
  if (bytes[0] & 0x80) throw valueOutOfRange('kuid64', text, KUID64_VALUE_RANGE)
  return bigIntOf(bytes)
}

/** `kuid64_parts`: the time (start of its 1024 µs unit) and every field. */
export function kuid64Parts (value: bigint): Kuid64Parts {
  const [megaseconds, seconds, units, seq] = fieldsOf(kuid64Bits(value))
  const unixMicros = microsOf(megaseconds, seconds, units)
  return {
    time: dateOf(unixMicros), unixMicros, megaseconds: Number(megaseconds), seconds: Number(seconds),
    microseconds: Number(units << 10n), seq: Number(seq)
  }
}

/** `kuid64_from_parts`: seq 0–16383; the time rounds down to its 1024 µs unit. */
export function kuid64FromParts ({ time, seq = 0 }: { time: TimeInput, seq?: number | bigint }): bigint {
  return localBits(time, seq, 'kuid64', 1n << 19n, KUID64_TIME_RANGE)
}

/** `kuid64_from_time`: the smallest kuid64 at that instant. */
export function kuid64FromTime (time: TimeInput): bigint {
  return kuid64FromParts({ time })
}

/** `kuid_node_fingerprint`: the ELF hash the reference gets from Erlang's `phash2` of the node
 * atom, over the name's Latin-1 bytes (a character above U+00FF counts as its UTF-8 bytes). */
export function kuidNodeFingerprint (name: string): number {
  let h = 0
  for (const c of name) {
    const code = c.codePointAt(0) ?? 0
    const bytes = code < 256 ? [code] : Buffer.from(c, 'utf8')
    for (const byte of bytes) {
      h = ((h << 4) + byte) >>> 0
      const g = h & 0xf0000000
      if (g !== 0) {
        h ^= g >>> 24
        h = (h ^ g) >>> 0
      }
    }
  }
  return h >>> 0
}

/** A number below 2^48 as 6 big-endian bytes at `at`. */
function put48 (b: Uint8Array, at: number, value: number): void {
  const high = Math.floor(value / 0x1000000)
  const low = value - high * 0x1000000
  b[at] = high >>> 16
  b[at + 1] = (high >>> 8) & 0xff
  b[at + 2] = high & 0xff
  b[at + 3] = low >>> 16
  b[at + 4] = (low >>> 8) & 0xff
  b[at + 5] = low & 0xff
}

function checkInterval (interval: number): number {
  if (typeof interval !== 'number' || !Number.isInteger(interval)) throw new TypeError(`a kuid interval is an integer, not ${describe(interval)}`)
  if (interval < 5 || interval > 10) throw invalidParameter(`kuid interval ${interval} is outside 5 to 10`)
  return interval
}

function insertNode (local: bigint, node: bigint, interval: number): bigint {
  const low = BigInt(24 + interval)
  return ((local >> low) << (low + 32n)) | (node << low) | (local & ((1n << low) - 1n))
}

function removeNode (value: bigint, interval: number): [bigint, bigint] {
  const low = BigInt(24 + interval)
  return [((value >> (low + 32n)) << low) | (value & ((1n << low) - 1n)), (value >> low) & 0xffffffffn]
}

/** A value of the SQL type `kuid96`: `Kuid96.parse('.5.tXa0xODNvPN.0')`.
 * Where the node sits depends on the interval, which the value does not store: `time`,
 * `unixMicros` and `node` read it with the default interval 8, `parts(interval)` with any other. */
export class Kuid96 extends FlakeId {
  static readonly TYPE_NAME = 'kuid96'
  static readonly LENGTH = 12

  get typeName (): string { return 'kuid96' }

  static parse (text: string): Kuid96 {
    const bytes = typeof text === 'string' ? KUID64.decode(text, 16, 12) : null
    if (bytes === null) throw invalidText('kuid96', String(text), "16 characters from '.', 0-9, A-Z, '_' and a-z")
    return new Kuid96(bytes)
  }

  static fromBytes (bytes: Uint8Array): Kuid96 {
    const copy = bytesArg(bytes, 'Kuid96.fromBytes()')
    if (copy.length !== 12) throw invalidBinary('kuid96', 12, copy.length)
    return new Kuid96(copy)
  }

  /** `kuid96_from_parts`: node 0 … 2^32 − 1, seq 0–16383. */
  static fromParts ({ time, node = 0, seq = 0 }: { time: TimeInput, node?: number | bigint, seq?: number | bigint },
    interval: number = KUID_DEFAULT_INTERVAL): Kuid96 {
    const n = field('kuid96', 'node', node, 0n, 0xffffffffn)
    const i = checkInterval(interval)
    const local = localBits(time, seq, 'kuid96', 1n << 20n, KUID96_TIME_RANGE)
    return new Kuid96(bytesOf(insertNode(local, n, i), 12))
  }

  /** `kuid96_from_time`: the smallest kuid96 at that instant (node 0, seq 0). */
  static fromTime (time: TimeInput, interval: number = KUID_DEFAULT_INTERVAL): Kuid96 {
    return Kuid96.fromParts({ time }, interval)
  }

  /** `kuid96_globalize`: a kuid64 with a node added. */
  static globalize (kuid64: bigint, node: number | bigint, interval: number = KUID_DEFAULT_INTERVAL): Kuid96 {
    const n = field('kuid96', 'node', node, 0n, 0xffffffffn)
    return new Kuid96(bytesOf(insertNode(kuid64Bits(kuid64), n, checkInterval(interval)), 12))
  }

  /** Fields known to be in range (the leased generator's hot path): a 1024 µs unit
   * (`second * 1024 + (µs >> 10)`), the node, the interval and seq. The 96 bits as two
   * 48-bit numbers, no BigInt: above the low `24 + interval` bits of the kuid64 layout come
   * the node's 32 bits, then the rest of it. */
  static ofUnit (unit: number, node: number, interval: number, seq: number): Kuid96 {
    const second = Math.floor(unit / 1024)
    const megas = Math.floor(second / 1_000_000)
    const seconds = second - megas * 1_000_000
    const low = 24 + interval
    const iPow = 2 ** interval
    const lower = (seconds % iPow) * 0x1000000 + (unit % 1024) * 0x4000 + seq
    const nodeLowBits = 48 - low
    const nodeLow = node % 2 ** nodeLowBits
    const low48 = nodeLow * 2 ** low + lower
    const upper = megas * 2 ** (44 - low) + Math.floor(seconds / iPow)
    const high48 = upper * 2 ** (low - 16) + (node - nodeLow) / 2 ** nodeLowBits
    const b = new Uint8Array(12)
    put48(b, 0, high48)
    put48(b, 6, low48)
    return new Kuid96(b)
  }

  toString (): string { return KUID64.encode(this.raw, 16) }

  /** `kuid96_localize`: the kuid64 without its node (22008 beyond kuid64's time range). */
  localize (interval: number = KUID_DEFAULT_INTERVAL): bigint {
    const [local] = removeNode(bigIntOf(this.raw), checkInterval(interval))
    if (local >> 63n) throw timeOutOfRange('kuid64', KUID64_TIME_RANGE)
    return local
  }

  /** `kuid96_parts(id, interval)`: time, node and seq read with that interval. */
  parts (interval: number = KUID_DEFAULT_INTERVAL): Kuid96Parts {
    const [local, node] = removeNode(bigIntOf(this.raw), checkInterval(interval))
    const [megaseconds, seconds, units, seq] = fieldsOf(local)
    const unixMicros = microsOf(megaseconds, seconds, units)
    return { time: dateOf(unixMicros), unixMicros, node: Number(node), seq: Number(seq) }
  }

  /** Start of the 1024 µs unit, read with the default interval 8. */
  get unixMicros (): bigint { return this.parts().unixMicros }
  /** The node fingerprint, read with the default interval 8. */
  get node (): number { return this.parts().node }
  /** The sequence (the low 14 bits, whatever the interval). */
  get seq (): number { return ((this.raw[10] << 8) | this.raw[11]) & 0x3fff }
}

