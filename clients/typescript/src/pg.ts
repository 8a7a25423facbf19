// node-postgres (`pg`): pg_flake's columns as values, registered in one call.
// The native types get their OIDs when `CREATE EXTENSION pg_flake` runs, so
// they differ between databases and change when the extension is created
// again or a dump restored: they are looked up by name in the extension's
// schema, never written down (docs/applications.md, "Clients").
//
//   const types = await registerTypes(pool)    // or a Client
//   (await pool.query('SELECT sno_generate() AS id')).rows[0].id  // a Sno
//   await types.refresh()                       // after the OIDs changed
//
// Parameters need nothing: a value's toPostgres() is its canonical text, and
// the SQL casts it (`$1::sno`); a bigint goes as its decimal text.

import type { Client, Pool, PoolClient } from 'pg'
import { FlakeError } from './errors.js'
import { TYPES, type FlakeTypeName, type FlakeValue } from './types.js'

export type { FlakeTypeName, FlakeValue } from './types.js'

/** What can run the OID query and take type parsers: a `pg.Client`, a `pg.Pool` or a pool's client. */
export type Queryable = Client | Pool | PoolClient

type Parser = (value: string) => unknown

const NAMES = Object.keys(TYPES) as FlakeTypeName[]
const INT8_OID = 20
const INT8_ARRAY_OID = 1016

export interface RegisterOptions {
  /** Also parse every `bigint` column (int8, int8[]) of these connections as a JavaScript `bigint`
   * (snowflakes, kuid64s): node-postgres gives their text otherwise, never a lossy number. Default false. */
  int8AsBigInt?: boolean
}

/** node-postgres 8.23 decodes every column as UTF-8 before a binary parser runs
 * (brianc/node-postgres#3495), so bytes that are not UTF-8 arrive replaced by U+FFFD:
 * such a column is refused rather than taken for a wrong ID. */
export class BinaryResultCorrupted extends FlakeError {
  constructor (type: string) {
    super(`node-postgres mangled a binary ${type} (brianc/node-postgres#3495): leave binary off for pg_flake ` +
      'types, or select id::bytea', '22P03')
    this.name = 'BinaryResultCorrupted'
  }
}

/** The elements of an array's text form (`{a,b,NULL}`, nested), each through `element`. */
export function parseArray (text: string, element: (text: string) => unknown): unknown[] {
  let at = 0
  function list (): unknown[] {
    const out: unknown[] = []
    if (text[at] !== '{') throw new TypeError(`not an array: ${text}`)
    at++
    if (text[at] === '}') { at++; return out }
    for (;;) {
      if (text[at] === '{') {
        out.push(list())
      } else if (text[at] === '"') {
        let value = ''
        at++
        while (text[at] !== '"') {
          if (text[at] === '\\') at++
          if (at >= text.length) throw new TypeError(`unterminated array: ${text}`)
          value += text[at++]
        }
        at++
        out.push(element(value))
      } else {
        const end = text.slice(at).search(/[,}]/)
        if (end < 0) throw new TypeError(`unterminated array: ${text}`)
        const value = text.slice(at, at + end)
        at += end
        out.push(value === 'NULL' ? null : element(value))
      }
      if (text[at] === ',') { at++; continue }
      if (text[at] === '}') { at++; return out }
      throw new TypeError(`not an array: ${text}`)
    }
  }
  // A lower bound decoration (`[0:1]={…}`) comes before the braces.
  const brace = text.indexOf('{')
  at = brace < 0 ? 0 : brace
  return list()
}

function textParser (type: FlakeTypeName): Parser {
  const cls = TYPES[type]
  return (text) => cls.parse(text)
}

function binaryParser (type: FlakeTypeName): (value: unknown) => unknown {
  const cls = TYPES[type]
  return (value) => {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value as Buffer
    if (!(bytes instanceof Uint8Array) || bytes.length !== cls.LENGTH || Buffer.from(bytes).includes('\ufffd')) {
      throw new BinaryResultCorrupted(type)
    }
    return cls.fromBytes(bytes)
  }
}

interface Known { type: FlakeTypeName, array: boolean }

interface ParserTarget { setTypeParser: (oid: number, format: 'text' | 'binary', parse: (value: any) => unknown) => void }

/** The parsers of one database: which OIDs are pg_flake's now. One per database; `registerTypes` makes it. */
export class FlakeTypes {
  readonly #queryable: Queryable
  readonly #options: RegisterOptions
  #byOid = new Map<number, Known>()
  #oids: Partial<Record<FlakeTypeName, number>> = {}
  readonly #targets = new Set<ParserTarget>()

  constructor (queryable: Queryable, options: RegisterOptions = {}) {
    this.#queryable = queryable
    this.#options = options
  }

  /** The current OID of each type (after `refresh`). */
  get oids (): Readonly<Partial<Record<FlakeTypeName, number>>> {
    return this.#oids
  }

