// pg-flake against a real server (PG_FLAKE_TEST_DSN, libpq's key=value form;
// skipped without it): node-postgres type parsers, leased generators of every
// format decoding in SQL to their lease, worker_threads and cluster workers
// each on a unit of their own, renewals no other role can take over, and
// holder processes killed, paused past their TTL and with their clocks off
// while the database generates too (as tests/servers/test_lease_load.py).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import cluster from 'node:cluster'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { MessageChannel, Worker } from 'node:worker_threads'
import pg from 'pg'
import { FlakeId, Kuid96, Siq, Sno } from 'pg-flake'
import { LeasedGenerator, LeaseError, LeaseExpired, PgLeases } from 'pg-flake/lease'
import { registerTypes } from 'pg-flake/pg'
import { config, dsn, REPO, sleep } from './helpers/config.mjs'

const skip = dsn === undefined ? 'PG_FLAKE_TEST_DSN is not set' : false
const here = dirname(fileURLToPath(import.meta.url))
let pool: pg.Pool

before(async () => {
  if (skip !== false) return
  pool = new pg.Pool({ ...config(), max: 4 })
  await pool.query('SET client_min_messages = warning')
  await pool.query('CREATE EXTENSION IF NOT EXISTS pg_flake')
})

after(async () => {
  // Nothing of pg_flake's types left behind: the other clients' tests drop the extension.
  for (const format of ['sno', 'snowflake', 'kuid96', 'siq']) await pool?.query(`DROP TABLE IF EXISTS ts_h_${format}`)
  await pool?.end()
})

const FORMATS = ['sno', 'snowflake', 'kuid96', 'siq'] as const
const SQL_TYPE = { sno: 'sno', snowflake: 'bigint', kuid96: 'kuid96', siq: 'siq' } as const
// The lease's node (and process) as the database decodes them from an ID.
const DECODE = {
  sno: 'sno_partition(id) >> 8 AS node, sno_partition(id) & 255 AS process, sno_timestamp(id) AS at',
  snowflake: '(snowflake_parts(id)).worker AS node, (snowflake_parts(id)).process AS process, snowflake_timestamp(id) AS at',
  kuid96: 'kuid96_node(id) AS node, 0 AS process, kuid96_timestamp(id) AS at',
  siq: 'siq_domain_hash(id) >> 24 AS node, (siq_parts(id)).shard AS process, siq_timestamp(id) AS at'
} as const

test('registerTypes: every native type and its arrays as values, int8 as bigint, one call', { skip }, async () => {
  const types = await registerTypes(pool, { int8AsBigInt: true })
  const { rows: [row] } = await pool.query(`SELECT sno_generate() AS sno, siq_generate('event') AS siq,
    distributed_id_generate() AS did, flaxid_generate() AS flax, kuid96_generate() AS kuid,
    ARRAY[sno_generate(), NULL, sno_generate()] AS snos, snowflake_generate() AS flake`)
  assert.ok(row.sno instanceof Sno && row.siq instanceof Siq && row.kuid instanceof Kuid96)
  assert.ok(row.did instanceof FlakeId && row.flax instanceof FlakeId)
  assert.equal(row.snos.length, 3)
  assert.ok(row.snos[0] instanceof Sno && row.snos[1] === null)
  assert.equal(typeof row.flake, 'bigint')
  // Parameters: a value is its text, cast in the SQL.
  const { rows: [back] } = await pool.query('SELECT $1::sno = $2::sno AS same, $3::int8 AS flake', [row.sno, String(row.sno), row.flake])
  assert.equal(back.same, true)
  assert.equal(back.flake, row.flake)
  assert.ok(types.oids.sno !== undefined)
})

