// Leases and where they come from: the rows of pg_flake_lease /
// pg_flake_renew and the SQL functions over node-postgres
// (docs/sql-reference.md, "Leases").

import type { Client, ClientConfig, Pool } from 'pg'
import { LeaseError } from './errors.js'

/** The formats that have leases (kuid64 has no node field; Flax ID and DistributedId are random). */
export const LEASED_FORMATS = ['sno', 'siq', 'snowflake', 'kuid96'] as const
export type LeasedFormatName = typeof LEASED_FORMATS[number]

/** A row of `pg_flake_lease` / `pg_flake_renew`; times in microseconds since 1970-01-01 UTC. */
export interface Lease {
  leaseId: bigint
  format: LeasedFormatName
  node: number
  process: number
  notBefore: bigint
  expires: bigint
  /** The database's clock just before it answered. */
  serverTime: bigint
  /** snowflake: the epoch, milliseconds since 1970. */
  epochMs: bigint | null
  /** kuid96: the neighborhood interval. */
  kuidInterval: number | null
}

/** Where leases come from: `PgLeases`, or a stand-in in tests. */
export interface LeaseSource {
  lease: (format: LeasedFormatName, holder: string, ttlMs: number) => Promise<Lease>
  renew: (leaseId: bigint, ttlMs: number) => Promise<Lease>
  release: (leaseId: bigint, lastUsedMicros: bigint | null) => Promise<boolean>
  /** Ends a connection the source opened itself (none otherwise). */
  close?: () => Promise<void>
}

// Times as exact microseconds (node-postgres would make them millisecond Dates).
const micros = (column: string): string => `((extract(epoch FROM ${column}) * 1000000)::int8)::text AS ${column}`
const COLUMNS = `lease_id::text AS lease_id, format, node::text AS node, process, ${micros('not_before')}, ` +
  `${micros('expires')}, ${micros('server_time')}, epoch_ms::text AS epoch_ms, kuid_interval`

function leaseOf (row: any): Lease {
  if (row === undefined || row === null) throw new LeaseError('the lease function returned no row')
  return {
    leaseId: BigInt(row.lease_id),
    format: row.format,
    node: Number(row.node),
    process: Number(row.process),
    notBefore: BigInt(row.not_before),
    expires: BigInt(row.expires),
    serverTime: BigInt(row.server_time),
    epochMs: row.epoch_ms === null ? null : BigInt(row.epoch_ms),
    kuidInterval: row.kuid_interval === null ? null : Number(row.kuid_interval)
  }
}

/** Where the lease functions run: a `pg.Pool` (each call on an idle client), a `pg.Client`
 * (not inside a transaction of the application's), or a connection string, a `pg` config or a
 * function returning a new connected `pg.Client`, for which the source opens a client of its
 * own (and opens it again after the server closed it). */
export type LeaseConnection = Pool | Client | string | ClientConfig | (() => Promise<Client>)

function isQueryable (value: unknown): value is Pool | Client {
  return typeof value === 'object' && value !== null && typeof (value as Client).query === 'function'
}

/** The SQL functions over node-postgres. Each call is a statement of its own, committed before
 * its answer counts (a lease is granted only once committed). */
export class PgLeases implements LeaseSource {
  readonly #given: Pool | Client | null
  readonly #config: string | ClientConfig | (() => Promise<Client>) | null
  #own: Promise<Client> | null = null

  constructor (connection: LeaseConnection) {
    if (isQueryable(connection)) {
      this.#given = connection
      this.#config = null
    } else if (typeof connection === 'string' || typeof connection === 'function' ||
      (typeof connection === 'object' && connection !== null)) {
      this.#given = null
      this.#config = connection
    } else {
      throw new TypeError('PgLeases takes a pg.Pool, a pg.Client, a connection string, a pg client config or a connect function')
    }
  }

  async #client (): Promise<Pool | Client> {
    if (this.#given !== null) {
      // node-postgres keeps the last ReadyForQuery status: 'T'/'E' inside a transaction.
      const status = (this.#given as any)._txStatus
      if (status === 'T' || status === 'E') {
        throw new LeaseError('the connection is inside a transaction: a lease counts only once its grant commits; ' +
          'use a pool, a connection of its own, or one outside any transaction')
      }
      return this.#given
    }
    if (this.#own === null) {
      const config = this.#config
      const opening = (async () => {
        let client: Client
        if (typeof config === 'function') {
          client = await config()
        } else {
          const pg = await import('pg')
          const ClientClass = ((pg as any).default ?? pg).Client as typeof Client
          client = new ClientClass(config as any)
          await client.connect()
        }
        // A connection the server closed (a restart, a failover) is opened anew on the next call.
        const forget = (): void => { if (this.#own === opening) this.#own = null }
        client.on('error', forget)
        client.on('end', forget)
        return client
      })()
      opening.catch(() => { if (this.#own === opening) this.#own = null })
      this.#own = opening
    }
    return await this.#own
  }

  async #row (sql: string, params: unknown[]): Promise<any> {
    const client = await this.#client()
    try {
      const { rows } = await client.query(sql, params)
      return rows[0]
    } catch (error) {
      const state = (error as { code?: string }).code
      throw new LeaseError(`${(error as Error).message}`, { cause: error, sqlstate: typeof state === 'string' ? state : undefined })
    }
  }

  async lease (format: LeasedFormatName, holder: string, ttlMs: number): Promise<Lease> {
    return leaseOf(await this.#row(`SELECT ${COLUMNS} FROM pg_flake_lease($1, $2, $3::int8 * interval '1 millisecond')`,
      [format, holder, Math.round(ttlMs)]))
  }

  async renew (leaseId: bigint, ttlMs: number): Promise<Lease> {
    return leaseOf(await this.#row(`SELECT ${COLUMNS} FROM pg_flake_renew($1::int8, $2::int8 * interval '1 millisecond')`,
      [leaseId.toString(), Math.round(ttlMs)]))
  }

  async release (leaseId: bigint, lastUsedMicros: bigint | null): Promise<boolean> {
    const row = await this.#row(
      "SELECT pg_flake_release($1::int8, 'epoch'::timestamptz + $2::int8 * interval '1 microsecond') AS released",
      [leaseId.toString(), lastUsedMicros === null ? null : lastUsedMicros.toString()])
    return row.released === true
  }

  async close (): Promise<void> {
    const own = this.#own
    this.#own = null
    if (own !== null) await (await own.catch(() => null))?.end()
  }
}
