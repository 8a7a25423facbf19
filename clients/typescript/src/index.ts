// pg-flake: pg_flake's identifiers as JavaScript values, byte-exact with
// the PostgreSQL extension (docs/applications.md, "TypeScript and JavaScript"). One class per
// native SQL type (Sno, Siq, DistributedId, FlaxId, Kuid96) and for
// DistributedId128 on uuid; the 64-bit formats (Snowflake, kuid64) are
// plain `bigint`s, never `number`s. node-postgres: 'pg-flake/pg'; leased
// generators: 'pg-flake/lease'; Drizzle and Prisma: 'pg-flake/drizzle',
// 'pg-flake/prisma'.

export { FlakeError } from './errors.js'
export { type TimeInput } from './time.js'
export { FlakeId } from './value.js'
export { Sno, type SnoParts, type SnoFields } from './sno.js'
export { Siq, siqDomainHash, SIQ_KINDS, type SiqKind, type SiqParts, type SiqFields } from './siq.js'
export { DistributedId, type DistributedIdParts } from './distributed-id.js'
export { DistributedId128, type DistributedId128Parts } from './distributed-id128.js'
export { FlaxId, type FlaxIdParts } from './flaxid.js'
export {
  Kuid96, KUID_DEFAULT_INTERVAL, kuid64Encode, kuid64Decode, kuid64Parts, kuid64FromParts, kuid64FromTime,
  kuidNodeFingerprint, type Kuid64Parts, type Kuid96Parts
} from './kuid.js'
export {
  DISCORD_EPOCH_MS, parseSnowflake, snowflakeParts, snowflakeFromParts, snowflakeFromTime,
  type SnowflakeParts, type SnowflakeFields
} from './snowflake.js'
export { alphanumericEncodeBigint, alphanumericDecodeBigint } from './alphanumeric.js'
export { PublicIdKey } from './public-id.js'
export { TYPES, parseValue, type FlakeTypeName, type FlakeValue } from './types.js'

/** The package's version, the project's one version. */
export const VERSION = '0.5.0'
