'use strict'
// Runs every ```ts block of docs/applications.md's section "TypeScript and
// JavaScript" as its own ES module, here (where pg, drizzle-orm and the
// pg-flake tarball are installed), against a database of their own (the
// name of PG_FLAKE_TEST_DSN's with "_docs" added, made afresh with pg_flake
// and dropped at the end; DATABASE_URL names it): what a reader who copies
// them gets, and nothing left behind for the other recipes.
// TypeScript's own transpiler (clients/typescript's pinned one) removes the
// types; a block after `<!-- example-test: skip REASON -->` is skipped, saying why.
//   PG_FLAKE_TEST_DSN='host=127.0.0.1 port=5432 user=postgres dbname=flake_clients' node docs-examples.js

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const pg = require('pg')
const ts = require('../typescript/node_modules/typescript')
const { testConfig, configUrl } = require('./harness')

const DOC = path.join(__dirname, '..', '..', 'docs', 'applications.md')
const SECTION = '## TypeScript and JavaScript'
// A directory per run: make test runs the versions' client tests side by side, and one
// run's clean-up removed the other's examples (CI: "Cannot find module"). Under
// clients/node, so that the examples resolve its node_modules.
const OUT = path.join(__dirname, '.docs-examples', String(process.pid))

function blocks () {
  const text = fs.readFileSync(DOC, 'utf8')
  const start = text.indexOf(`\n${SECTION}\n`)
  if (start < 0) throw new Error(`${DOC}: no section "${SECTION}"`)
  const end = text.indexOf('\n## ', start + 1)
  const lines = text.slice(start, end < 0 ? undefined : end).split('\n')
  const firstLine = text.slice(0, start).split('\n').length + 1
  const found = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```ts') continue
    let j = i + 1
    while (lines[j] !== '```') j++
    const skip = /^<!-- example-test: skip (.*) -->$/.exec(lines[i - 1] ?? '')
    found.push({ line: firstLine + i, code: lines.slice(i + 1, j).join('\n'), skip: skip && skip[1] })
    i = j
  }
  return found
}

async function withDatabase (body) {
  const config = testConfig()
  const name = `${config.database}_docs`
  const admin = new pg.Client(config)
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS "${name}"`)
  await admin.query(`CREATE DATABASE "${name}"`)
  try {
    const db = new pg.Client({ ...config, database: name })
    await db.connect()
    await db.query('CREATE EXTENSION pg_flake')
    await db.end()
    body(configUrl({ ...config, database: name }))
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`)
    await admin.end()
  }
}

function run (url) {
  const env = { ...process.env, DATABASE_URL: url }
  fs.rmSync(OUT, { recursive: true, force: true })
  fs.mkdirSync(OUT, { recursive: true })
  let failed = 0
  const all = blocks()
  for (const { line, code, skip } of all) {
    const where = `docs/applications.md:${line}`
    if (skip) {
      console.log(`skip ${where}: ${skip}`)
      continue
    }
    const js = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
    const file = path.join(OUT, `example-${line}.mjs`)
    fs.writeFileSync(file, js)
    try {
      const out = execFileSync(process.execPath, [file], { cwd: __dirname, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60000 })
      console.log(`ok   ${where}${out.trim() ? ': ' + out.trim().replace(/\n/g, ' | ') : ''}`)
    } catch (error) {
      failed++
      console.log(`FAIL ${where}: ${error.stderr || error.message}`)
    }
  }
  console.log(`docs examples: ${all.length - failed} of ${all.length} blocks passed (or skipped, as said)`)
  if (!failed) fs.rmSync(OUT, { recursive: true, force: true }) // a failure's stay to be read
  process.exitCode = failed ? 1 : 0
}

withDatabase(run).catch((error) => {
  console.log(`FAIL docs examples: ${error.stack}`)
  process.exitCode = 1
})
