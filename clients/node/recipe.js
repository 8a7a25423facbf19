'use strict'
// pg_flake from node-postgres with the npm package pg-flake (its values and
// its type parsers, pg-flake/pg), as a test: every check prints what it
// showed and the process exits non-zero if one fails. Run against a database
// where pg_flake may be dropped and created again (it does both):
//   PG_FLAKE_TEST_DSN='host=127.0.0.1 port=5432 user=postgres dbname=flake_clients' node recipe.js

const assert = require('node:assert/strict')
const pg = require('pg')
const { FlakeError, FlakeId, Sno, Siq } = require('pg-flake')
const { registerTypes, BinaryResultCorrupted } = require('pg-flake/pg')

const { testConfig, EXAMPLES, checks } = require('./harness')

const { check, summary } = checks()

async function main () {
  const config = testConfig()
  const client = new pg.Client(config)
  await client.connect()
  let types
  console.log(`node-postgres ${require('pg/package.json').version}, node ${process.version}`)
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_flake')
  await client.query('DROP TABLE IF EXISTS node_recipe')

  await check('registerTypes: OIDs looked up by name, parsers registered in one call', async () => {
    types = await registerTypes(client)
    const oids = types.oids
    return Object.entries(oids).map(([t, o]) => `${t}=${o}`).join(' ')
  })

  await check('text round trip: parameters as text with casts, results as values', async () => {
    await client.query(`CREATE TABLE node_recipe (
      sno sno, siq siq, distributed_id distributed_id, flaxid flaxid, kuid96 kuid96)`)
    const e = EXAMPLES
    await client.query(
      'INSERT INTO node_recipe VALUES ($1::sno, $2::siq, $3::distributed_id, $4::flaxid, $5::kuid96)',
      [e.sno, e.siq, e.distributed_id, e.flaxid, e.kuid96])
    const { rows: [row] } = await client.query('SELECT * FROM node_recipe WHERE sno = $1::sno', [e.sno])
    for (const [type, text] of Object.entries(e)) {
      assert.ok(row[type] instanceof FlakeId, `${type} should come back as a value`)
      assert.equal(row[type].typeName, type)
      assert.equal(String(row[type]), text)
    }
    assert.ok(row.sno instanceof Sno)
    return Object.values(row).map(String).join(' ')
  })

  await check('a value as a parameter is its text', async () => {
    const { rows: [row] } = await client.query('SELECT * FROM node_recipe')
    const { rows: [again] } = await client.query(
      'SELECT $1::siq = siq AS same, $2::kuid96 AS k FROM node_recipe', [row.siq, row.kuid96])
    assert.equal(again.same, true)
    assert.ok(again.k.equals(row.kuid96))
    return `${row.siq} -> siq, ${row.kuid96} -> kuid96`
  })

  await check('generated IDs come back from RETURNING as values', async () => {
    const { rows } = await client.query(`INSERT INTO node_recipe (sno, siq, distributed_id, flaxid, kuid96)
      SELECT sno_generate(), siq_generate('event'), distributed_id_generate(), flaxid_generate(), kuid96_generate()
      FROM generate_series(1, 3) RETURNING *`)
    assert.equal(rows.length, 3)
    for (const row of rows) for (const type of Object.keys(EXAMPLES)) assert.ok(row[type] instanceof FlakeId)
    assert.ok(rows[0].sno.compareTo(rows[1].sno) < 0 && rows[1].sno.compareTo(rows[2].sno) < 0, 'sno increase')
    return rows.map(r => String(r.sno)).join(' ')
  })

  await check('decoding in SQL: sno_timestamp and sno_parts', async () => {
    const { rows: [p] } = await client.query(
      'SELECT sno_timestamp($1::sno) AS ts, (sno_parts($1::sno)).*', [EXAMPLES.sno])
    assert.equal(p.ts.toISOString(), '2031-05-08T23:03:34.976Z')
    assert.deepEqual([p.meta, p.partition, p.sequence, p.tick_tock], [255, 39434, 4147, false])
    const sno = Sno.parse(EXAMPLES.sno)
    assert.equal(sno.time.toISOString(), p.ts.toISOString())
    assert.deepEqual([sno.meta, sno.partition, sno.sequence, sno.tickTock], [255, 39434, 4147, false])
    return `${p.ts.toISOString()} meta=${p.meta} partition=${p.partition} sequence=${p.sequence}`
  })

  await check('arrays of pg_flake types parse element by element', async () => {
    const { rows: [{ ids }] } = await client.query('SELECT array_agg(flaxid ORDER BY flaxid) AS ids FROM node_recipe')
    assert.equal(ids.length, 4)
    assert.ok(ids.every(id => id instanceof FlakeId && id.typeName === 'flaxid'))
    return `flaxid[] of ${ids.length}`
  })

  await check('the package\'s sno codec agrees with the server (text <-> bytes, order)', async () => {
    const { rows } = await client.query(`SELECT id::text AS text, id::bytea AS bytes FROM (
      SELECT $1::sno AS id UNION ALL SELECT sno_generate(m) FROM generate_series(0, 255) m) s ORDER BY id`,
    [EXAMPLES.sno])
    for (const { text, bytes } of rows) {
      assert.ok(Buffer.from(Sno.parse(text).toBytes()).equals(bytes))
      assert.equal(String(Sno.fromBytes(bytes)), text)
    }
    const texts = rows.map(r => r.text)
    assert.deepEqual([...texts].sort(), texts, 'text order is byte order')
    return `${rows.length} values`
  })

  await check('parameters as bytes: a Buffer is sent in binary (the type\'s receive function)', async () => {
    const shown = []
    for (const [type, text] of Object.entries(EXAMPLES)) {
      const { rows: [{ bytes }] } = await client.query(`SELECT $1::${type}::bytea AS bytes`, [text])
      const { rows: [{ id }] } = await client.query(`SELECT $1::${type} AS id`, [bytes])
      assert.equal(String(id), text)
      shown.push(`${type} ${bytes.length} bytes`)
    }
    return shown.join(', ')
  })

  await check('bad input: clear errors with SQLSTATE', async () => {
    await assert.rejects(client.query('SELECT $1::sno', ['not-a-sno']),
      (err) => err.code === '22P02' && /sno/.test(err.message))
    await assert.rejects(client.query('SELECT $1::sno', [Buffer.alloc(9)]),
      (err) => err.code === '22P03' && /sno/.test(err.message))
    assert.throws(() => Sno.parse('BRPK4Q72XWF2M63L'), (err) => err instanceof FlakeError && err.sqlstate === '22P02')
    return '22P02 for bad text, 22P03 for 9 bytes (the server), 22P02 (the package)'
  })

  await check('binary: true is lossy in node-postgres 8.23 (brianc/node-postgres#3495)', async () => {
    // Not pg_flake's doing: any binary column whose bytes are not UTF-8. If
    // this check fails after an upgrade, binary results are fixed: update
    // docs/applications.md ("binary: true").
    // (binary applies to queries with parameters: without, node-postgres
    // uses the simple protocol, whose results are always text.)
    const { rows: [{ n }] } = await client.query({ text: 'SELECT $1::int4 AS n', values: [1000], binary: true })
    assert.equal(n, 1007)
    return 'SELECT $1::int4 with 1000 returns 1007'
  })

  await check('binary: true with pg_flake types gives the value or an error, never a wrong ID', async () => {
    // 'A' bytes are UTF-8, so they survive; the documentation's sno has 0xa0 and 0xff.
    const result = await client.query({
      text: 'SELECT $1::bytea::sno AS sno, $2::bytea::siq AS siq',
      values: [Buffer.from('A'.repeat(10)), Buffer.from('A'.repeat(14))],
      binary: true
    })
    assert.deepEqual(result.fields.map(f => f.format), ['binary', 'binary'])
    const { sno, siq } = result.rows[0]
    assert.ok(sno instanceof Sno && siq instanceof Siq)
    assert.ok(sno.equals(Sno.fromBytes(Buffer.from('A'.repeat(10)))))
    const { rows: [{ text }] } = await client.query('SELECT $1::bytea::siq::text AS text', [Buffer.from('A'.repeat(14))])
    assert.equal(String(siq), text)
    await assert.rejects(client.query({ text: 'SELECT $1::sno AS id', values: [EXAMPLES.sno], binary: true }),
      BinaryResultCorrupted)
    return `UTF-8-safe bytes -> sno ${sno}, siq ${siq}; ${EXAMPLES.sno} -> BinaryResultCorrupted`
  })

  await check('after DROP/CREATE EXTENSION: stale OIDs, then types.refresh()', async () => {
    const before = types.oids.sno
    await client.query('DROP TABLE node_recipe')
    const other = new pg.Client(config)
    await other.connect()
    await other.query('DROP EXTENSION pg_flake')
    await other.query('CREATE EXTENSION pg_flake')
    await other.end()
    // Text parameters never carry OIDs, so queries still work; results of
    // the new types just miss their parsers and arrive as plain strings.
    const stale = (await client.query('SELECT $1::sno AS id', [EXAMPLES.sno])).rows[0].id
    assert.equal(typeof stale, 'string')
    const oids = await types.refresh()
    assert.notEqual(oids.sno, before)
    const fresh = (await client.query('SELECT $1::sno AS id', [EXAMPLES.sno])).rows[0].id
    assert.ok(fresh instanceof Sno)
    return `sno ${before} -> ${oids.sno}; before refresh a string, after it a Sno`
  })

  await check('registerTypes(pool): every client of a Pool', async () => {
    const pool = new pg.Pool({ ...config, max: 2 })
    await registerTypes(pool)
    const ids = await Promise.all([1, 2, 3].map(() =>
      pool.query('SELECT sno_generate() AS id').then(r => r.rows[0].id)))
    await pool.end()
    assert.ok(ids.every(id => id instanceof Sno))
    return ids.join(' ')
  })

  await client.end()
  summary('node')
}

main().catch((err) => {
  console.log(`FAIL node recipe: ${err.stack}`)
  process.exitCode = 1
})