test('registerTypes on a Client, and refresh() after the extension was created again', { skip }, async () => {
  const client = new pg.Client(config())
  await client.connect()
  try {
    const types = await registerTypes(client)
    const before = types.oids.sno
    assert.ok((await client.query('SELECT sno_generate() AS id')).rows[0].id instanceof Sno)
    const db = new pg.Client(config())
    await db.connect()
    await db.query('DROP EXTENSION pg_flake CASCADE')
    await db.query('CREATE EXTENSION pg_flake')
    await db.end()
    // The old OID parses nothing now: the new type arrives as text until refresh().
    assert.equal(typeof (await client.query('SELECT sno_generate() AS id')).rows[0].id, 'string')
    await types.refresh()
    assert.notEqual(types.oids.sno, before)
    assert.ok((await client.query('SELECT sno_generate() AS id')).rows[0].id instanceof Sno)
  } finally {
    await client.end()
  }
})

test('leased IDs of every format decode in SQL to their lease and its window; none twice', { skip }, async () => {
  for (const format of FORMATS) {
    const gen = await LeasedGenerator.take(pool, format, { holder: `ts-test-${format}`, ttl: 5 })
    const ids: string[] = []
    for (let i = 0; i < 20_000; i++) ids.push(String(await gen.generateAsync()))
    assert.equal(new Set(ids).size, ids.length, format)
    const lease = gen.lease
    const { rows } = await pool.query(`SELECT count(DISTINCT id)::int AS n, min(node)::text AS node_min, max(node)::text AS node_max,
        min(process) AS p_min, max(process) AS p_max, min(at) >= to_timestamp($2::float8 / 1e6) AS after_start
      FROM (SELECT id, ${DECODE[format]} FROM unnest($1::text[]) t, LATERAL (SELECT t::${SQL_TYPE[format]} AS id) i) d`,
    [ids, Number(lease.notBefore)])
    assert.deepEqual(rows[0], {
      n: ids.length, node_min: String(lease.node), node_max: String(lease.node), p_min: lease.process, p_max: lease.process, after_start: true
    }, format)
    assert.equal(await gen.release(), true)
  }
})

test('a released unit\'s next holder starts after the last use, not at expires', { skip }, async () => {
  const first = await LeasedGenerator.sno(pool, { holder: 'ts-release-1', ttl: 30 })
  const id = first.generate()
  await first.release()
  const { rows: [row] } = await pool.query(
    'SELECT not_before FROM pg_flake_leases WHERE format = \'sno\' AND node = $1 AND process = $2 ORDER BY lease_id DESC LIMIT 1',
    [first.lease.node, first.lease.process])
  assert.ok(row !== undefined)
  const second = await LeasedGenerator.sno(pool, { holder: 'ts-release-2', ttl: 30, wait: false })
  if (second.lease.node === first.lease.node && second.lease.process === first.lease.process) {
    assert.ok(second.lease.notBefore < first.lease.expires, 'the successor did not wait for expires')
    assert.ok(second.lease.notBefore > id.unixMicros)
  }
  await second.release()
})

async function collect (workers: Array<Promise<{ ids: string[], unit: string }>>): Promise<void> {
  const results = await Promise.all(workers)
  const all = results.flatMap((r) => r.ids)
  assert.equal(new Set(all).size, all.length, 'no ID twice')
  assert.equal(new Set(results.map((r) => r.unit)).size, results.length, 'a unit each')
}

test('worker_threads each take a unit of their own; a generator cannot be posted to one', { skip }, async () => {
  const script = join(here, 'helpers', 'lease-worker.mjs')
  await collect([0, 1, 2, 3].map(async (n) => await new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: { dsn, format: 'sno', holder: `ts-thread-${n}`, count: 20_000 } })
    worker.once('message', resolve)
    worker.once('error', reject)
  })))
  const gen = await LeasedGenerator.snowflake(pool, { holder: 'ts-post', ttl: 5 })
  const { port1 } = new MessageChannel()
  assert.throws(() => port1.postMessage(gen), (e: any) => e.name === 'DataCloneError')
  port1.close()
  await gen.release()
})

