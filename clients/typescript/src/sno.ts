// sno (muyo/sno v1.2.1): 80 bits = 39 bits of 4 ms units since 2010-01-01
// and a tick-tock bit, a metabyte, a 16-bit partition and a 16-bit sequence.
// Text: 16 characters over `23456789abcdefghijklmnopqrstuvwx`
// (docs/sql-reference.md, "sno"; reference implementation core/src/formats/sno.rs).

import { Alphabet, bytesArg } from './codec.js'
import { invalidBinary, invalidText, smallField, timeOutOfRange } from './errors.js'
import { dateOf, floorDiv, type TimeInput, unixMicrosOf } from './time.js'
import { FlakeId } from './value.js'

export const SNO_EPOCH_MICROS = 1_262_304_000_000_000n // 2010-01-01T00:00:00Z
export const SNO_UNIT_MICROS = 4_000n
const MAX_UNITS = (1n << 39n) - 1n
const TIME_RANGE = '2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00'
const SNO32 = new Alphabet('23456789abcdefghijklmnopqrstuvwx')
const EXPECTED = '16 characters from 2-9 and a-x'

/** The fields of a sno, as `sno_parts` returns them. */
export interface SnoParts {
  time: Date
  unixMicros: bigint
  tickTock: boolean
  meta: number
  partition: number
  sequence: number
}

/** What `Sno.fromParts` takes. */
export interface SnoFields {
  time: TimeInput
  meta?: number
  partition?: number
  sequence?: number
  tickTock?: boolean
}

/** 4 ms units since 2010 of a time inside sno's range (22008 outside). */
export function snoUnitsAt (time: TimeInput): bigint {
  const since = unixMicrosOf(time) - SNO_EPOCH_MICROS
  const units = floorDiv(since, SNO_UNIT_MICROS)
  if (since < 0n || units > MAX_UNITS) throw timeOutOfRange('sno', TIME_RANGE)
  return units
}

/** A value of the SQL type `sno`: `Sno.parse('brpk4q72xwf2m63l')`. */
export class Sno extends FlakeId {
  static readonly TYPE_NAME = 'sno'
  static readonly LENGTH = 10

  get typeName (): string { return 'sno' }

  /** The type's text input: exactly 16 characters of the alphabet (22P02 otherwise). */
  static parse (text: string): Sno {
    const bytes = typeof text === 'string' ? SNO32.decode(text, 16, 10) : null
    if (bytes === null) throw invalidText('sno', String(text), EXPECTED)
    return new Sno(bytes)
  }

  /** The value of its 10 stored bytes (22P03 for another length), as `bytea::sno`. */
  static fromBytes (bytes: Uint8Array): Sno {
    const copy = bytesArg(bytes, 'Sno.fromBytes()')
    if (copy.length !== 10) throw invalidBinary('sno', 10, copy.length)
    return new Sno(copy)
  }

  /** `sno_from_parts`: every field range-checked (22003); the time rounds down to its 4 ms unit. */
  static fromParts ({ time, meta = 0, partition = 0, sequence = 0, tickTock = false }: SnoFields): Sno {
    const units = snoUnitsAt(time)
    return Sno.ofFields(Number(units), tickTock,
      smallField('sno', 'meta', meta, 0, 255),
      smallField('sno', 'partition', partition, 0, 65535),
      smallField('sno', 'sequence', sequence, 0, 65535))
  }

  /** `sno_from_time`: the smallest sno at that instant. */
  static fromTime (time: TimeInput): Sno {
    return Sno.ofFields(Number(snoUnitsAt(time)), false, 0, 0, 0)
  }

  /** Fields known to be in range (the leased generator's hot path). */
  static ofFields (units: number, tickTock: boolean, meta: number, partition: number, sequence: number): Sno {
    const b = new Uint8Array(10)
    // 39 bits of units and the tick-tock bit: 5 bytes.
    const head = units * 2 + (tickTock ? 1 : 0)
    const high = Math.floor(head / 0x100000000)
    const low = head - high * 0x100000000
    b[0] = high
    b[1] = low >>> 24
    b[2] = (low >>> 16) & 0xff
    b[3] = (low >>> 8) & 0xff
    b[4] = low & 0xff
    b[5] = meta
    b[6] = partition >> 8
    b[7] = partition & 0xff
    b[8] = sequence >> 8
    b[9] = sequence & 0xff
    return new Sno(b)
  }

  toString (): string { return SNO32.encode(this.raw, 16) }

  /** 4 ms units since 2010-01-01. */
  get units (): number {
    const b = this.raw
    return (b[0] * 0x100000000 + ((b[1] << 24) >>> 0) + (b[2] << 16) + (b[3] << 8) + b[4] - (b[4] & 1)) / 2
  }

  get unixMicros (): bigint { return SNO_EPOCH_MICROS + BigInt(this.units) * SNO_UNIT_MICROS }
  get tickTock (): boolean { return (this.raw[4] & 1) === 1 }
  get meta (): number { return this.raw[5] }
  get partition (): number { return (this.raw[6] << 8) | this.raw[7] }
  get sequence (): number { return (this.raw[8] << 8) | this.raw[9] }

  /** Every field, as `sno_parts`. */
  parts (): SnoParts {
    const unixMicros = this.unixMicros
    return { time: dateOf(unixMicros), unixMicros, tickTock: this.tickTock, meta: this.meta, partition: this.partition, sequence: this.sequence }
  }
}
