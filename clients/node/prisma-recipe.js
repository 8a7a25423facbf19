'use strict'
// pg_flake from Prisma ORM 6 (prisma-client-js with engineType "client" and
// the pg driver adapter), as a test: every check prints what it showed and
// the process exits non-zero if one fails. Needs the client generated from
// prisma/schema.prisma first (`npx prisma generate`, offline). Drops and
// creates pg_flake (give it a database of its own):
//   PG_FLAKE_TEST_DSN='host=127.0.0.1 port=5432 user=postgres dbname=flake_clients' node prisma-recipe.js

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { PrismaClient, Prisma } = require('@prisma/client')
const { PrismaPg } = require('@prisma/adapter-pg')
const { Sno } = require('pg-flake')
const { flakeResults } = require('pg-flake/prisma')
const { testConfig, versionOf, EXAMPLES, checks } = require('./harness')

const { check, summary } = checks()

// The tables: hand-written DDL with the native types (prisma/tables.sql).
async function createTables (prisma) {
  await prisma.$executeRawUnsafe('DROP TABLE IF EXISTS prisma_tags, prisma_events, prisma_samples')
  const ddl = fs.readFileSync(path.join(__dirname, 'prisma', 'tables.sql'), 'utf8')
  const statements = ddl.replace(/^--.*$/gm, '').split(';').map(s => s.trim()).filter(Boolean)
  for (const statement of statements) await prisma.$executeRawUnsafe(statement)
  return statements.length
}

// The Prisma CLI, as `npx prisma …` runs it, in this directory (where
// prisma.config.js is).
function prismaCli (...args) {
  return execFileSync(process.execPath, [path.join(__dirname, 'node_modules', 'prisma', 'build', 'index.js'), ...args],
    { cwd: __dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CHECKPOINT_DISABLE: '1', NO_COLOR: '1' } })
}

