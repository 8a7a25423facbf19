'use strict'
// pg_flake's native types as Drizzle columns (drizzle-orm's customType), on
// node-postgres: the part of drizzle-recipe.js to copy (see README.md,
// "Drizzle").
//
// Values are those of flake-types.js: a `Sno` for sno (canonical text, its
// 10 bytes and its time), a `FlakeId` (type and canonical text) for the
// others. They go to the server as their canonical text; a plain string of
// canonical text is accepted too. No OIDs are involved: Drizzle has
// node-postgres return every column it does not know as its text, and the
// server casts an untyped text parameter to the column's type, so nothing
// goes stale when the extension is dropped and created again.

const { customType } = require('drizzle-orm/pg-core')
const { sql } = require('drizzle-orm')
const { FlakeId, fromText } = require('./flake-types')

function flakeColumn (type) {
  return customType({
    dataType () { return type },
    // To the server: the canonical text, which the server parses (a bad one
    // is SQLSTATE 22P02). A value of another pg_flake type is refused here
    // rather than cast.
    toDriver (value) {
      if (value instanceof FlakeId) {
        if (value.type !== type) throw new TypeError(`a ${value.type} value given for a ${type} column`)
        return value.toPostgres()
      }
      if (typeof value === 'string') return value
      throw new TypeError(`a ${type} column takes a FlakeId or its canonical text, not ${typeof value}`)
    },
    // From the server: the canonical text (Drizzle's own type parsers leave
    // unknown types as strings; inside relational queries' JSON too). A
    // FlakeId is taken as it is, for results parsed by a FlakeTypes.
    fromDriver (value) {
      return value instanceof FlakeId ? value : fromText(type, value)
    }
  })
}

// Column builders: `id: sno('id').primaryKey().default(generate.sno())`.
const sno = flakeColumn('sno')
const siq = flakeColumn('siq')
const kuid96 = flakeColumn('kuid96')
const distributedId = flakeColumn('distributed_id')
const flaxid = flakeColumn('flaxid')

// Server-side defaults: the ID is made by the server's generator
// (`DEFAULT sno_generate()` in the table's DDL), never in JavaScript. The
// arguments are literals in the DDL, so they are checked here.
const generate = {
  sno (meta) {
    if (meta === undefined) return sql`sno_generate()`
    if (!Number.isInteger(meta) || meta < 0 || meta > 255) throw new RangeError(`sno meta must be 0-255, not ${meta}`)
    return sql.raw(`sno_generate(${meta})`)
  },
  siq (kind) {
    if (!/^[a-z]+$/.test(kind)) throw new TypeError(`not a siq kind: ${kind}`)
    return sql.raw(`siq_generate('${kind}')`)
  },
  kuid96: () => sql`kuid96_generate()`,
  distributedId: () => sql`distributed_id_generate()`,
  flaxid: () => sql`flaxid_generate()`
}

// SQL for the smallest ID of a type at an instant and for an ID's time,
// for ranges by time: `gte(events.id, fromTime('sno', date))`. A Date goes
// as its ISO text (with its zone), cast to timestamptz.
const TYPES = new Set(['sno', 'siq', 'kuid96', 'distributed_id', 'flaxid'])

function checkedType (type) {
  if (!TYPES.has(type)) throw new TypeError(`not a pg_flake native type: ${type}`)
  return type
}

function fromTime (type, time) {
  return sql`${sql.raw(checkedType(type))}_from_time(${time instanceof Date ? time.toISOString() : time}::timestamptz)`
}

// The time an ID holds, decoded by the server, as a Date (milliseconds).
function timestampOf (type, column) {
  return sql`${sql.raw(checkedType(type))}_timestamp(${column})`.mapWith((v) => new Date(v))
}

module.exports = { sno, siq, kuid96, distributedId, flaxid, generate, fromTime, timestampOf }
