// The errors a user can cause, each with the SQLSTATE the extension raises
// for the same mistake (docs/sql-reference.md, "Errors"), so that code
// handling a database error and code handling a local one look alike.

/** A value the extension would reject, with the message it would give. */
export class FlakeError extends Error {
  /** The SQLSTATE the extension raises for the same mistake (22P02, 22P03, 22003, 22008, 22023). */
  readonly sqlstate: string
  /** The accepted form, where there is one. */
  readonly detail: string | undefined

  constructor (message: string, sqlstate: string, detail?: string) {
    super(detail === undefined ? message : `${message}. ${detail}`)
    this.name = 'FlakeError'
    this.sqlstate = sqlstate
    this.detail = detail
  }

  /** The SQLSTATE, under the name node-postgres gives a server error's. */
  get code (): string {
    return this.sqlstate
  }
}

export function invalidText (typeName: string, text: string, expected: string): FlakeError {
  return new FlakeError(`invalid input syntax for type ${typeName}: "${text}"`, '22P02', `Expected ${expected}.`)
}

export function invalidBinary (typeName: string, expected: number, actual: number): FlakeError {
  return new FlakeError(
    `invalid binary value for type ${typeName}: expected exactly ${expected}, got ${actual} bytes`, '22P03')
}

export function valueOutOfRange (typeName: string, text: string, accepted: string): FlakeError {
  return new FlakeError(`value "${text}" is out of range for type ${typeName}`, '22003', `Accepted values: ${accepted}.`)
}

export function timeOutOfRange (typeName: string, accepted: string): FlakeError {
  return new FlakeError(`timestamp out of range for type ${typeName}: accepted ${accepted}`, '22008')
}

export function invalidParameter (message: string): FlakeError {
  return new FlakeError(message, '22023')
}

/** `value` as a bigint if it is an integer in `low ..= high`, else the extension's 22003. */
export function field (typeName: string, name: string, value: number | bigint, low: bigint, high: bigint): bigint {
  let n: bigint
  if (typeof value === 'bigint') {
    n = value
  } else if (typeof value === 'number' && Number.isInteger(value)) {
    n = BigInt(value)
  } else {
    throw new TypeError(`${typeName} field "${name}" must be an integer (number or bigint), not ${describe(value)}`)
  }
  if (n < low || n > high) {
    throw new FlakeError(`${typeName} field "${name}" out of range: ${n} (accepted: ${low} to ${high})`, '22003')
  }
  return n
}

/** A small field (at most 32 bits) as a number. */
export function smallField (typeName: string, name: string, value: number | bigint, low: number, high: number): number {
  return Number(field(typeName, name, value, BigInt(low), BigInt(high)))
}

export function describe (value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object'
  return typeof value === 'number' ? `the number ${value}` : typeof value
}
