// Leased generators: IDs made in the application under a unit and a time
// window the database grants (docs/applications.md, "Generating IDs in your
// application"), with the contract of the Rust and Python ones
// (core/src/leased/mod.rs, python/pg_flake/lease.py):
//
// - its time is the database's: `server_time` of the last lease or renewal
//   advanced by the monotonic clock (performance.now()), never the wall
//   clock, so a wrong or stepped machine clock cannot move IDs out of the window;
// - it uses only time units wholly inside the window, ending by `expires`
//   minus a safety margin (1 s or a tenth of the TTL, the smaller);
// - it renews in the background halfway to that end; when renewing fails it
//   goes on while units fit and then throws LeaseExpired, never an ID outside
//   the window; a renewal's row must be its own lease's (the database lets
//   only the lease's role renew it);
// - a used-up unit moves on to the next unit ahead of the clock (as the
//   database's generators do), at most a minute ahead (LeaseClockBehind);
// - generate() is synchronous and does no I/O: renewals run on the event
//   loop (a timer), and generate() only reads the clock and counts;
// - a generator belongs to the isolate and process that took its lease:
//   structured cloning it (postMessage to a worker_thread) throws, and a
//   process that did not take it refuses (LeaseForked); cluster workers and
//   worker_threads each take their own lease.

import { performance } from 'node:perf_hooks'
import { LeaseClockBehind, LeaseError, LeaseExpired, LeaseForked, LeaseWouldWait } from './errors.js'
import { formatFor, type FormatOptions, type LeasedFormat } from './formats.js'
import { LEASED_FORMATS, PgLeases, type Lease, type LeaseConnection, type LeasedFormatName, type LeaseSource } from './source.js'
import type { Kuid96 } from '../kuid.js'
import type { Siq, SiqKind } from '../siq.js'
import type { Sno } from '../sno.js'

/** How far ahead of the database's time an ID may be (core/src/sequencer.rs DEFAULT_MAX_LEAD). */
const MAX_LEAD_MICROS = 60_000_000
/** The database's SQLSTATEs after which a lease is never renewed again: expired, released or
 * superseded (55000), unknown (22023), another role's (42501). */
const FINAL_STATES = new Set(['55000', '22023', '42501'])

export interface GeneratorOptions extends FormatOptions {
  /** The monotonic clock, milliseconds (performance.now()); tests give their own. */
  monotonicMs?: () => number
}

export interface TakeOptions extends GeneratorOptions {
  /** A label for the lease (`pg_flake_leases.holder`): 1–200 characters. */
  holder: string
  /** The lease's time to live, in seconds (1 to 86400; default 30). */
  ttl?: number
  /** Wait for the window's start before resolving (default true), so that generate() can make an ID at once. */
  wait?: boolean
}

/** The database's time: `server_time` of the last response plus the monotonic time since it arrived. */
class DatabaseClock {
  #serverMicros: number
  #at: number
  readonly #monotonicMs: () => number

  constructor (serverMicros: bigint, at: number, monotonicMs: () => number) {
    this.#serverMicros = Number(serverMicros)
    this.#at = at
    this.#monotonicMs = monotonicMs
  }

  sync (serverMicros: bigint, at: number): void {
    this.#serverMicros = Number(serverMicros)
    this.#at = at
  }

  nowMicros (): number {
    return this.#serverMicros + (this.#monotonicMs() - this.#at) * 1000
  }
}

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

/** IDs of one format inside a lease's window (see the module's description). */
export class LeasedGenerator<Id> {
  /** Structured cloning a generator (postMessage, structuredClone, v8.serialize) throws
   * DataCloneError: a lease is one isolate's. */
  readonly notTransferable: () => never = () => { throw new LeaseError('a leased generator stays in its isolate') }

  readonly #source: LeaseSource
  readonly #ownsSource: boolean
  readonly #ttlMs: number
  readonly #ownerPid = process.pid
  readonly #format: LeasedFormat<Id>
  #lease: Lease
  readonly #clock: DatabaseClock
  readonly #monotonicMs: () => number
  readonly #first: number
  readonly #firstStart: number
  #limit = 0
  #mark = 0
  #renewAt = 0
  #expiresMicros = 0
  #lastUnit = -1
  #sequence = -1
  readonly #sequences = new Map<string, number>()
  #released = false
  #expired = false
  #renewable = true
  #renewal: Promise<void> | null = null
  #renewError: unknown = undefined
  #timer: NodeJS.Timeout | null = null

