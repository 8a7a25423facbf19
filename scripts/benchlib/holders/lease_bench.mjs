// How many IDs one TypeScript leased generator (the npm package pg-flake,
// clients/typescript, built) makes per second: `node lease_bench.mjs --dsn
// 'host=… port=… user=… dbname=…' --format F --seconds S` prints
// {"ids": N, "seconds": T} (scripts/benchlib/measure_holders.py). The loop
// yields to the event loop between batches, where the renewals run.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(join(here, '..', '..', '..', 'clients', 'typescript', 'package.json'))
const pg = require('pg')
const { LeasedGenerator, LeaseWouldWait } = require('pg-flake/lease')

const arg = (name) => process.argv[process.argv.indexOf(name) + 1]
const config = Object.fromEntries(arg('--dsn').trim().split(/\s+/).map((kv) => kv.split('=')))
const pool = new pg.Pool({ host: config.host, port: Number(config.port), user: config.user, database: config.dbname, max: 1 })
const gen = await LeasedGenerator.take(pool, arg('--format'), { holder: 'bench-typescript', ttl: 30 })
const start = performance.now()
const end = start + Number(arg('--seconds')) * 1000
let n = 0
while (performance.now() < end) {
  for (let i = 0; i < 1024; i++) {
    try {
      gen.generate()
    } catch (error) {
      if (!(error instanceof LeaseWouldWait)) throw error
      await gen.generateAsync()
    }
  }
  n += 1024
  if ((n & 0xffff) === 0) await new Promise((resolve) => setImmediate(resolve))
}
const elapsed = (performance.now() - start) / 1000
await gen.release()
await pool.end()
console.log(JSON.stringify({ ids: n, seconds: elapsed }))
