'use strict'
// Prisma's configuration for the recipe (see README.md, "Prisma"). With
// `engine: 'js'` and an adapter, the CLI needs no schema engine binary, and
// with `engineType = "client"` in schema.prisma no query engine either: then
// `prisma generate` and `prisma migrate diff` download nothing. (Without
// them, the CLI fetches the engines from binaries.prisma.sh.)
const { defineConfig } = require('prisma/config')
const { testConfig, configUrl } = require('./harness')

// Prisma 6 needs the datasource's url to read the schema, even when the
// adapter is what connects.
process.env.DATABASE_URL ??= configUrl(testConfig())
// No update check from the CLI (checkpoint.prisma.io).
process.env.CHECKPOINT_DISABLE ??= '1'

module.exports = defineConfig({
  experimental: { adapter: true },
  schema: 'prisma/schema.prisma',
  engine: 'js',
  async adapter () {
    const { PrismaPg } = require('@prisma/adapter-pg')
    // A short idle timeout: the CLI exits when the pool is idle.
    return new PrismaPg({ ...testConfig(), idleTimeoutMillis: 100 })
  }
})
