'use strict'
// pg_flake from node-postgres, as a test: every check prints what it showed
// and the process exits non-zero if one fails. Run against a database where
// pg_flake may be dropped and created again (it does both):
//   PG_FLAKE_TEST_DSN='host=127.0.0.1 port=5432 user=postgres dbname=flake_clients' node recipe.js

const assert = require('node:assert/strict')
const pg = require('pg')
const { FlakeId, Sno, FlakeTypes, BinaryResultCorrupted } = require('./flake-types')

const { testConfig, EXAMPLES, checks } = require('./harness')

const { check, summary } = checks()

async function main () {
  const config = testConfig()
  const types = new FlakeTypes()
  const client = new pg.Client({ ...config, types })
  await client.connect()
  console.log(`node-postgres ${require('pg/package.json').version}, node ${process.version}`)
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_flake')
  await client.query('DROP TABLE IF EXISTS node_recipe')

  await check('OIDs looked up at connect time', async () => {
    const oids = await types.refresh(client)
    return Object.entries(oids).map(([t, o]) => `${t}=${o}`).join(' ')
  })

  await check('text round trip: parameters as text with casts, results as FlakeId', async () => {
    await client.query(`CREATE TABLE node_recipe (
      sno sno, siq siq, distributed_id distributed_id, flaxid flaxid, kuid96 kuid96)`)
    const e = EXAMPLES
    await client.query(
      'INSERT INTO node_recipe VALUES ($1::sno, $2::siq, $3::distributed_id, $4::flaxid, $5::kuid96)',
      [e.sno, e.siq, e.distributed_id, e.flaxid, e.kuid96])
    const { rows: [row] } = await client.query('SELECT * FROM node_recipe WHERE sno = $1::sno', [e.sno])
    for (const [type, text] of Object.entries(e)) {
      assert.ok(row[type] instanceof FlakeId, `${type} should come back as a FlakeId`)
      assert.equal(row[type].type, type)
      assert.equal(row[type].text, text)
    }
    assert.ok(row.sno instanceof Sno)
    return Object.values(row).map(String).join(' ')
  })

  await check('a FlakeId as a parameter is its text', async () => {
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
    assert.ok(rows[0].sno.text < rows[1].sno.text && rows[1].sno.text < rows[2].sno.text, 'sno increase')
    return rows.map(r => r.sno.text).join(' ')
  })

  await check('decoding in SQL: sno_timestamp and sno_parts', async () => {
    const { rows: [p] } = await client.query(
      'SELECT sno_timestamp($1::sno) AS ts, (sno_parts($1::sno)).*', [EXAMPLES.sno])
    assert.equal(p.ts.toISOString(), '2031-05-08T23:03:34.976Z')
    assert.deepEqual([p.meta, p.partition, p.sequence, p.tick_tock], [255, 39434, 4147, false])
    assert.equal(Sno.fromText(EXAMPLES.sno).time.toISOString(), p.ts.toISOString())
    return `${p.ts.toISOString()} meta=${p.meta} partition=${p.partition} sequence=${p.sequence}`
  })

  await check('arrays of pg_flake types parse element by element', async () => {
    const { rows: [{ ids }] } = await client.query('SELECT array_agg(flaxid ORDER BY flaxid) AS ids FROM node_recipe')
    assert.equal(ids.length, 4)
    assert.ok(ids.every(id => id instanceof FlakeId && id.type === 'flaxid'))
    return `flaxid[] of ${ids.length}`
  })

  await check('sno codec in JS agrees with the server (text <-> bytes, order)', async () => {
    const { rows } = await client.query(`SELECT id::text AS text, id::bytea AS bytes FROM (
      SELECT $1::sno AS id UNION ALL SELECT sno_generate(m) FROM generate_series(0, 255) m) s ORDER BY id`,
    [EXAMPLES.sno])
    for (const { text, bytes } of rows) {
      assert.deepEqual(Sno.fromText(text).bytes, bytes)
      assert.equal(Sno.fromBytes(bytes).text, text)
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
      assert.equal(id.text, text)
      shown.push(`${type} ${bytes.length} bytes`)
    }
    return shown.join(', ')
  })

  await check('bad input: clear errors with SQLSTATE', async () => {
    await assert.rejects(client.query('SELECT $1::sno', ['not-a-sno']),
      (err) => err.code === '22P02' && /sno/.test(err.message))
    await assert.rejects(client.query('SELECT $1::sno', [Buffer.alloc(9)]),
      (err) => err.code === '22P03' && /sno/.test(err.message))
    assert.throws(() => Sno.fromText('BRPK4Q72XWF2M63L'), TypeError)
    return '22P02 for bad text, 22P03 for 9 bytes'
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
    assert.ok(sno instanceof Sno)
    assert.equal(sno.text, Sno.fromBytes(Buffer.from('A'.repeat(10))).text)
    // No siq codec in JS: the value holds its bytes, and goes back as them.
    assert.equal(siq.text, null)
    const { rows: [{ text }] } = await client.query('SELECT $1::siq::text AS text', [siq])
    const { rows: [{ same }] } = await client.query('SELECT $1::siq = $2::bytea::siq AS same', [text, Buffer.from('A'.repeat(14))])
    assert.equal(same, true)
    await assert.rejects(client.query({ text: 'SELECT $1::sno AS id', values: [EXAMPLES.sno], binary: true }),
      BinaryResultCorrupted)
    return `UTF-8-safe bytes -> sno ${sno.text}, siq ${text}; ${EXAMPLES.sno} -> BinaryResultCorrupted`
  })

  await check('after DROP/CREATE EXTENSION: stale OIDs, then refresh()', async () => {
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
    const oids = await types.refresh(client)
    assert.notEqual(oids.sno, before)
    const fresh = (await client.query('SELECT $1::sno AS id', [EXAMPLES.sno])).rows[0].id
    assert.ok(fresh instanceof Sno)
    return `sno ${before} -> ${oids.sno}; before refresh a string, after it a Sno`
  })

  await check('a Pool shares one FlakeTypes', async () => {
    const pool = new pg.Pool({ ...config, types, max: 2 })
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
