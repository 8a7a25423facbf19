// Prisma ORM: `pg-flake/prisma` (docs/applications.md, "TypeScript and JavaScript"). Prisma
// has no way to declare a field of an extension's type that its client can
// read and write, so IDs are `String` fields over native columns (their
// canonical text; the server casts the untyped parameters), and this result
// extension adds the values beside them:
//
//   const prisma = new PrismaClient({ adapter }).$extends(flakeResults({ event: { id: 'sno' } }))
//   (await prisma.event.findFirst())!.idValue   // a Sno
//
// Nothing here imports Prisma: the extension is a plain object `$extends` takes.

import { TYPES, type FlakeTypeName, type FlakeValue } from './types.js'

type Models = Record<string, Record<string, FlakeTypeName>>

/** The `result` extension of `flakeResults(models)`: for each model, `<field>Value` fields. */
export type FlakeResults<M extends Models, S extends string> = {
  name: 'pg-flake'
  result: {
    [Model in keyof M]: {
      [Field in keyof M[Model] & string as `${Field}${S}`]: {
        needs: { [K in Field]: true }
        compute: (row: Record<Field, string | null>) => FlakeValue[M[Model][Field]] | null
      }
    }
  }
}

/**
 * A Prisma client extension giving, for each named `String` field over a native column, a
 * computed field `<field>Value` (or `<field><suffix>`) with the package's value: `{ event: {
 * id: 'sno' } }` adds `event.idValue`, a `Sno`. A null field gives null.
 */
export function flakeResults<M extends Models, S extends string = 'Value'> (models: M, suffix?: S): FlakeResults<M, S> {
  const end = suffix ?? 'Value'
  const result: Record<string, Record<string, unknown>> = {}
  for (const [model, fields] of Object.entries(models)) {
    result[model] = {}
    for (const [field, type] of Object.entries(fields)) {
      const cls = TYPES[type]
      if (cls === undefined) throw new TypeError(`not a pg_flake native type: ${String(type)}`)
      result[model][`${field}${end}`] = {
        needs: { [field]: true },
        compute: (row: Record<string, string | null>) => (row[field] == null ? null : cls.parse(row[field] as string))
      }
    }
  }
  return { name: 'pg-flake', result } as unknown as FlakeResults<M, S>
}

/** A time as a `$queryRaw` parameter: its ISO text, to cast in the SQL
 * (`sno_from_time(${isoTime(date)}::timestamptz)`). adapter-pg sends a Date as UTC without an
 * offset, which the server reads in the session's TimeZone. */
export function isoTime (time: Date): string {
  return time.toISOString()
}
