// Leased generators (docs/applications.md, "TypeScript and JavaScript"): `pg-flake/lease`.
export { LeasedGenerator, type TakeOptions, type GeneratorOptions } from './generator.js'
export { LeaseError, LeaseExpired, LeaseForked, LeaseWouldWait, LeaseClockBehind } from './errors.js'
export { PgLeases, LEASED_FORMATS, type Lease, type LeaseSource, type LeaseConnection, type LeasedFormatName } from './source.js'
export type { FormatOptions } from './formats.js'
