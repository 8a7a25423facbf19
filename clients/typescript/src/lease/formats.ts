// The leased formats: their time units as numbers that grow with time, and
// the assembly of an ID from a unit and a sequence with the lease's node and
// process (core/src/leased/{sno,snowflake,kuid96,siq}.rs). Times are
// microseconds since 1970 as JavaScript numbers: exact integers below 2^53
// (until year 2255), and every unit index fits one too.

import { Kuid96 } from '../kuid.js'
import { SIQ_KINDS, Siq, siqDomainHash, siqMaxSerial, type SiqKind } from '../siq.js'
import { Sno } from '../sno.js'
import { smallField } from '../errors.js'
import { LeaseError } from './errors.js'
import type { Lease, LeasedFormatName } from './source.js'

export interface LeasedFormat<Id> {
  readonly name: LeasedFormatName
  /** The unit holding the instant `micros`. */
  unitAt: (micros: number) => number
  /** The time its IDs decode to: the unit's start rounded down to the microsecond. */
  decodedStart: (unit: number) => number
  /** The unit's end (the next unit's exact start), rounded up to the microsecond. */
  endCeil: (unit: number) => number
  next: (unit: number) => number
  maxSequence: (kind: string) => number
  build: (unit: number, sequence: number, kind: string) => Id
  /** The kind IDs get when none is given ('' for the formats without kinds). */
  readonly defaultKind: string
}

const SNO_EPOCH = 1_262_304_000_000_000

/** sno: 4 ms units since 2010; partition = node << 8 | process; tick-tock 0. */
function snoFormat (lease: Lease, meta: number): LeasedFormat<Sno> {
  const m = smallField('sno', 'meta', meta, 0, 255)
  const partition = smallField('sno', 'partition', lease.node * 256 + lease.process, 0, 65535)
  const start = (unit: number): number => SNO_EPOCH + unit * 4000
  return {
    name: 'sno',
    defaultKind: '',
    unitAt: (micros) => Math.floor((micros - SNO_EPOCH) / 4000),
    decodedStart: start,
    endCeil: (unit) => start(unit + 1),
    next: (unit) => unit + 1,
    maxSequence: () => 65535,
    build: (unit, sequence) => Sno.ofFields(unit, false, m, partition, sequence)
  }
}

/** Snowflake: milliseconds since the lease's epoch; worker = node. */
function snowflakeFormat (lease: Lease): LeasedFormat<bigint> {
  if (lease.epochMs === null) throw new LeaseError(`lease ${lease.leaseId} of snowflake has no epoch_ms`)
  const epochMs = Number(lease.epochMs)
  const low = BigInt((smallField('snowflake', 'worker', lease.node, 0, 31) << 17) |
    (smallField('snowflake', 'process', lease.process, 0, 31) << 12))
  const start = (unit: number): number => (epochMs + unit) * 1000
  return {
    name: 'snowflake',
    defaultKind: '',
    unitAt: (micros) => Math.floor(micros / 1000) - epochMs,
    decodedStart: start,
    endCeil: (unit) => start(unit + 1),
    next: (unit) => unit + 1,
    maxSequence: () => 4095,
    build: (unit, sequence) => (BigInt(unit) << 22n) | low | BigInt(sequence)
  }
}

/** kuid96: 1024 µs units within each second (the last one of a second is 576 µs); a unit is
 * `second * 1024 + (µs >> 10)`. */
function kuid96Format (lease: Lease): LeasedFormat<Kuid96> {
  if (lease.kuidInterval === null) throw new LeaseError(`lease ${lease.leaseId} of kuid96 has no kuid_interval`)
  const interval = lease.kuidInterval
  const node = lease.node
  Kuid96.fromParts({ time: 0n, node, seq: 0 }, interval) // checks the node and interval now
  const start = (unit: number): number => Math.floor(unit / 1024) * 1_000_000 + (unit % 1024) * 1024
  // 999_424 µs starts the last unit of a second.
  const next = (unit: number): number => (unit % 1024 < 976 ? unit + 1 : (Math.floor(unit / 1024) + 1) * 1024)
  return {
    name: 'kuid96',
    defaultKind: '',
    unitAt: (micros) => Math.floor(micros / 1_000_000) * 1024 + ((micros % 1_000_000) >> 10),
    decodedStart: start,
    endCeil: (unit) => start(next(unit)),
    next,
    maxSequence: () => 16383,
    build: (unit, sequence) => Kuid96.ofUnit(unit, node, interval, sequence)
  }
}

/** SIQ: ticks of 1/65536 s (1e6/65536 = 15625/1024 µs); shard = process; the node in the
 * domain hash's top byte; a serial per kind per tick. */
function siqFormat (lease: Lease, domain: string, kind: string): LeasedFormat<Siq> {
  const shard = smallField('siq', 'shard', lease.process, 0, 255)
  const domainHash = (((siqDomainHash(domain) & 0x00ffffff) | (smallField('siq', 'node', lease.node, 0, 255) << 24)) >>> 0)
  siqMaxSerial(kind) // an unknown kind is 22023, now
  const tickAt = (micros: number): number => {
    const q = Math.floor(micros / 15625)
    return q * 1024 + Math.floor(((micros - q * 15625) * 1024) / 15625)
  }
  const floorMicros = (tick: number): number => {
    const q = Math.floor(tick / 1024)
    return q * 15625 + Math.floor(((tick - q * 1024) * 15625) / 1024)
  }
  const ceilMicros = (tick: number): number => {
    const q = Math.floor(tick / 1024)
    return q * 15625 + Math.ceil(((tick - q * 1024) * 15625) / 1024)
  }
  // The kinds met so far: their largest serial (an unknown kind is refused, 22023, every time).
  const maxSerials = new Map<string, number>()
  const maxSequence = (k: string): number => {
    let max = maxSerials.get(k)
    if (max === undefined) {
      max = siqMaxSerial(k)
      maxSerials.set(k, max)
    }
    return max
  }
  return {
    name: 'siq',
    defaultKind: kind.toLowerCase(),
    unitAt: tickAt,
    decodedStart: floorMicros,
    endCeil: (tick) => ceilMicros(tick + 1),
    next: (tick) => tick + 1,
    maxSequence,
    build: (tick, serial, k) => {
      const [suffix, width] = SIQ_KINDS[k]
      return Siq.ofFields(tick, shard, domainHash, (serial << width) | suffix)
    }
  }
}

export interface FormatOptions {
  /** sno: the metabyte (0). */
  meta?: number
  /** siq: the domain hashed into the IDs ('') */
  domain?: string
  /** siq: the kind `generate()` gives when none is named ('user'). */
  kind?: SiqKind
}

export function formatFor (lease: Lease, options: FormatOptions): LeasedFormat<unknown> {
  switch (lease.format) {
    case 'sno': return snoFormat(lease, options.meta ?? 0)
    case 'snowflake': return snowflakeFormat(lease)
    case 'kuid96': return kuid96Format(lease)
    case 'siq': return siqFormat(lease, options.domain ?? '', options.kind ?? 'user')
    default: throw new LeaseError(`no leased generator for format "${String(lease.format)}"`)
  }
}
