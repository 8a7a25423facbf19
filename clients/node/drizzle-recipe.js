'use strict'
// pg_flake from Drizzle ORM (node-postgres driver), as a test: every check
// prints what it showed and the process exits non-zero if one fails. The
// columns come from the npm package (pg-flake/drizzle); the table's DDL from drizzle-kit's API
// (offline: it needs no database). Drops and creates pg_flake (give it a
// database of its own):
//   PG_FLAKE_TEST_DSN='host=127.0.0.1 port=5432 user=postgres dbname=flake_clients' node drizzle-recipe.js

const assert = require('node:assert/strict')
const pg = require('pg')
const { drizzle } = require('drizzle-orm/node-postgres')
const { sql, eq, gte, lt, and, asc, desc, inArray, relations } = require('drizzle-orm')
const { pgTable, text, integer, index } = require('drizzle-orm/pg-core')
const { generateDrizzleJson, generateMigration } = require('drizzle-kit/api')
const { FlakeId, Sno, Siq, DistributedId, FlaxId } = require('pg-flake')
const { sno, siq, kuid96, distributedId, flaxid, generate, fromTime, timestampOf } = require('pg-flake/drizzle')
const { testConfig, versionOf, EXAMPLES, checks } = require('./harness')

const { check, summary } = checks()

// The schema, as an application writes it. Every ID is made by the server:
// `.default(sql…)` is the column's DEFAULT in the DDL, and an INSERT that
// leaves the column out gets it (no $defaultFn, nothing made in JavaScript).
const events = pgTable('drizzle_events', {
  id: sno().primaryKey().default(generate.sno()),
  trace: siq('trace_id').notNull().default(generate.siq('event')),
  kind: text().notNull()
}, (t) => [index('drizzle_events_trace').on(t.trace)])

const tags = pgTable('drizzle_tags', {
  id: flaxid().primaryKey().default(generate.flaxid()),
  eventId: sno('event_id').notNull().references(() => events.id, { onDelete: 'cascade' }),
  name: text().notNull()
})

const samples = pgTable('drizzle_samples', {
  n: integer().primaryKey(),
  sno: sno(),
  siq: siq(),
  distributedId: distributedId('distributed_id'),
  flaxid: flaxid(),
  kuid96: kuid96(),
  snos: sno().array()
})

const eventsRelations = relations(events, ({ many }) => ({ tags: many(tags) }))
const tagsRelations = relations(tags, ({ one }) => ({ event: one(events, { fields: [tags.eventId], references: [events.id] }) }))
const schema = { events, tags, samples, eventsRelations, tagsRelations }

