// Flax ID (python-flax-id 1.1.0): 96 bits = 40 bits of milliseconds since
// 2015-01-01 and 56 random bits. Text: 16 characters over `-0-9A-Z_a-z`
// (docs/sql-reference.md, "flaxid"; reference implementation core/src/formats/flaxid.rs).

import { Alphabet, bigIntOf, bytesArg, bytesOf } from './codec.js'
import { field, invalidBinary, invalidText, timeOutOfRange } from './errors.js'
import { dateOf, floorDiv, type TimeInput, unixMicrosOf } from './time.js'
import { FlakeId } from './value.js'

const EPOCH_MILLIS = 1_420_070_400_000n // 2015-01-01T00:00:00Z
const MAX_MILLIS = (1n << 40n) - 1n
const MAX_RANDOM = (1n << 56n) - 1n
const TIME_RANGE = '2015-01-01 00:00:00+00 to 2049-11-03 19:53:47.775+00'
const FLAX64 = new Alphabet('-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz')
const EXPECTED = "16 characters from '-', 0-9, A-Z, '_' and a-z"

export interface FlaxIdParts {
  time: Date
  unixMicros: bigint
  random: bigint
}

/** A value of the SQL type `flaxid`: `FlaxId.parse('17cQYV3E6XowHpdd')`. */
export class FlaxId extends FlakeId {
  static readonly TYPE_NAME = 'flaxid'
  static readonly LENGTH = 12

  get typeName (): string { return 'flaxid' }

  static parse (text: string): FlaxId {
    const bytes = typeof text === 'string' ? FLAX64.decode(text, 16, 12) : null
    if (bytes === null) throw invalidText('flaxid', String(text), EXPECTED)
    return new FlaxId(bytes)
  }

  static fromBytes (bytes: Uint8Array): FlaxId {
    const copy = bytesArg(bytes, 'FlaxId.fromBytes()')
    if (copy.length !== 12) throw invalidBinary('flaxid', 12, copy.length)
    return new FlaxId(copy)
  }

  /** `flaxid_from_parts`: the time rounds down to the millisecond; random 0 … 2^56 − 1. */
  static fromParts ({ time, random = 0n }: { time: TimeInput, random?: bigint | number }): FlaxId {
    const millis = floorDiv(unixMicrosOf(time), 1000n) - EPOCH_MILLIS
    if (millis < 0n || millis > MAX_MILLIS) throw timeOutOfRange('flaxid', TIME_RANGE)
    const r = field('flaxid', 'random', random, 0n, MAX_RANDOM)
    return new FlaxId(bytesOf((millis << 56n) | r, 12))
  }

  /** `flaxid_from_time`: the smallest flaxid at that instant (random 0). */
  static fromTime (time: TimeInput): FlaxId {
    return FlaxId.fromParts({ time })
  }

  toString (): string { return FLAX64.encode(this.raw, 16) }
  get unixMicros (): bigint { return (EPOCH_MILLIS + (bigIntOf(this.raw) >> 56n)) * 1000n }
  get random (): bigint { return bigIntOf(this.raw.subarray(5)) }

  parts (): FlaxIdParts {
    const unixMicros = this.unixMicros
    return { time: dateOf(unixMicros), unixMicros, random: this.random }
  }
}
