// Snowflake, Discord flavour: a positive `bigint`
// `ms << 22 | worker << 17 | process << 12 | sequence` with `ms` the
// milliseconds since an epoch (Discord's 2015-01-01 by default). No SQL type
// of its own, so plain functions on `bigint`, never `number`: a snowflake
// is above 2^53 (docs/sql-reference.md, "Snowflake"; reference
// implementation core/src/formats/snowflake.rs).

import { describe, field, invalidParameter, invalidText, timeOutOfRange, valueOutOfRange } from './errors.js'
import { dateOf, floorDiv, type TimeInput, unixMicrosOf } from './time.js'

export const DISCORD_EPOCH_MS = 1_420_070_400_000n
const MAX_MILLIS = (1n << 41n) - 1n
const I64 = (1n << 63n) - 1n
const TIME_RANGE = 'the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)'

/** What `snowflake_parts` returns; `time` is the start of the millisecond. */
export interface SnowflakeParts {
  time: Date
  unixMicros: bigint
  worker: number
  process: number
  sequence: number
}

export interface SnowflakeFields {
  time: TimeInput
  worker?: number
  process?: number
  sequence?: number
}

function epochOf (epochMs: bigint | number): bigint {
  const e = typeof epochMs === 'number' && Number.isInteger(epochMs) ? BigInt(epochMs) : epochMs
  if (typeof e !== 'bigint') throw new TypeError(`epochMs must be an integer, not ${describe(epochMs)}`)
  if (e < 0n || e > 253_402_300_799_999n) {
    throw invalidParameter(`snowflake epoch ${e} is outside 0 to 253402300799999 ` +
      '(milliseconds since 1970-01-01 00:00:00 UTC, up to 9999-12-31)')
  }
  return e
}

function snowflakeBits (value: bigint): bigint {
  if (typeof value !== 'bigint') throw new TypeError(`a snowflake is a bigint, not ${describe(value)}`)
  if (value < 0n || value > I64) throw valueOutOfRange('snowflake', String(value), '0 to 9223372036854775807')
  return value
}

/** A snowflake from its decimal text (a bigint column's text), refused when negative or not a bigint. */
export function parseSnowflake (text: string): bigint {
  if (typeof text !== 'string' || !/^-?[0-9]{1,19}$/.test(text)) throw invalidText('bigint', String(text), 'a decimal integer')
  return snowflakeBits(BigInt(text))
}

/** `snowflake_parts(bigint, epoch_ms)`; a negative value is no snowflake (22003). */
export function snowflakeParts (value: bigint, epochMs: bigint | number = DISCORD_EPOCH_MS): SnowflakeParts {
  const e = epochOf(epochMs)
  const v = snowflakeBits(value)
  const unixMicros = ((v >> 22n) + e) * 1000n
  return {
    time: dateOf(unixMicros),
    unixMicros,
    worker: Number((v >> 17n) & 31n),
    process: Number((v >> 12n) & 31n),
    sequence: Number(v & 4095n)
  }
}

/** `snowflake_from_parts`: worker and process 0–31, sequence 0–4095; the time rounds down to the millisecond. */
export function snowflakeFromParts ({ time, worker = 0, process = 0, sequence = 0 }: SnowflakeFields,
  epochMs: bigint | number = DISCORD_EPOCH_MS): bigint {
  const e = epochOf(epochMs)
  const w = field('snowflake', 'worker', worker, 0n, 31n)
  const p = field('snowflake', 'process', process, 0n, 31n)
  const s = field('snowflake', 'sequence', sequence, 0n, 4095n)
  const millis = floorDiv(unixMicrosOf(time), 1000n) - e
  if (millis < 0n || millis > MAX_MILLIS) throw timeOutOfRange('snowflake', TIME_RANGE)
  return (millis << 22n) | (w << 17n) | (p << 12n) | s
}

/** `snowflake_from_time`: the smallest snowflake at that instant. */
export function snowflakeFromTime (time: TimeInput, epochMs: bigint | number = DISCORD_EPOCH_MS): bigint {
  return snowflakeFromParts({ time }, epochMs)
}
