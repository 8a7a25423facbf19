'use strict'
// What the recipes share: the DSN, the examples, and checks that print what
// they showed (a recipe exits non-zero if one failed).

// libpq's key=value form, which node-postgres does not read itself.
function parseDsn (dsn) {
  const config = {}
  const names = { host: 'host', port: 'port', user: 'user', dbname: 'database', password: 'password' }
  const re = /\s*(\w+)\s*=\s*('((?:[^'\\]|\\.)*)'|\S*)/g
  let m
  while ((m = re.exec(dsn)) !== null) {
    if (!names[m[1]]) throw new Error(`PG_FLAKE_TEST_DSN: unsupported key ${m[1]}`)
    config[names[m[1]]] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]
  }
  return config
}

function testConfig () {
  return parseDsn(process.env.PG_FLAKE_TEST_DSN || 'host=127.0.0.1 port=5432 user=postgres dbname=flake_clients')
}

// The same as a postgresql:// URL (for Prisma's configuration).
function configUrl ({ host, port, user, database, password }) {
  const e = encodeURIComponent
  const auth = user ? e(user) + (password ? ':' + e(password) : '') + '@' : ''
  // A socket directory goes in the query string, as libpq's URLs have it.
  const socket = host && host.startsWith('/')
  const hostPart = socket ? '' : (host || 'localhost') + (port ? ':' + port : '')
  const query = socket ? `?host=${e(host)}${port ? '&port=' + port : ''}` : ''
  return `postgresql://${auth}${hostPart}/${e(database || '')}${query}`
}

// One value of each native type, from the examples of docs/sql-reference.md.
const EXAMPLES = {
  sno: 'brpk4q72xwf2m63l',
  siq: 'crxckuyagku7racaaacmgzymuoabo',
  distributed_id: '1088824355131185736905670087',
  flaxid: '17cQYV3E6XowHpdd',
  kuid96: '.5.tXa0xODNvPN.0'
}

function checks () {
  const results = []
  async function check (name, body) {
    try {
      const shown = await body()
      results.push(true)
      console.log(`ok   ${name}${shown ? ': ' + shown : ''}`)
    } catch (err) {
      results.push(false)
      console.log(`FAIL ${name}: ${err && err.stack ? err.stack : err}`)
      if (err && err.cause) console.log(`     cause: ${err.cause.stack || err.cause}`)
    }
  }
  function summary (label) {
    const failed = results.filter(ok => !ok).length
    console.log(`${label}: ${results.length - failed} of ${results.length} checks passed`)
    process.exitCode = failed ? 1 : 0
  }
  return { check, summary }
}

// An installed package's version (some packages' exports hide package.json).
function versionOf (name) {
  const path = require('node:path')
  const fs = require('node:fs')
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', name, 'package.json'), 'utf8')).version
}

module.exports = { versionOf, parseDsn, testConfig, configUrl, EXAMPLES, checks }
