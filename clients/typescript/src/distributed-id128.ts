// DistributedId128 (Architect.Identities 2.1.1) on `uuid`: 48 bits of
// milliseconds since 1700-01-01 UTC, the version nibble 7, and a 75-bit
// random R (12 bits, then bit 63 clear, then 63 bits). Text: the uuid
// (docs/sql-reference.md, "distributed_id128 (on uuid)"; reference
// implementation core/src/formats/distributed_id128.rs).

import { alphanumericDecodeU128, alphanumericEncodeU128 } from './alphanumeric.js'
import { bigIntOf, bytesArg, bytesOf, toHex } from './codec.js'
import { field, invalidBinary, invalidText, timeOutOfRange, valueOutOfRange } from './errors.js'
import { dateOf, floorDiv, type TimeInput, unixMicrosOf } from './time.js'
import { FlakeId } from './value.js'

const EPOCH_UNIX_MILLIS = -8_520_336_000_000n // 1700-01-01T00:00:00Z
const MAX_TIMESTAMP_MS = (1n << 48n) - 1n
const MAX_RANDOM = (1n << 75n) - 1n
const LOW_MASK = (1n << 63n) - 1n
const TIME_RANGE = '1700-01-01 00:00:00+00 to 10619-08-04 05:31:50.655999+00'
const VALUE_RANGE = '0 to 340282366920938463463374607431768211455'
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

export interface DistributedId128Parts {
  time: Date
  unixMicros: bigint
  /** R, 75 bits. */
  random: bigint
}

/** A DistributedId128: a `uuid` value. Every uuid decodes (its version nibble and bit 63 are ignored). */
export class DistributedId128 extends FlakeId {
  static readonly TYPE_NAME = 'uuid'
  static readonly LENGTH = 16

  get typeName (): string { return 'uuid' }

  /** The 8-4-4-4-12 uuid text, either case. */
  static parse (text: string): DistributedId128 {
    if (typeof text !== 'string' || !UUID.test(text)) {
      throw invalidText('uuid', String(text), 'a uuid: 32 hexadecimal digits in groups of 8-4-4-4-12')
    }
    return new DistributedId128(bytesOf(BigInt('0x' + text.replace(/-/g, '')), 16))
  }

  static fromBytes (bytes: Uint8Array): DistributedId128 {
    const copy = bytesArg(bytes, 'DistributedId128.fromBytes()')
    if (copy.length !== 16) throw invalidBinary('uuid', 16, copy.length)
    return new DistributedId128(copy)
  }

  /** `distributed_id128_from_numeric`: 0 … 2^128 − 1. */
  static fromBigInt (value: bigint): DistributedId128 {
    if (typeof value !== 'bigint') throw new TypeError('DistributedId128.fromBigInt() takes a bigint')
    if (value < 0n || value >> 128n) throw valueOutOfRange('uuid', String(value), VALUE_RANGE)
    return new DistributedId128(bytesOf(value, 16))
  }

  /** `distributed_id128_from_parts`: R 0 … 2^75 − 1; the time rounds down to the millisecond. */
  static fromParts ({ time, random = 0n }: { time: TimeInput, random?: bigint | number }): DistributedId128 {
    const ms = floorDiv(unixMicrosOf(time), 1000n) - EPOCH_UNIX_MILLIS
    if (ms < 0n || ms > MAX_TIMESTAMP_MS) throw timeOutOfRange('distributed_id128', TIME_RANGE)
    const r = field('distributed_id128', 'random', random, 0n, MAX_RANDOM)
    return new DistributedId128(bytesOf((ms << 80n) | (7n << 76n) | ((r >> 63n) << 64n) | (r & LOW_MASK), 16))
  }

  /** `distributed_id128_from_time`: the smallest value at that instant (R = 0). */
  static fromTime (time: TimeInput): DistributedId128 {
    return DistributedId128.fromParts({ time })
  }

  /** `alphanumeric_decode_uuid`: 22 base62 characters. */
  static fromAlphanumeric (text: string): DistributedId128 {
    return new DistributedId128(bytesOf(alphanumericDecodeU128(text), 16))
  }

  toString (): string {
    const h = toHex(this.raw)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }

  /** `distributed_id128_to_numeric`: the 128-bit integer. */
  toBigInt (): bigint { return bigIntOf(this.raw) }
  get timestampMs (): bigint { return this.toBigInt() >> 80n }
  get random (): bigint {
    const value = this.toBigInt()
    return (((value >> 64n) & 0xfffn) << 63n) | (value & LOW_MASK)
  }

  get unixMicros (): bigint { return (this.timestampMs + EPOCH_UNIX_MILLIS) * 1000n }
  /** `alphanumeric_encode(uuid)`: 22 base62 characters. */
  get alphanumeric (): string { return alphanumericEncodeU128(this.toBigInt()) }

  parts (): DistributedId128Parts {
    const unixMicros = this.unixMicros
    return { time: dateOf(unixMicros), unixMicros, random: this.random }
  }
}
