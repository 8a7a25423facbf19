// What every value class shares: the stored bytes, ordering, equality, text
// and time. A value holds exactly the big-endian bytes PostgreSQL stores,
// which are also its binary wire format, so byte order is sort order
// (docs/sql-reference.md, "What every native type has").

import { toHex } from './codec.js'
import { dateOf } from './time.js'

const INSPECT = Symbol.for('nodejs.util.inspect.custom')

/** Base of the value classes: immutable, compared and ordered by the stored bytes. */
export abstract class FlakeId {
  readonly #bytes: Uint8Array

  /** Trusted bytes (checked by the subclass's factories). */
  protected constructor (bytes: Uint8Array) {
    this.#bytes = bytes
    Object.freeze(this)
  }

  /** The SQL type name. */
  abstract get typeName (): string

  /** The canonical text (the type's output function). */
  abstract toString (): string

  /** Start of the value's time unit, in microseconds since 1970-01-01 UTC. */
  abstract get unixMicros (): bigint

  /** Start of the value's time unit, rounded down to the millisecond. */
  get time (): Date {
    return dateOf(this.unixMicros)
  }

  /** A copy of the stored bytes (the binary wire format). */
  toBytes (): Uint8Array {
    return this.#bytes.slice()
  }

  /** The stored bytes, for the subclasses: never handed out. */
  protected get raw (): Uint8Array {
    return this.#bytes
  }

  /** Lower-case hexadecimal of the stored bytes. */
  toHexBytes (): string {
    return toHex(this.#bytes)
  }

  /** The canonical text: JSON carries IDs as strings. */
  toJSON (): string {
    return this.toString()
  }

  /** What node-postgres sends for it as a parameter: the canonical text (write `$1::sno`). */
  toPostgres (): string {
    return this.toString()
  }

  /** True for a value of the same type with the same bytes. */
  equals (other: unknown): boolean {
    return other instanceof FlakeId && other.constructor === this.constructor && compareBytes(this.#bytes, other.#bytes) === 0
  }

  /** -1, 0 or 1 as the server orders them (by the bytes); a value of another type is a TypeError. */
  compareTo (other: this): -1 | 0 | 1 {
    if (!(other instanceof FlakeId) || other.constructor !== this.constructor) {
      throw new TypeError(`cannot compare a ${this.typeName} with ${other instanceof FlakeId ? `a ${other.typeName}` : typeof other}`)
    }
    return compareBytes(this.#bytes, other.#bytes)
  }

  /** For `array.sort(FlakeId.compare)`. */
  static compare<T extends FlakeId> (a: T, b: T): -1 | 0 | 1 {
    return a.compareTo(b)
  }

  [INSPECT] (): string {
    return `${this.constructor.name}(${JSON.stringify(this.toString())})`
  }
}

function compareBytes (a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
  }
  return 0
}