test('cluster workers each take a unit of their own', { skip }, async () => {
  cluster.setupPrimary({ exec: join(here, 'helpers', 'lease-worker.mjs'), silent: false })
  await collect([0, 1, 2].map(async (n) => await new Promise((resolve, reject) => {
    const worker = cluster.fork({ PG_FLAKE_WORKER: JSON.stringify({ dsn, format: 'siq', holder: `ts-cluster-${n}`, count: 20_000 }) })
    worker.once('message', (m) => { resolve(m); worker.disconnect() })
    worker.once('exit', (code) => { if (code !== 0) reject(new Error(`worker exit ${code}`)) })
  })))
})

test('a renewal is never taken over: another role cannot renew, a forced end stops the holder at its window', { skip }, async () => {
  for (const role of ['ts_app', 'ts_other']) {
    await pool.query(`DO $$ BEGIN CREATE ROLE ${role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`)
    await pool.query(`GRANT EXECUTE ON FUNCTION pg_flake_lease(text, text, interval), pg_flake_renew(bigint, interval),
      pg_flake_release(bigint, timestamptz) TO ${role}`)
  }
  const app = new pg.Pool({ ...config(), user: 'ts_app', max: 2 })
  const other = new PgLeases({ ...config(), user: 'ts_other' })
  try {
    const gen = await LeasedGenerator.kuid96(app, { holder: 'ts-owned', ttl: 2 })
    await assert.rejects(other.renew(gen.lease.leaseId, 60_000), (e: any) => e instanceof LeaseError && e.sqlstate === '42501')
    await assert.rejects(other.release(gen.lease.leaseId, null), (e: any) => e.sqlstate === '42501')
    await gen.renew()
    assert.equal(gen.renewError, undefined, 'the holder still renews its own lease')
    // A superuser's forced end: the holder's next renewal fails (55000, final) and it stops at its window.
    await pool.query('SELECT pg_flake_release($1::int8)', [gen.lease.leaseId.toString()])
    await gen.renew()
    assert.equal((gen.renewError as unknown as LeaseError).sqlstate, '55000')
    const expires = gen.lease.expires
    let last: Kuid96 | undefined
    await assert.rejects((async () => { for (;;) last = await gen.generateAsync() })(), LeaseExpired)
    assert.ok(last !== undefined && last.parts(gen.lease.kuidInterval ?? 8).unixMicros < expires)
  } finally {
    await app.end()
    await other.close()
  }
})

// --- holder processes killed, paused and with their clocks off ------------------------------

const FAKETIME_LIB = process.env.FAKETIME_LIB ?? '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'
const WRITER = join(REPO, 'tests', 'servers', 'lease_writer.mjs')

interface Holder { done: Promise<number>, leased: Promise<void>, pid: number, stderr: () => string }

function writer (format: string, name: string, seconds: number, clock?: string): Holder {
  const env: NodeJS.ProcessEnv = { ...process.env, PG_FLAKE_TS: process.env.PG_FLAKE_TS_PACKAGE ?? join(here, '..') }
  if (clock !== undefined) Object.assign(env, { LD_PRELOAD: FAKETIME_LIB, FAKETIME: clock, FAKETIME_DONT_FAKE_MONOTONIC: '1' })
  const child = spawn(process.execPath, [WRITER, '--dsn', dsn as string, '--format', format, '--holder', name, '--ttl-ms', '2000',
    '--table', `ts_h_${format}`, '--seconds', String(seconds)], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  // Its first stdout line: the lease it took.
  const leased = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))
  child.stdout.resume()
  const done = new Promise<number>((resolve) => child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGKILL') console.log(`${name}: exit ${code} ${signal ?? ''}\n${err}`)
    resolve(code ?? -1)
  }))
  return { done, leased, pid: child.pid as number, stderr: () => err }
}

