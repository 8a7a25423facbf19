// DistributedId (Architect.Identities 2.1.1): the non-negative integer
// `id = ts · 2^48 + r` with `ts` 45 bits of milliseconds since 1900-01-01
// UTC and `r` 48 random bits, stored in 12 bytes; valid values 0 … 10^28 − 1.
// Text: the plain decimal integer (docs/sql-reference.md, "distributed_id";
// reference implementation core/src/formats/distributed_id.rs).

import { decodeBase62, encodeBase62 } from './alphanumeric.js'
import { bigIntOf, bytesArg, bytesOf, isHex } from './codec.js'
import { field, invalidBinary, invalidText, timeOutOfRange, valueOutOfRange } from './errors.js'
import { dateOf, floorDiv, type TimeInput, unixMicrosOf } from './time.js'
import { FlakeId } from './value.js'

const EPOCH_UNIX_MILLIS = -2_208_988_800_000n // 1900-01-01T00:00:00Z
const MAX_TIMESTAMP_MS = (1n << 45n) - 1n
const MAX_RANDOM = (1n << 48n) - 1n
const MAX_VALUE = 10n ** 28n - 1n
const U64 = (1n << 64n) - 1n
const TIME_RANGE = '1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00'
const VALUE_RANGE = '0 to 9999999999999999999999999999'

/** The fields of a DistributedId, as `distributed_id_parts` returns them. */
export interface DistributedIdParts {
  time: Date
  unixMicros: bigint
  random: bigint
}

/** A value of the SQL type `distributed_id`: `DistributedId.parse('1088824355131185736905670087')`. */
export class DistributedId extends FlakeId {
  static readonly TYPE_NAME = 'distributed_id'
  static readonly LENGTH = 12

  get typeName (): string { return 'distributed_id' }

  /** The type's text input: decimal digits (white space around them is skipped, as PostgreSQL does). */
  static parse (text: string): DistributedId {
    const digits = typeof text === 'string' ? text.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '') : ''
    if (!/^[0-9]+$/.test(digits)) throw invalidText('distributed_id', String(text), '1 to 28 decimal digits')
    if (digits.replace(/^0+/, '').length > 28) throw valueOutOfRange('distributed_id', text, VALUE_RANGE)
    return new DistributedId(bytesOf(BigInt(digits), 12))
  }

  /** The value of its 12 stored bytes (22P03 for another length, 22003 above 10^28 − 1). */
  static fromBytes (bytes: Uint8Array): DistributedId {
    const copy = bytesArg(bytes, 'DistributedId.fromBytes()')
    if (copy.length !== 12) throw invalidBinary('distributed_id', 12, copy.length)
    const value = bigIntOf(copy)
    if (value > MAX_VALUE) throw valueOutOfRange('distributed_id', String(value), VALUE_RANGE)
    return new DistributedId(copy)
  }

  /** `numeric::distributed_id`: 0 … 10^28 − 1. */
  static fromBigInt (value: bigint): DistributedId {
    if (typeof value !== 'bigint') throw new TypeError('DistributedId.fromBigInt() takes a bigint')
    if (value < 0n || value > MAX_VALUE) throw valueOutOfRange('distributed_id', String(value), VALUE_RANGE)
    return new DistributedId(bytesOf(value, 12))
  }

  /** `distributed_id_from_parts`: the time rounds down to the millisecond; random 0 … 2^48 − 1. */
  static fromParts ({ time, random = 0n }: { time: TimeInput, random?: bigint | number }): DistributedId {
    const ms = floorDiv(unixMicrosOf(time), 1000n) - EPOCH_UNIX_MILLIS
    if (ms < 0n || ms > MAX_TIMESTAMP_MS) throw timeOutOfRange('distributed_id', TIME_RANGE)
    const r = field('distributed_id', 'random', random, 0n, MAX_RANDOM)
    return new DistributedId(bytesOf((ms << 48n) | r, 12))
  }

  /** `distributed_id_from_time`: the smallest value at that instant (random 0). */
  static fromTime (time: TimeInput): DistributedId {
    return DistributedId.fromParts({ time })
  }

  /** `distributed_id_from_hex`: exactly 26 hexadecimal digits, any case. */
  static fromHex (text: string): DistributedId {
    if (typeof text !== 'string' || text.length !== 26 || !isHex(text)) {
      throw invalidText('distributed_id', String(text), 'exactly 26 hexadecimal digits')
    }
    const value = BigInt('0x' + text)
    if (value > MAX_VALUE) throw valueOutOfRange('distributed_id', text, VALUE_RANGE)
    return new DistributedId(bytesOf(value, 12))
  }

  /** `alphanumeric_decode_distributed_id`: 16 base62 characters. */
  static fromAlphanumeric (text: string): DistributedId {
    const high = typeof text === 'string' && text.length === 16 ? decodeBase62(text.slice(0, 5)) : null
    const low = high !== null ? decodeBase62(text.slice(5)) : null
    if (high === null || low === null) {
      throw invalidText('distributed_id', String(text), '16 characters of 0-9, A-Z, a-z, the last 11 at most LygHa16AHYF')
    }
    const value = (high << 64n) | low
    if (value > MAX_VALUE) {
      throw valueOutOfRange('distributed_id', text, '0000000000000000 to agbFu5KnEQGxp4QB (0 to 9999999999999999999999999999)')
    }
    return new DistributedId(bytesOf(value, 12))
  }

  toString (): string { return this.toBigInt().toString() }
  /** The integer (`distributed_id::numeric`). */
  toBigInt (): bigint { return bigIntOf(this.raw) }
  /** `id >> 48`: milliseconds since 1900-01-01 UTC. */
  get timestampMs (): bigint { return this.toBigInt() >> 48n }
  get random (): bigint { return this.toBigInt() & MAX_RANDOM }
  get unixMicros (): bigint { return (this.timestampMs + EPOCH_UNIX_MILLIS) * 1000n }
  /** `distributed_id_to_hex`: 26 upper-case digits. */
  get hex (): string { return this.toBigInt().toString(16).toUpperCase().padStart(26, '0') }
  /** `alphanumeric_encode(distributed_id)`: 16 base62 characters. */
  get alphanumeric (): string {
    const value = this.toBigInt()
    return encodeBase62(value >> 64n, 5) + encodeBase62(value & U64, 11)
  }

  parts (): DistributedIdParts {
    const unixMicros = this.unixMicros
    return { time: dateOf(unixMicros), unixMicros, random: this.random }
  }
}
