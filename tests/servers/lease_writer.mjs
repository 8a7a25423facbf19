#!/usr/bin/env node
// An application process that makes its own IDs under a lease with the npm
// package pg-flake (clients/typescript, built) and inserts them: the
// TypeScript holder of the multi-process lease tests and the nemesis, with
// the command line of tests/servers/lease_writer.py:
//
//   node tests/servers/lease_writer.mjs --dsn 'host=… port=… dbname=…' --format sno \
//       --holder ts-1 --ttl-ms 3000 --table ids_sno --seconds 20 [--ids FILE]
//
// For --seconds it generates an ID and inserts it with `INSERT INTO <table>
// (id, lease_id) VALUES ($1::text::<type>, $2)` (snowflake: bigint; siq:
// kind 'user'). stdout: one JSON line per lease taken, {"lease_id", "node",
// "process", "pid"}, written at once (a kill -9 leaves every line). When a
// lease expires it writes `expired <lease_id>` to stderr and takes a new one
// (never reusing the old), and so when the database's clock stepped back more
// than a minute (LeaseClockBehind). Exit 0 after releasing its lease at the end, 3 on
// a unique violation (a collision), 1 on anything else. --ids FILE: every ID
// with its lease appended as `<id> <lease_id>` before the insert, one write
// per line (the nemesis's checker reads them).
//
// The DSN is libpq's key=value form; several hosts and ports with
// target_session_attrs=read-write are tried in turn for the writable one
// (node-postgres has neither), so the holder follows a promotion.
// PG_FLAKE_TS: the package directory (default clients/typescript).
import { closeSync, openSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const packageDir = process.env.PG_FLAKE_TS ?? join(here, '..', '..', 'clients', 'typescript')
const require = createRequire(join(packageDir, 'package.json'))
const pg = require('pg')
const { LeasedGenerator, LeaseExpired, LeaseWouldWait, LeaseClockBehind, LeaseError } = require('pg-flake/lease')

const SQL_TYPE = { sno: 'sno', siq: 'siq', kuid96: 'kuid96', snowflake: 'bigint' }
const say = (text) => process.stderr.write(text + '\n')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function parseArgs (argv) {
  const args = {}
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`)
    args[argv[i].slice(2)] = argv[i + 1]
  }
  for (const key of ['dsn', 'format', 'holder', 'ttl-ms', 'table', 'seconds']) {
    if (args[key] === undefined) throw new Error(`--${key} is required`)
  }
  if (!(args.format in SQL_TYPE)) throw new Error(`--format: one of ${Object.keys(SQL_TYPE).join(', ')}`)
  return args
}

// libpq's key=value form (single-quoted values with backslash escapes).
function parseDsn (dsn) {
  const out = {}
  const re = /\s*(\w+)\s*=\s*('((?:[^'\\]|\\.)*)'|\S*)/g
  let m
  while ((m = re.exec(dsn)) !== null) out[m[1]] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]
  return out
}

function configs (dsn) {
  const d = parseDsn(dsn)
  const hosts = (d.host ?? '127.0.0.1').split(',')
  const ports = (d.port ?? '5432').split(',')
  return hosts.map((host, i) => ({
    host,
    port: Number(ports[Math.min(i, ports.length - 1)]),
    database: d.dbname,
    user: d.user,
    password: d.password,
    options: d.options,
    connectionTimeoutMillis: d.connect_timeout ? Number(d.connect_timeout) * 1000 : undefined,
    readWrite: d.target_session_attrs === 'read-write'
  }))
}

/** A connection to the first server that answers (and is writable, if asked), retried until the deadline. */
async function connect (dsn, deadline) {
  for (;;) {
    for (const { readWrite, ...config } of configs(dsn)) {
      const client = new pg.Client(config)
      client.on('error', () => {}) // a lost connection shows on its next query
      try {
        await client.connect()
        if (readWrite && (await client.query('SELECT pg_is_in_recovery() AS standby')).rows[0].standby) {
          await client.end()
          continue
        }
        return client
      } catch {
        await client.end().catch(() => {})
      }
    }
    if (performance.now() >= deadline) throw new Error('no writable server answered')
    await sleep(200)
  }
}

async function main () {
  const args = parseArgs(process.argv.slice(2))
  const deadline = performance.now() + Number(args.seconds) * 1000
  const ids = args.ids ? openSync(args.ids, 'a') : null
  const insert = `INSERT INTO ${args.table} (id, lease_id) VALUES ($1::text::${SQL_TYPE[args.format]}, $2)`
  const ttl = Number(args['ttl-ms']) / 1000

  async function take () {
    while (performance.now() < deadline) {
      try {
        const gen = await LeasedGenerator.take(() => connect(args.dsn, deadline), args.format, { holder: args.holder, ttl })
        const lease = gen.lease
        process.stdout.write(JSON.stringify({ lease_id: Number(lease.leaseId), node: lease.node, process: lease.process, pid: process.pid }) + '\n')
        return gen
      } catch (error) {
        // 53400: every unit held, wait for an expiry; a server away: try again.
        if (!(error instanceof LeaseError) && !/connect|terminat|ECONN|writable/i.test(String(error))) throw error
        await sleep(error.sqlstate === '53400' ? 100 : 200)
      }
    }
    return null
  }

  let gen = await take()
  let conn = gen === null ? null : await connect(args.dsn, deadline)
  let inserted = 0
  while (gen !== null && performance.now() < deadline) {
    let value
    try {
      value = gen.generate()
    } catch (error) {
      if (error instanceof LeaseExpired || error instanceof LeaseClockBehind) {
        // Expired: a new lease. The database's clock stepped back more than a minute (a
        // renewal said so): a new lease too, whose unit starts at the database's time now,
        // rather than wait for the clock to catch up (the Rust holder exits and starts again).
        say(`${error instanceof LeaseExpired ? 'expired' : 'clock behind, leaving'} ${gen.lease.leaseId}`)
        await gen.close().catch(() => {})
        gen = await take()
      } else if (error instanceof LeaseWouldWait) {
        await sleep(1)
      } else {
        throw error
      }
      continue
    }
    const leaseId = gen.lease.leaseId.toString()
    if (ids !== null) writeSync(ids, `${value} ${leaseId}\n`)
    try {
      await conn.query(insert, [String(value), leaseId])
      inserted++
    } catch (error) {
      if (error.code === '23505') {
        say(`duplicate ${value} of lease ${leaseId}: ${error.message}`)
        process.exitCode = 3
        return
      }
      // The server went away (restart, failover): that ID may or may not be
      // stored; the next one is new either way.
      if (error.code === undefined || /^(08|57P)/.test(error.code)) {
        await conn.end().catch(() => {})
        conn = await connect(args.dsn, deadline).catch(() => null)
        if (conn === null) break
        continue
      }
      throw error
    }
  }
  say(`inserted ${inserted}`)
  if (gen !== null) {
    try {
      await gen.close()
    } catch (error) {
      say(`release of lease ${gen.lease.leaseId} failed: ${error.message}`)
    }
  }
  await conn?.end().catch(() => {})
  if (ids !== null) closeSync(ids)
}

main().then(() => process.exit(process.exitCode ?? 0), (error) => {
  say(`lease_writer.mjs: ${error.stack ?? error}`)
  process.exit(process.exitCode === 3 ? 3 : 1)
})