  /** A generator for a lease already taken (`LeasedGenerator.take` takes one). `arrived`: the
   * performance.now() reading when the lease's row arrived. */
  constructor (source: LeaseSource, lease: Lease, ttlMs: number, options: GeneratorOptions = {}, arrived?: number,
    ownsSource = false) {
    this.#monotonicMs = options.monotonicMs ?? (() => performance.now())
    if (!LEASED_FORMATS.includes(lease.format)) throw new LeaseError(`no leased generator for format "${lease.format}"`)
    if (lease.expires <= lease.notBefore) throw new LeaseError(`lease ${lease.leaseId} has an empty window`)
    this.#source = source
    this.#ownsSource = ownsSource
    this.#ttlMs = ttlMs
    this.#lease = lease
    this.#format = formatFor(lease, options) as LeasedFormat<Id>
    this.#clock = new DatabaseClock(lease.serverTime, arrived ?? this.#monotonicMs(), this.#monotonicMs)
    // The first unit whose IDs decode to a time at or after not_before: units
    // before it may be the predecessor's.
    const notBefore = Number(lease.notBefore)
    let first = this.#format.unitAt(notBefore)
    while (this.#format.decodedStart(first) < notBefore) first = this.#format.next(first)
    this.#first = first
    this.#firstStart = this.#format.decodedStart(first)
    this.#setWindow()
    Object.defineProperty(this, 'notTransferable', { enumerable: true, writable: false })
  }

  /** Takes a lease of `format` (`pg_flake_lease`) for `options.holder`. `connection`: a
   * `pg.Pool`, a `pg.Client` (outside any transaction), or a connection string or config, for
   * which the generator opens a client of its own (`close()` ends it). Database errors (53400
   * when every unit is held, …) are LeaseErrors with their `sqlstate`. */
  static async take (connection: LeaseConnection | LeaseSource, format: 'sno', options: TakeOptions): Promise<LeasedGenerator<Sno>>
  static async take (connection: LeaseConnection | LeaseSource, format: 'snowflake', options: TakeOptions): Promise<LeasedGenerator<bigint>>
  static async take (connection: LeaseConnection | LeaseSource, format: 'kuid96', options: TakeOptions): Promise<LeasedGenerator<Kuid96>>
  static async take (connection: LeaseConnection | LeaseSource, format: 'siq', options: TakeOptions): Promise<LeasedGenerator<Siq>>
  static async take (connection: LeaseConnection | LeaseSource, format: LeasedFormatName, options: TakeOptions): Promise<LeasedGenerator<unknown>>
  static async take (connection: LeaseConnection | LeaseSource, format: LeasedFormatName, options: TakeOptions): Promise<LeasedGenerator<unknown>> {
    if (!LEASED_FORMATS.includes(format)) {
      throw new TypeError(`no leases for format "${String(format)}"; accepted formats: ${LEASED_FORMATS.join(', ')} (kuid64 has no node field: use kuid96)`)
    }
    if (typeof options?.holder !== 'string') throw new TypeError('take() needs options.holder, a label for the lease')
    const ttlMs = (options.ttl ?? 30) * 1000
    const isSource = typeof (connection as LeaseSource).renew === 'function'
    const source = isSource ? connection as LeaseSource : new PgLeases(connection as LeaseConnection)
    let lease: Lease
    try {
      lease = await source.lease(format, options.holder, ttlMs)
    } catch (error) {
      if (!isSource) await source.close?.()
      throw error
    }
    const arrived = (options.monotonicMs ?? (() => performance.now()))()
    if (lease.format !== format) throw new LeaseError(`asked for a lease of ${format}, got one of ${lease.format}`)
    let generator: LeasedGenerator<unknown>
    try {
      generator = new LeasedGenerator(source, lease, ttlMs, options, arrived, !isSource)
    } catch (error) {
      await source.release(lease.leaseId, null).catch(() => false)
      if (!isSource) await source.close?.()
      throw error
    }
    if (options.wait !== false) await generator.ready()
    return generator
  }

  /** A leased sno generator: partition = node << 8 | process, the given metabyte. */
  static async sno (connection: LeaseConnection | LeaseSource, options: TakeOptions): Promise<LeasedGenerator<Sno>> {
    return await LeasedGenerator.take(connection, 'sno', options)
  }

  /** A leased Snowflake generator (`bigint`s): worker = node, process = the lease's, its epoch. */
  static async snowflake (connection: LeaseConnection | LeaseSource, options: TakeOptions): Promise<LeasedGenerator<bigint>> {
    return await LeasedGenerator.take(connection, 'snowflake', options)
  }

  /** A leased kuid96 generator: the lease's 32-bit node and interval. */
  static async kuid96 (connection: LeaseConnection | LeaseSource, options: TakeOptions): Promise<LeasedGenerator<Kuid96>> {
    return await LeasedGenerator.take(connection, 'kuid96', options)
  }

  /** A leased SIQ generator: shard = process, the node in the domain hash's top byte. */
  static async siq (connection: LeaseConnection | LeaseSource, options: TakeOptions): Promise<LeasedGenerator<Siq>> {
    return await LeasedGenerator.take(connection, 'siq', options)
  }

  /** The lease as last granted or renewed. */
  get lease (): Readonly<Lease> { return { ...this.#lease, expires: BigInt(this.#expiresMicros) } }
  /** The last renewal's error, undefined after a successful one. */
  get renewError (): unknown { return this.#renewError }
  /** Start of the last unit used (microseconds, as its IDs decode), null before any ID. */
  get lastUsedMicros (): bigint | null {
    return this.#lastUnit < 0 ? null : BigInt(this.#format.decodedStart(this.#lastUnit))
  }

  /** The database's time now, microseconds since 1970 (server_time advanced by the monotonic clock). */
  nowMicros (): number { return this.#clock.nowMicros() }

  /** Units must end by `expires - safety`; a renewal is due halfway from now (or not_before) to that. */
  #setWindow (): void {
    const ttlMicros = this.#ttlMs * 1000
    const safety = Math.min(1_000_000, Math.floor(ttlMicros / 10))
    this.#expiresMicros = Math.max(this.#expiresMicros, Number(this.#lease.expires))
    this.#limit = this.#expiresMicros - safety
    const format = this.#format
    let mark = format.unitAt(this.#limit - 1)
    if (format.endCeil(mark) > this.#limit) mark -= 1
    this.#mark = mark
    const from = Math.max(this.#clock.nowMicros(), Number(this.#lease.notBefore))
    this.#renewAt = from + Math.max(this.#limit - from, 0) / 2
    this.#schedule(this.#renewAt)
  }

  #schedule (atMicros: number): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    const delayMs = Math.max(0, (atMicros - this.#clock.nowMicros()) / 1000)
    // unref: a generator alone does not keep the process running.
    this.#timer = setTimeout(() => { this.#timer = null; void this.renew() }, delayMs)
    this.#timer.unref()
  }

  /** Renews the lease now (the generator does it by itself when due); one renewal at a time. */
  async renew (): Promise<void> {
    if (this.#renewal !== null) return await this.#renewal
    if (this.#released || this.#expired || !this.#renewable || process.pid !== this.#ownerPid) return
    this.#renewal = this.#renewOnce().finally(() => { this.#renewal = null })
    return await this.#renewal
  }

  async #renewOnce (): Promise<void> {
    const lease = this.#lease
    let row: Lease
    let arrived: number
    try {
      row = await this.#source.renew(lease.leaseId, this.#ttlMs)
      arrived = this.#monotonicMs()
    } catch (error) {
      if (this.#released) return
      this.#renewError = error
      const state = (error as { sqlstate?: string }).sqlstate
      const now = this.#clock.nowMicros()
      if ((state !== undefined && FINAL_STATES.has(state)) || now >= this.#expiresMicros) {
        // The database said the lease is gone, or its window is over: no more tries.
        this.#renewable = false
      } else {
        this.#schedule(now + Math.max((this.#limit - now) / 2, 10_000))
      }
      return
    }
    if (this.#released) return
    if (row.leaseId !== lease.leaseId || row.format !== lease.format || row.node !== lease.node || row.process !== lease.process) {
      this.#renewError = new LeaseError(`the renewal of lease ${lease.leaseId} returned another lease (${row.leaseId})`)
      this.#renewable = false
      return
    }
    this.#clock.sync(row.serverTime, arrived)
    this.#lease = row
    this.#renewError = undefined
    this.#setWindow()
  }

  /** The next ID, at once or not at all: no I/O and no waiting. Throws LeaseWouldWait when it
   * would have to wait (generateAsync waits), LeaseClockBehind, LeaseExpired (final: take a new
   * lease), LeaseForked, or LeaseError once released. `kind`: siq only. */
  generate (kind?: SiqKind): Id {
    if (this.#released) throw new LeaseError(`lease ${this.#lease.leaseId} was released`)
    if (process.pid !== this.#ownerPid) throw new LeaseForked(this.#lease.leaseId, this.#ownerPid, process.pid)
    if (this.#expired) throw new LeaseExpired(this.#lease.leaseId, this.#lease.format, this.#renewError)
    const format = this.#format
    let k = format.defaultKind
    if (kind !== undefined) {
      if (format.name !== 'siq') throw new TypeError(`kind applies to siq only, not ${format.name}`)
      k = kind.toLowerCase()
    }
    const now = this.#clock.nowMicros()
    if (now < this.#firstStart && this.#lastUnit < 0) {
      throw new LeaseWouldWait(this.#lease.leaseId, (this.#firstStart - now) / 1000, "before the window's start")
    }
    let unit = Math.max(format.unitAt(Math.floor(now)), this.#first)
    let sequence = 0
    const last = this.#lastUnit
    if (unit <= last) {
      // The same unit again, or an earlier reading (a renewal moved the
      // clock back): go on after the last ID made.
      sequence = (k === '' ? this.#sequence : (this.#sequences.get(k) ?? -1)) + 1
      unit = last
      if (sequence > format.maxSequence(k)) {
        unit = format.next(last)
        sequence = 0
      }
      const lead = format.decodedStart(unit) - now
      if (lead > MAX_LEAD_MICROS) throw new LeaseClockBehind(this.#lease.leaseId, lead / 1000)
    } else if (k !== '') {
      format.maxSequence(k) // an unknown siq kind is 22023
    }
    if (unit > this.#mark) return this.#beyondWindow(now)
    if (unit !== last) {
      this.#lastUnit = unit
      this.#sequences.clear()
    }
    if (k === '') this.#sequence = sequence
    else this.#sequences.set(k, sequence)
    return format.build(unit, sequence, k)
  }

  /** No unit of the window is left: wait for a renewal, or the end. */
  #beyondWindow (now: number): never {
    const leaseId = this.#lease.leaseId
    if (this.#renewal !== null) throw new LeaseWouldWait(leaseId, 1, 'every unit of the window is used; a renewal is under way')
    if (this.#renewable && now < this.#expiresMicros) {
      // The renewal is overdue (a blocked event loop, or retries): run it on the loop, not here.
      this.#schedule(now)
      throw new LeaseWouldWait(leaseId, 1, 'every unit of the window is used; renewing')
    }
    this.#expired = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    throw new LeaseExpired(leaseId, this.#lease.format, this.#renewError)
  }

  /** The next ID, waiting as needed (before the window, for a renewal); throws what generate()
   * throws but LeaseWouldWait. */
  async generateAsync (kind?: SiqKind): Promise<Id> {
    for (;;) {
      try {
        return this.generate(kind)
      } catch (error) {
        if (!(error instanceof LeaseWouldWait) && !(error instanceof LeaseClockBehind)) throw error
        const renewal = this.#renewal
        const wait = error instanceof LeaseWouldWait ? error.waitMs : 10
        if (renewal !== null) await Promise.race([renewal, sleep(100)])
        else await sleep(Math.min(Math.max(wait, 1), 100))
      }
    }
  }

  /** Resolves once an ID can be made without waiting for the window's start. */
  async ready (): Promise<void> {
    for (;;) {
      const left = (this.#firstStart - this.#clock.nowMicros()) / 1000
      if (left <= 0) return
      await sleep(Math.min(left, 100))
    }
  }

  /** `pg_flake_release` with the last unit used; no ID after it. True if the lease was held,
   * false if it had already ended (or this process is not the one that took it). */
  async release (): Promise<boolean> {
    if (this.#released) return false
    this.#released = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    if (process.pid !== this.#ownerPid) return false
    await this.#renewal?.catch(() => undefined)
    return await this.#source.release(this.#lease.leaseId, this.lastUsedMicros)
  }

  /** Releases the lease and ends the connection the generator opened itself (if any). */
  async close (): Promise<void> {
    try {
      await this.release()
    } finally {
      if (this.#ownsSource) await this.#source.close?.()
    }
  }

  /** `await using ids = await LeasedGenerator.sno(…)`: close() at the end of the block. */
  async [Symbol.asyncDispose] (): Promise<void> {
    await this.close()
  }
}