  /** Looks the OIDs up again (one query) and registers them on every connection these types
   * serve: at start (registerTypes does), and after the extension was created again or the
   * database restored. An OID that is no longer pg_flake's parses as plain text from then on. */
  async refresh (): Promise<Readonly<Partial<Record<FlakeTypeName, number>>>> {
    const { rows } = await this.#queryable.query(
      `SELECT t.oid::int AS oid, t.typarray::int AS array_oid, t.typname::text AS name
         FROM pg_catalog.pg_type t
         JOIN pg_catalog.pg_extension e ON e.extnamespace = t.typnamespace
        WHERE e.extname = 'pg_flake' AND t.typname = ANY ($1::text[])`, [NAMES])
    if (rows.length !== NAMES.length) {
      throw new Error(`pg_flake's types were not found in this database (got ${rows.map((r) => r.name).join(', ') || 'none'}): CREATE EXTENSION pg_flake first`)
    }
    const byOid = new Map<number, Known>()
    const oids: Partial<Record<FlakeTypeName, number>> = {}
    for (const { oid, array_oid: arrayOid, name } of rows as Array<{ oid: number, array_oid: number, name: FlakeTypeName }>) {
      byOid.set(oid, { type: name, array: false })
      byOid.set(arrayOid, { type: name, array: true })
      oids[name] = oid
    }
    this.#byOid = byOid
    this.#oids = oids
    for (const target of this.#targets) this.#register(target)
    return oids
  }

  /** node-postgres's `types` interface: pass `{ types }` to a Client or Pool config to use these. */
  getTypeParser (oid: number, format: 'text' | 'binary' = 'text'): (value: any) => unknown {
    const known = this.#byOid.get(oid)
    if (known === undefined) return defaultParser(oid, format)
    if (format === 'binary') {
      if (known.array) return () => { throw new BinaryResultCorrupted(`${known.type}[]`) }
      return binaryParser(known.type)
    }
    const parse = textParser(known.type)
    return known.array ? (text: string) => parseArray(text, parse) : parse
  }

  /** Parsers on one connection (a Client's own type overrides), live: each asks this object
   * which type its OID is at the time of the call. */
  attach (target: ParserTarget): void {
    this.#targets.add(target)
    // A pool's clients come and go: one that ended is forgotten.
    const events = target as { once?: (event: string, listener: () => void) => void }
    if (typeof events.once === 'function') events.once('end', () => this.#targets.delete(target))
    this.#register(target)
  }

  #register (target: ParserTarget): void {
    const oids = [...this.#byOid.keys()]
    if (this.#options.int8AsBigInt === true) {
      target.setTypeParser(INT8_OID, 'text', (text: string) => BigInt(text))
      target.setTypeParser(INT8_ARRAY_OID, 'text', (text: string) => parseArray(text, (t) => BigInt(t)))
    }
    for (const oid of oids) {
      target.setTypeParser(oid, 'text', (text: string) => this.getTypeParser(oid, 'text')(text))
      target.setTypeParser(oid, 'binary', (value: unknown) => this.getTypeParser(oid, 'binary')(value))
    }
  }
}

let pgTypes: { getTypeParser: (oid: number, format?: string) => (value: any) => unknown } | undefined

function defaultParser (oid: number, format: 'text' | 'binary'): (value: any) => unknown {
  // For an OID that is not (or no longer) pg_flake's: what node-postgres does, which for a
  // type it does not know is the text as it came.
  return pgTypes?.getTypeParser(oid, format) ?? ((value: unknown) => value)
}

function isPool (target: Queryable): target is Pool {
  return typeof (target as Pool).on === 'function' && '_clients' in (target as object) && typeof (target as Pool).connect === 'function' &&
    typeof (target as any).setTypeParser !== 'function'
}

/**
 * Registers pg_flake's types on a `pg.Client`, or on every client of a `pg.Pool` (those it
 * has, and those it opens later), after looking up their OIDs in this database with one query.
 * Columns of `sno`, `siq`, `distributed_id`, `flaxid` and `kuid96` (and arrays of them) then
 * arrive as `Sno`, `Siq`, … values. Returns the `FlakeTypes`, whose `refresh()` looks the
 * OIDs up again after `DROP EXTENSION`/`CREATE EXTENSION` or a restore.
 */
export async function registerTypes (target: Queryable, options: RegisterOptions = {}): Promise<FlakeTypes> {
  if (pgTypes === undefined) {
    const pg = await import('pg')
    pgTypes = ((pg as any).default ?? pg).types
  }
  const types = new FlakeTypes(target, options)
  await types.refresh()
  if (isPool(target)) {
    for (const client of (target as any)._clients as Client[]) types.attach(client)
    target.on('connect', (client) => types.attach(client))
  } else {
    types.attach(target as Client)
  }
  return types
}

/** The value of a pg_flake type's text, by type name (what the parsers do). */
export function parseFlake<N extends FlakeTypeName> (type: N, text: string): FlakeValue[N] {
  return TYPES[type].parse(text) as FlakeValue[N]
}
