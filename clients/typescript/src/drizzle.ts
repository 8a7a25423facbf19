// pg_flake's native types as Drizzle columns (drizzle-orm's customType), on
// node-postgres: `pg-flake/drizzle` (docs/applications.md, "TypeScript and JavaScript").
//
// Values are the package's: a `Sno` for sno, a `Siq` for siq, …; as
// parameters they, or plain strings of canonical text, go to the server as
// text, which the server casts to the column's type (a bad one is 22P02).
// No OIDs are involved: Drizzle has node-postgres return every column it
// does not know as its text, so nothing goes stale when the extension is
// dropped and created again. The IDs are made by the server:
// `.default(generate.sno())` is the column's DEFAULT in the DDL.

import { sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import { customType } from 'drizzle-orm/pg-core'
import { FlakeId } from './value.js'
import { TYPES, type FlakeTypeName, type FlakeValue } from './types.js'

function flakeColumn<N extends FlakeTypeName> (type: N) {
  const cls = TYPES[type]
  return customType<{ data: FlakeValue[N], driverData: string }>({
    dataType () { return type },
    // To the server: the canonical text. A value of another pg_flake type is refused here
    // rather than cast; a string is sent as it is, for the server to check.
    toDriver (value: FlakeValue[N] | string): string {
      if (value instanceof FlakeId) {
        if (!(value instanceof cls)) throw new TypeError(`a ${value.typeName} value given for a ${type} column`)
        return value.toString()
      }
      if (typeof value === 'string') return value
      throw new TypeError(`a ${type} column takes a ${cls.name} or its canonical text, not ${typeof value}`)
    },
    // From the server: the canonical text (inside relational queries' JSON too).
    fromDriver (value: string): FlakeValue[N] {
      return ((value as unknown) instanceof cls ? value : cls.parse(value)) as FlakeValue[N]
    }
  })
}

/** `id: sno('id').primaryKey().default(generate.sno())`: a `sno` column of `Sno` values. */
export const sno = flakeColumn('sno')
/** A `siq` column of `Siq` values. */
export const siq = flakeColumn('siq')
/** A `kuid96` column of `Kuid96` values. */
export const kuid96 = flakeColumn('kuid96')
/** A `distributed_id` column of `DistributedId` values. */
export const distributedId = flakeColumn('distributed_id')
/** A `flaxid` column of `FlaxId` values. */
export const flaxid = flakeColumn('flaxid')

/** Server-side defaults: the ID is made by the server's generator, never in JavaScript. The
 * arguments are literals in the DDL, so they are checked here. (Snowflake and kuid64 columns
 * are drizzle's `bigint({ mode: 'bigint' })` with `.default(sql\`snowflake_generate()\`)`.) */
export const generate = {
  sno (meta?: number): SQL {
    if (meta === undefined) return sql`sno_generate()`
    if (!Number.isInteger(meta) || meta < 0 || meta > 255) throw new RangeError(`sno meta must be 0-255, not ${meta}`)
    return sql.raw(`sno_generate(${meta})`)
  },
  siq (kind: string): SQL {
    if (!/^[a-z]+$/.test(kind)) throw new TypeError(`not a siq kind: ${kind}`)
    return sql.raw(`siq_generate('${kind}')`)
  },
  kuid96: (): SQL => sql`kuid96_generate()`,
  distributedId: (): SQL => sql`distributed_id_generate()`,
  flaxid: (): SQL => sql`flaxid_generate()`
}

function checkedType (type: FlakeTypeName): FlakeTypeName {
  if (!(type in TYPES)) throw new TypeError(`not a pg_flake native type: ${String(type)}`)
  return type
}

/** SQL for the smallest ID of a type at an instant, for ranges by time:
 * `gte(events.id, fromTime('sno', date))` (an index range on the key). A Date goes as its
 * ISO text, cast to timestamptz. */
export function fromTime (type: FlakeTypeName, time: Date | string): SQL {
  return sql`${sql.raw(checkedType(type))}_from_time(${time instanceof Date ? time.toISOString() : time}::timestamptz)`
}

/** The time an ID holds, decoded by the server, as a Date (milliseconds). */
export function timestampOf (type: FlakeTypeName, column: SQLWrapper): SQL<Date> {
  return sql`${sql.raw(checkedType(type))}_timestamp(${column})`.mapWith((v: string | Date) => new Date(v))
}