async function main () {
  const config = testConfig()
  const pool = new pg.Pool({ ...config, max: 2 })
  const db = drizzle(pool, { schema })
  console.log(`drizzle-orm ${versionOf('drizzle-orm')}, drizzle-kit ${versionOf('drizzle-kit')}, node-postgres ${versionOf('pg')}, node ${process.version}`)
  await pool.query('SET client_min_messages = warning')
  await pool.query('CREATE EXTENSION IF NOT EXISTS pg_flake')
  const dropTables = () => pool.query('DROP TABLE IF EXISTS drizzle_tags, drizzle_events, drizzle_samples')
  await dropTables()

  let ddl
  await check('drizzle-kit writes the DDL: native column types, DEFAULT from the generator', async () => {
    ddl = await generateMigration(generateDrizzleJson({}), generateDrizzleJson(schema))
    const all = ddl.join('\n')
    assert.match(all, /"id" "sno" PRIMARY KEY DEFAULT sno_generate\(\) NOT NULL/)
    assert.match(all, /"trace_id" "siq" DEFAULT siq_generate\('event'\) NOT NULL/)
    assert.match(all, /"id" "flaxid" PRIMARY KEY DEFAULT flaxid_generate\(\) NOT NULL/)
    assert.match(all, /"distributed_id" "distributed_id",/)
    assert.match(all, /"snos" "sno"\[\]/)
    for (const statement of ddl) await db.execute(sql.raw(statement))
    return `${ddl.length} statements, e.g. ${ddl[0].split('\n')[1].trim()}`
  })

  await check('every native type round-trips: values in, values out', async () => {
    const e = EXAMPLES
    await db.insert(samples).values({
      n: 1,
      sno: Sno.parse(e.sno), // a value…
      siq: e.siq, // …or the canonical text
      distributedId: DistributedId.parse(e.distributed_id),
      flaxid: e.flaxid,
      kuid96: e.kuid96,
      snos: [e.sno, Sno.parse(e.sno)]
    })
    const [row] = await db.select().from(samples).where(eq(samples.sno, Sno.parse(e.sno)))
    const names = { sno: 'sno', siq: 'siq', distributedId: 'distributed_id', flaxid: 'flaxid', kuid96: 'kuid96' }
    for (const [key, type] of Object.entries(names)) {
      assert.ok(row[key] instanceof FlakeId, `${key} should be a value`)
      assert.equal(row[key].typeName, type)
      assert.equal(String(row[key]), e[type])
    }
    assert.ok(row.sno instanceof Sno)
    assert.equal(row.sno.time.toISOString(), '2031-05-08T23:03:34.976Z')
    assert.ok(row.snos.length === 2 && row.snos.every(id => id instanceof Sno && String(id) === e.sno), 'sno[]')
    // What the server stored is the value itself, not a text look-alike.
    const { rows: [stored] } = await pool.query(`SELECT pg_typeof(sno)::text AS t, sno = $1::sno AS same,
      pg_typeof(snos)::text AS ta FROM drizzle_samples`, [e.sno])
    assert.deepEqual(stored, { t: 'sno', same: true, ta: 'sno[]' })
    return Object.keys(names).map(k => String(row[k])).join(' ')
  })

  await check('JSON: values serialise as their canonical text', async () => {
    const [row] = await db.select({ sno: samples.sno, kuid96: samples.kuid96 }).from(samples)
    assert.equal(JSON.stringify(row), JSON.stringify({ sno: EXAMPLES.sno, kuid96: EXAMPLES.kuid96 }))
    return JSON.stringify(row)
  })

  let made
  await check('server-side defaults: INSERT without the IDs, RETURNING them as values', async () => {
    made = await db.insert(events)
      .values([{ kind: 'signup' }, { kind: 'login' }, { kind: 'logout' }])
      .returning()
    assert.equal(made.length, 3)
    for (const row of made) {
      assert.ok(row.id instanceof Sno)
      assert.ok(row.trace instanceof Siq && row.trace.kind === 'event')
    }
    assert.ok(made[0].id.compareTo(made[1].id) < 0 && made[1].id.compareTo(made[2].id) < 0, 'made in order')
    const { rows: [def] } = await pool.query(`SELECT pg_get_expr(adbin, adrelid) AS d FROM pg_attrdef
      WHERE adrelid = 'drizzle_events'::regclass AND adnum = 1`)
    assert.equal(def.d, 'sno_generate()')
    return made.map(r => `${r.id} ${r.trace}`).join(', ')
  })

  await check('ORDER BY the ID is creation order; ranges by value and by time', async () => {
    const ordered = await db.select().from(events).orderBy(desc(events.id))
    assert.deepEqual(ordered.map(r => r.kind), ['logout', 'login', 'signup'])
    // A range between two values (parameters are the canonical text).
    const between = await db.select().from(events)
      .where(and(gte(events.id, made[1].id), lt(events.id, made[2].id)))
    assert.deepEqual(between.map(r => r.kind), ['login'])
    // A range by time: the smallest sno at an instant, from the server.
    const from = new Date(made[0].id.time.getTime())
    const to = new Date(Date.now() + 60_000)
    const recent = await db.select({ id: events.id, at: timestampOf('sno', events.id) }).from(events)
      .where(and(gte(events.id, fromTime('sno', from)), lt(events.id, fromTime('sno', to))))
      .orderBy(asc(events.id))
    assert.equal(recent.length, 3)
    assert.ok(recent.every(r => r.at instanceof Date && r.at.getTime() === r.id.time.getTime()), 'sno_timestamp = Sno.time')
    const later = await db.select().from(events).where(gte(events.id, fromTime('sno', to)))
    assert.equal(later.length, 0)
    const some = await db.select().from(events).where(inArray(events.id, [made[0].id, String(made[2].id)]))
    assert.equal(some.length, 2)
    return `desc: ${ordered.map(r => r.kind).join(' ')}; since ${from.toISOString()}: ${recent.length}`
  })

  await check('the range is an index scan on the native type', async () => {
    const query = db.select().from(events).where(gte(events.id, fromTime('sno', new Date('2024-01-01')))).toSQL()
    const client = await pool.connect()
    let rows
    try {
      await client.query('SET enable_seqscan = off')
      rows = (await client.query('EXPLAIN ' + query.sql, query.params)).rows
      await client.query('RESET enable_seqscan')
    } finally {
      client.release()
    }
    const plan = rows.map(r => r['QUERY PLAN']).join('\n')
    assert.match(plan, /Index (Only )?Scan (using|on) drizzle_events_pkey/)
    return plan.split('\n').find(l => /Index Cond/.test(l)).trim()
  })

  await check('foreign keys and the relational query API (values from JSON)', async () => {
    await db.insert(tags).values([
      { eventId: made[0].id, name: 'web' },
      { eventId: made[0].id, name: 'eu' },
      { eventId: String(made[2].id), name: 'api' }
    ])
    const found = await db.query.events.findMany({ with: { tags: { orderBy: (t, { asc }) => [asc(t.name)] } }, orderBy: (e, { asc }) => [asc(e.id)] })
    assert.deepEqual(found.map(e => e.tags.map(t => t.name)), [['eu', 'web'], [], ['api']])
    for (const e of found) {
      assert.ok(e.id instanceof Sno)
      for (const t of e.tags) {
        assert.ok(t.id instanceof FlaxId)
        assert.ok(t.eventId instanceof Sno && t.eventId.equals(e.id))
      }
    }
    const joined = await db.select({ kind: events.kind, tag: tags.name }).from(tags)
      .innerJoin(events, eq(tags.eventId, events.id)).where(eq(events.id, made[2].id))
    assert.deepEqual(joined, [{ kind: 'logout', tag: 'api' }])
    return `${found[0].id}: ${found[0].tags.map(t => `${t.name}=${t.id}`).join(' ')}`
  })

  await check('update and delete by ID', async () => {
    const [updated] = await db.update(events).set({ kind: 'signed-up' }).where(eq(events.id, made[0].id)).returning()
    assert.ok(updated.id.equals(made[0].id))
    const deleted = await db.delete(events).where(eq(events.id, String(made[2].id))).returning({ id: events.id })
    assert.equal(deleted.length, 1)
    const [{ count }] = await db.select({ count: sql`count(*)`.mapWith(Number) }).from(tags)
    assert.equal(count, 2, 'cascade')
    return `updated ${updated.id}, deleted ${deleted[0].id}`
  })

  await check('bad input: the server refuses it (22P02), a wrong type is refused in JS', async () => {
    await assert.rejects(db.select().from(events).where(eq(events.id, 'not-a-sno')),
      (err) => err.cause && err.cause.code === '22P02' && /sno/.test(err.cause.message))
    assert.throws(() => db.select().from(events).where(eq(events.id, FlaxId.parse(EXAMPLES.flaxid))).toSQL(),
      /a flaxid value given for a sno column/)
    return '22P02 for bad text; a flaxid value for a sno column: TypeError'
  })

  await check('DROP/CREATE EXTENSION: nothing to refresh (no OIDs involved)', async () => {
    const before = (await pool.query("SELECT 'sno'::regtype::oid::int AS oid")).rows[0].oid
    await pool.query('DROP EXTENSION pg_flake CASCADE') // drops the ID columns too
    await pool.query('CREATE EXTENSION pg_flake')
    const after = (await pool.query("SELECT 'sno'::regtype::oid::int AS oid")).rows[0].oid
    assert.notEqual(after, before)
    await dropTables()
    for (const statement of ddl) await db.execute(sql.raw(statement))
    const [row] = await db.insert(events).values({ kind: 'again' }).returning()
    assert.ok(row.id instanceof Sno)
    const [back] = await db.select().from(events).where(eq(events.id, row.id))
    assert.ok(back.id.equals(row.id))
    return `sno OID ${before} -> ${after}; same pool, ${row.id}`
  })

  await dropTables()
  await pool.end()
  summary('drizzle')
}

main().catch((err) => {
  console.log(`FAIL drizzle recipe: ${err.stack}`)
  process.exitCode = 1
})
