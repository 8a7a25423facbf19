'use strict'
// pg_flake's types for node-postgres (pg): values that know their type, a
// codec for sno, and type parsers registered by the OIDs a database gave the
// types when the extension was created (see README.md).

const pg = require('pg')
const postgresArray = require('postgres-array')

// The native types of pg_flake and their lengths in bytes (docs/sql-reference.md: "What
// every native type has"). Their OIDs are chosen by each database at
// CREATE EXTENSION time, so they are looked up, never written down.
const TYPE_LENGTHS = { sno: 10, siq: 14, distributed_id: 12, flaxid: 12, kuid96: 12 }
const TYPE_NAMES = Object.keys(TYPE_LENGTHS)

// A pg_flake value in a JavaScript program: its SQL type and its canonical
// text, or its bytes when it came in binary and the type has no codec here.
// As a query parameter it is sent as that text (a text parameter) or those
// bytes (a binary one): node-postgres calls toPostgres. Either way, write the
// cast in SQL: `$1::sno`.
class FlakeId {
  constructor (type, text, bytes = null) {
    this.type = type
    this.text = text
    this.bytes = bytes
  }

  toString () { return this.text ?? '\\x' + this.bytes.toString('hex') }
  toJSON () { return this.toString() }
  toPostgres () { return this.text ?? this.bytes }
  equals (other) {
    return other instanceof FlakeId && other.type === this.type &&
      (this.text !== null && other.text !== null
        ? other.text === this.text
        : this.bytes !== null && other.bytes !== null && this.bytes.equals(other.bytes))
  }
}

// sno's text is its 80 bits in 16 characters of 5 bits, most significant
// first, over an alphabet in ASCII order (docs/sql-reference.md: "sno").
const SNO32 = '23456789abcdefghijklmnopqrstuvwx'
const SNO32_VALUES = new Map([...SNO32].map((c, i) => [c, BigInt(i)]))

class Sno extends FlakeId {
  constructor (text, bytes) {
    super('sno', text, bytes)
  }

  static fromText (text) {
    if (typeof text !== 'string' || text.length !== 16) {
      throw new TypeError(`invalid sno "${text}": expected 16 characters from 2-9 and a-x`)
    }
    let n = 0n
    for (const c of text) {
      const v = SNO32_VALUES.get(c)
      if (v === undefined) throw new TypeError(`invalid sno "${text}": expected 16 characters from 2-9 and a-x`)
      n = (n << 5n) | v
    }
    const bytes = Buffer.alloc(10)
    for (let i = 9; i >= 0; i--, n >>= 8n) bytes[i] = Number(n & 0xffn)
    return new Sno(text, bytes)
  }

  static fromBytes (bytes) {
    if (!Buffer.isBuffer(bytes) || bytes.length !== 10) {
      throw new TypeError(`invalid sno: expected exactly 10 bytes, got ${bytes && bytes.length}`)
    }
    let n = BigInt('0x' + bytes.toString('hex'))
    let text = ''
    for (let i = 0; i < 16; i++, n >>= 5n) text = SNO32[Number(n & 31n)] + text
    return new Sno(text, Buffer.from(bytes))
  }

  // Start of the ID's 4 ms unit: 39 bits of 4 ms units since 2010-01-01
  // above the tick-tock bit.
  get time () {
    const units = Number(BigInt('0x' + this.bytes.subarray(0, 5).toString('hex')) >> 1n)
    return new Date(Date.UTC(2010, 0, 1) + units * 4)
  }
}

function fromText (type, text) {
  return type === 'sno' ? Sno.fromText(text) : new FlakeId(type, text)
}

// node-postgres 8.23 decodes every column of a row as UTF-8 before the
// binary parser sees it, so bytes that are not UTF-8 arrive replaced by
// U+FFFD (brianc/node-postgres#3495). Such a value must not be taken for an
// ID: a parser that cannot be sure throws, which fails the query.
const REPLACEMENT = Buffer.from('\ufffd')

class BinaryResultCorrupted extends Error {
  constructor (type) {
    super(`node-postgres mangled a binary ${type} (brianc/node-postgres#3495): ` +
      `leave binary off for pg_flake types, or select id::bytea`)
    this.name = 'BinaryResultCorrupted'
  }
}

function fromBinary (type, bytes) {
  if (bytes.length !== TYPE_LENGTHS[type] || bytes.includes(REPLACEMENT)) {
    throw new BinaryResultCorrupted(type)
  }
  if (type === 'sno') return Sno.fromBytes(bytes)
  // The other types' text codecs live in the server (or flake-core): the
  // value keeps its bytes, which go back to the server as they came.
  return new FlakeId(type, null, Buffer.from(bytes))
}

// The parsers for one database, keyed by its current OIDs. Use one object
// per database (pass it as `types` to a Client or Pool) and call refresh()
// after the extension was dropped and created again or the database was
// restored: the OIDs are new then, and the old ones may later name another
// type.
class FlakeTypes {
  constructor () {
    this.byOid = new Map() // oid -> { type, array }
    this.oids = {} // type name -> oid
  }

  async refresh (client) {
    const { rows } = await client.query(
      `SELECT t.oid::int AS oid, t.typarray::int AS array_oid, t.typname
         FROM pg_type t
         JOIN pg_extension e ON e.extnamespace = t.typnamespace
        WHERE e.extname = 'pg_flake' AND t.typname = ANY ($1)`,
      [TYPE_NAMES])
    if (rows.length !== TYPE_NAMES.length) {
      throw new Error(`pg_flake types not found (got ${rows.map(r => r.typname)}): CREATE EXTENSION pg_flake first`)
    }
    const byOid = new Map()
    const oids = {}
    for (const { oid, array_oid: arrayOid, typname } of rows) {
      byOid.set(oid, { type: typname, array: false })
      byOid.set(arrayOid, { type: typname, array: true })
      oids[typname] = oid
    }
    this.byOid = byOid
    this.oids = oids
    return oids
  }

  // The interface node-postgres asks of `types`.
  getTypeParser (oid, format = 'text') {
    const known = this.byOid.get(oid)
    if (!known) return pg.types.getTypeParser(oid, format)
    const { type, array } = known
    if (format === 'binary') {
      if (array) return () => { throw new Error(`binary ${type}[] is not supported: leave binary off`) }
      return (bytes) => fromBinary(type, bytes)
    }
    if (array) return (text) => postgresArray.parse(text, (element) => fromText(type, element))
    return (text) => fromText(type, text)
  }
}

module.exports = { FlakeId, Sno, FlakeTypes, BinaryResultCorrupted, fromText, TYPE_NAMES, TYPE_LENGTHS }