test('holders killed, paused past their TTL and with clocks 10 s off, beside the database\'s own IDs: none twice', {
  skip: skip !== false ? skip : !existsSync(FAKETIME_LIB) ? `no libfaketime at ${FAKETIME_LIB}` : false
}, async () => {
  for (const format of FORMATS) {
    await pool.query(`DROP TABLE IF EXISTS ts_h_${format}`)
    const generate = { sno: 'sno_generate()', snowflake: 'snowflake_generate()', kuid96: 'kuid96_generate()', siq: "siq_generate('user')" }[format]
    await pool.query(`CREATE TABLE ts_h_${format} (id ${SQL_TYPE[format]} PRIMARY KEY DEFAULT ${generate}, lease_id bigint)`)
  }
  const seconds = 8
  const runs = [
    writer('sno', 'ts-sno', seconds),
    writer('snowflake', 'ts-snowflake-ahead', seconds, '+10s'),
    writer('kuid96', 'ts-kuid96-behind', seconds, '-10s'),
    writer('siq', 'ts-siq', seconds)
  ]
  const killed = writer('sno', 'ts-sno-killed', seconds)
  const paused = writer('snowflake', 'ts-snowflake-paused', seconds)
  let stop = false
  const defaults = (async () => {
    while (!stop) for (const format of FORMATS) await pool.query(`INSERT INTO ts_h_${format} (lease_id) SELECT NULL FROM generate_series(1, 20)`)
  })()
  // Each holds its lease and has made IDs before the faults.
  await Promise.all([killed.leased, paused.leased])
  await sleep(1000)
  process.kill(killed.pid, 'SIGKILL')
  const replacement = writer('sno', 'ts-sno-replacement', seconds)
  process.kill(paused.pid, 'SIGSTOP')
  await sleep(4000) // past the 2 s TTL: its lease expires, its unit may go to another holder
  process.kill(paused.pid, 'SIGCONT')
  const codes = await Promise.all([...runs, replacement, paused].map(async (r) => await r.done))
  stop = true
  await defaults
  assert.deepEqual(codes, codes.map(() => 0), 'exit 3 is a duplicate key')
  assert.equal(await killed.done, -1, 'killed')
  // The paused holder found its lease expired and went on under a new one.
  assert.match(paused.stderr(), /^expired \d+$/m)
  const { rows: [made] } = await pool.query(`SELECT count(DISTINCT lease_id)::int AS leases FROM ts_h_snowflake h
    JOIN pg_flake_leases l USING (lease_id) WHERE l.holder = 'ts-snowflake-paused'`)
  assert.ok(made.leases >= 2, `the paused holder's IDs are under ${made.leases} lease(s)`)
  const { rows: [dead] } = await pool.query(`SELECT count(*)::int AS n FROM ts_h_sno h
    JOIN pg_flake_leases l USING (lease_id) WHERE l.holder = 'ts-sno-killed'`)
  assert.ok(dead.n > 0, 'the killed holder had made IDs')
  for (const format of FORMATS) {
    // Every holder's ID carries its lease's unit, and a time inside the lease's window.
    const { rows } = await pool.query(`SELECT count(*)::int AS ids, count(*) FILTER (WHERE l.lease_id IS NULL)::int AS unknown,
        count(*) FILTER (WHERE d.node::text <> l.node::text OR d.process <> l.process)::int AS wrong_unit,
        count(*) FILTER (WHERE d.at < l.not_before OR d.at >= l.expires)::int AS outside
      FROM (SELECT h.lease_id, ${DECODE[format]} FROM ts_h_${format} h WHERE h.lease_id IS NOT NULL) d
      LEFT JOIN pg_flake_leases l ON l.lease_id = d.lease_id`)
    assert.ok(rows[0].ids > 0, format)
    assert.deepEqual({ unknown: rows[0].unknown, wrong_unit: rows[0].wrong_unit, outside: rows[0].outside },
      { unknown: 0, wrong_unit: 0, outside: 0 }, format)
  }
})
