// The native SQL types by name, for the integrations (node-postgres,
// Drizzle, Prisma), which meet them as names and text.

import { DistributedId } from './distributed-id.js'
import { FlaxId } from './flaxid.js'
import { Kuid96 } from './kuid.js'
import { Siq } from './siq.js'
import { Sno } from './sno.js'

/** The value class of each native SQL type, by type name. */
export const TYPES = Object.freeze({
  sno: Sno,
  siq: Siq,
  distributed_id: DistributedId,
  flaxid: FlaxId,
  kuid96: Kuid96
})

export type FlakeTypeName = keyof typeof TYPES

/** The value class instance of each type name. */
export interface FlakeValue {
  sno: Sno
  siq: Siq
  distributed_id: DistributedId
  flaxid: FlaxId
  kuid96: Kuid96
}

/** The value of a type's canonical text (its `parse`). */
export function parseValue<N extends FlakeTypeName> (type: N, text: string): FlakeValue[N] {
  const cls = TYPES[type]
  if (cls === undefined) throw new TypeError(`not a pg_flake native type: ${String(type)}`)
  return cls.parse(text) as FlakeValue[N]
}
