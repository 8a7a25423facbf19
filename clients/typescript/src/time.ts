// Times in and out. An instant is given as a Date or as a bigint of
// microseconds since 1970-01-01 UTC (for the microseconds a Date cannot
// hold); a value's time comes back both ways (`time`, `unixMicros`).

import { describe } from './errors.js'

/** A time argument: a `Date`, or a `bigint` of microseconds since 1970-01-01 UTC. */
export type TimeInput = Date | bigint

/** Microseconds since 1970-01-01 UTC of a time argument. A plain number is refused:
 * whether it meant milliseconds or microseconds is the caller's knowledge. */
export function unixMicrosOf (time: TimeInput): bigint {
  if (typeof time === 'bigint') return time
  if (time instanceof Date) {
    const ms = time.getTime()
    if (Number.isNaN(ms)) throw new RangeError('invalid Date')
    return BigInt(ms) * 1000n
  }
  throw new TypeError(`a time is a Date or a bigint of microseconds since 1970-01-01 UTC, not ${describe(time)}` +
    (typeof time === 'number' ? ' (for milliseconds, pass new Date(ms))' : ''))
}

/** The Date of `unixMicros`, rounded down to the millisecond. */
export function dateOf (unixMicros: bigint): Date {
  const ms = unixMicros >= 0n ? unixMicros / 1000n : -((-unixMicros + 999n) / 1000n)
  return new Date(Number(ms))
}

/** floor(a / b) for bigints (b > 0). */
export function floorDiv (a: bigint, b: bigint): bigint {
  const q = a / b
  return a % b < 0n ? q - 1n : q
}