async function main () {
  const config = testConfig()
  const adapter = new PrismaPg({ ...config, max: 2 })
  // Values as the application sees them: a Sno (its time, its bytes) next
  // to the canonical text that Prisma holds, from the package's result
  // extension: event.idValue.
  const prisma = new PrismaClient({ adapter }).$extends(flakeResults({ event: { id: 'sno' } }))
  console.log(`prisma ${versionOf('prisma')}, @prisma/client ${versionOf('@prisma/client')}, @prisma/adapter-pg ${versionOf('@prisma/adapter-pg')}, node ${process.version}`)
  await prisma.$executeRawUnsafe('SET client_min_messages = warning')
  await prisma.$executeRawUnsafe('CREATE EXTENSION IF NOT EXISTS pg_flake')

  await check('prisma migrate diff (offline): Unsupported("siq") keeps its type and DEFAULT, String IDs become TEXT', async () => {
    const ddl = prismaCli('migrate', 'diff', '--from-empty', '--to-schema-datamodel', 'prisma/schema.prisma', '--script')
    assert.match(ddl, /"trace_id" siq NOT NULL DEFAULT siq_generate\('event'\)/)
    assert.match(ddl, /"id" TEXT NOT NULL DEFAULT sno_generate\(\)/)
    return 'hence prisma/tables.sql, with sno/flaxid/… where the schema says String'
  })

  await check('tables from prisma/tables.sql', async () => {
    const n = await createTables(prisma)
    const types = await prisma.$queryRaw`SELECT attname::text AS name, atttypid::regtype::text AS type FROM pg_attribute
      WHERE attrelid = 'prisma_events'::regclass AND attnum > 0 ORDER BY attnum`
    assert.deepEqual(types.map(t => t.type), ['sno', 'text', 'siq'])
    return `${n} statements; prisma_events: ${types.map(t => `${t.name} ${t.type}`).join(', ')}`
  })

  await check('every native type round-trips as its canonical text (String fields)', async () => {
    const e = EXAMPLES
    const data = { n: 1, sno: e.sno, siq: e.siq, distributedId: e.distributed_id, flaxid: e.flaxid, kuid96: e.kuid96 }
    await prisma.sample.create({ data })
    const row = await prisma.sample.findFirst({ where: { sno: e.sno, kuid96: e.kuid96 } })
    assert.deepEqual(row, data)
    const [stored] = await prisma.$queryRaw`SELECT pg_typeof(sno)::text AS t, sno = ${e.sno}::sno AS same,
      distributed_id = ${e.distributed_id}::distributed_id AS same2 FROM prisma_samples`
    assert.deepEqual(stored, { t: 'sno', same: true, same2: true })
    return Object.values(data).slice(1).join(' ')
  })

  let made
  await check('server-side defaults: create() without the ID returns the generated one', async () => {
    made = []
    for (const kind of ['signup', 'login', 'logout']) made.push(await prisma.event.create({ data: { kind } }))
    for (const event of made) {
      assert.equal(typeof event.id, 'string')
      assert.ok(event.idValue instanceof Sno && String(event.idValue) === event.id)
      assert.ok(!('traceId' in event), 'an Unsupported field is not in the results')
    }
    assert.ok(made[0].id < made[1].id && made[1].id < made[2].id, 'made in order')
    const many = await prisma.event.createManyAndReturn({ data: [{ kind: 'a' }, { kind: 'b' }] })
    assert.equal(many.length, 2)
    await prisma.event.deleteMany({ where: { id: { in: many.map(e => e.id) } } })
    return made.map(e => `${e.id} (${e.idValue.time.toISOString()})`).join(', ')
  })

  await check('orderBy, equality, in, ranges and cursors compare as sno', async () => {
    const ordered = await prisma.event.findMany({ orderBy: { id: 'desc' } })
    assert.deepEqual(ordered.map(e => e.kind), ['logout', 'login', 'signup'])
    const one = await prisma.event.findUnique({ where: { id: made[1].id } })
    assert.equal(one.kind, 'login')
    const between = await prisma.event.findMany({ where: { id: { gte: made[1].id, lt: made[2].id } } })
    assert.deepEqual(between.map(e => e.kind), ['login'])
    const some = await prisma.event.findMany({ where: { id: { in: [made[0].id, made[2].id] } }, orderBy: { id: 'asc' } })
    assert.deepEqual(some.map(e => e.kind), ['signup', 'logout'])
    const page = await prisma.event.findMany({ cursor: { id: made[0].id }, skip: 1, take: 5, orderBy: { id: 'asc' } })
    assert.deepEqual(page.map(e => e.kind), ['login', 'logout'])
    return `desc: ${ordered.map(e => e.kind).join(' ')}; after ${made[0].id}: ${page.length}`
  })

  await check('ranges by time: $queryRaw with casts (and the bound as a filter)', async () => {
    const from = new Date(made[0].idValue.time.getTime())
    /** @type {{ id: string, at: Date, trace: string }[]} */
    const rows = await prisma.$queryRaw`
      SELECT id::text AS id, sno_timestamp(id) AS at, trace_id::text AS trace
        FROM prisma_events
       WHERE id >= sno_from_time(${from.toISOString()}::timestamptz)
       ORDER BY id`
    assert.deepEqual(rows.map(r => r.id), made.map(e => e.id))
    assert.ok(rows.every(r => r.at instanceof Date && r.at.getTime() === Sno.parse(r.id).time.getTime()))
    // The smallest sno at an instant, as text, used in a Prisma filter.
    const [{ bound }] = await prisma.$queryRaw`SELECT sno_from_time(${from.toISOString()}::timestamptz)::text AS bound`
    const since = await prisma.event.findMany({ where: { id: { gte: bound } } })
    assert.equal(since.length, 3)
    return `since ${from.toISOString()} (sno ${bound}): ${rows.length} rows, trace ${rows[0].trace}`
  })

  await check('the Unsupported column: filled by its default, read and written with $queryRaw/$executeRaw', async () => {
    // Without a cast a native column still comes back as its text: the
    // adapter reads every type with an OID >= 16384 as text.
    const [row] = await prisma.$queryRaw`SELECT trace_id FROM prisma_events WHERE id = ${made[0].id}::sno`
    assert.equal(typeof row.trace_id, 'string')
    assert.match(row.trace_id, /^[a-z2-7]{29}$/)
    const n = await prisma.$executeRaw`UPDATE prisma_events SET trace_id = ${EXAMPLES.siq}::siq WHERE id = ${made[0].id}::sno`
    assert.equal(n, 1)
    const ids = [made[0].id, made[1].id]
    const traces = await prisma.$queryRaw`SELECT id::text AS id, trace_id::text AS trace FROM prisma_events
      WHERE id = ANY (${ids}::sno[]) ORDER BY id`
    assert.deepEqual(traces.map(r => r.id), ids)
    assert.equal(traces[0].trace, EXAMPLES.siq)
    const where = Prisma.sql`WHERE trace_id = ${EXAMPLES.siq}::siq`
    const [{ count }] = await prisma.$queryRaw`SELECT count(*)::int AS count FROM prisma_events ${where}`
    assert.equal(count, 1)
    return `${row.trace_id} -> ${EXAMPLES.siq}; ANY(\${ids}::sno[]) and Prisma.sql fragments`
  })

  await check('relations over native-type keys: nested create, include, cascade', async () => {
    const event = await prisma.event.create({
      data: { kind: 'tagged', tags: { create: [{ name: 'web' }, { name: 'eu' }] } },
      include: { tags: { orderBy: { name: 'asc' } } }
    })
    assert.deepEqual(event.tags.map(t => t.name), ['eu', 'web'])
    assert.ok(event.tags.every(t => t.eventId === event.id && /^[0-9A-Za-z_-]{16}$/.test(t.id)))
    const [fk] = await prisma.$queryRaw`SELECT pg_typeof(event_id)::text AS t, pg_typeof(id)::text AS idt FROM prisma_tags LIMIT 1`
    assert.deepEqual(fk, { t: 'sno', idt: 'flaxid' })
    const found = await prisma.tag.findMany({ where: { event: { id: event.id } }, include: { event: true } })
    assert.equal(found.length, 2)
    assert.ok(found.every(t => t.event.idValue instanceof Sno))
    await prisma.event.delete({ where: { id: event.id } })
    assert.equal(await prisma.tag.count(), 0)
    return `${event.id}: ${event.tags.map(t => `${t.name}=${t.id}`).join(' ')}`
  })

  await check('update and delete by ID', async () => {
    const updated = await prisma.event.update({ where: { id: made[0].id }, data: { kind: 'signed-up' } })
    assert.equal(updated.id, made[0].id)
    const { count } = await prisma.event.deleteMany({ where: { id: { lte: made[0].id } } })
    assert.equal(count, 1)
    return `updated ${updated.id}, deleted 1`
  })

  await check('string filters: on the text (id::text LIKE), except mode: insensitive', async () => {
    // Prisma writes "id"::text LIKE $1 for startsWith/contains/endsWith: the
    // canonical text, matched row by row (not an index range: use gte/lt).
    const prefix = made[1].id.slice(0, 8)
    const found = await prisma.event.findMany({ where: { id: { startsWith: prefix } } })
    assert.ok(found.length >= 1 && found.every(e => e.id.startsWith(prefix)))
    await assert.rejects(prisma.event.findMany({ where: { id: { contains: 'x', mode: 'insensitive' } } }),
      (err) => /operator does not exist: sno ~~\*/.test(err.message))
    return `startsWith '${prefix}': ${found.length}; insensitive: 42883 (sno ~~* unknown)`
  })

  await check('bad input: the server refuses it (22P02)', async () => {
    await assert.rejects(prisma.event.findUnique({ where: { id: 'not-a-sno' } }),
      (err) => /22P02|invalid input/.test(String(err.message) + JSON.stringify(err.meta ?? {})) && /sno/.test(err.message))
    await assert.rejects(prisma.$queryRaw`SELECT ${'not-a-sno'}::sno`, (err) => /22P02/.test(JSON.stringify(err.meta ?? {}) + err.message))
    return '22P02 through the client and through $queryRaw'
  })

  await check('a Date parameter goes without its zone: pass toISOString()', async () => {
    // adapter-pg 6.19 formats a Date as UTC with no offset, which the server
    // reads in the session's TimeZone.
    const tokyo = new PrismaClient({ adapter: new PrismaPg({ ...config, max: 1, options: '-c TimeZone=Asia/Tokyo' }) })
    try {
      const t = new Date('2024-03-01T00:00:00Z')
      const [r] = await tokyo.$queryRaw`SELECT ${t}::timestamptz = ${t.toISOString()}::timestamptz AS same,
        sno_from_time(${t.toISOString()}::timestamptz)::text AS iso, sno_from_time(${t}::timestamptz)::text AS date`
      assert.equal(r.same, false)
      assert.equal(Sno.parse(r.iso).time.toISOString(), t.toISOString())
      return `TimeZone=Asia/Tokyo: sno_from_time(Date) ${r.date}, sno_from_time(ISO text) ${r.iso}`
    } finally {
      await tokyo.$disconnect()
    }
  })

  await check('DROP/CREATE EXTENSION: nothing to refresh (no OIDs involved)', async () => {
    const [{ oid: before }] = await prisma.$queryRaw`SELECT 'sno'::regtype::oid::int AS oid`
    await prisma.$executeRawUnsafe('DROP EXTENSION pg_flake CASCADE')
    await prisma.$executeRawUnsafe('CREATE EXTENSION pg_flake')
    const [{ oid: after }] = await prisma.$queryRaw`SELECT 'sno'::regtype::oid::int AS oid`
    assert.notEqual(after, before)
    await createTables(prisma)
    const event = await prisma.event.create({ data: { kind: 'again' } })
    const back = await prisma.event.findUnique({ where: { id: event.id } })
    assert.equal(String(back.idValue), event.id)
    return `sno OID ${before} -> ${after}; same client, ${event.id}`
  })

  await prisma.$executeRawUnsafe('DROP TABLE IF EXISTS prisma_tags, prisma_events, prisma_samples')
  await prisma.$disconnect()
  summary('prisma')
}

main().catch((err) => {
  console.log(`FAIL prisma recipe: ${err.stack}`)
  process.exitCode = 1
})
