// What the server tests share: the server (PG_FLAKE_TEST_DSN, libpq's
// key=value form, which node-postgres does not read itself) and the
// repository (PG_FLAKE_REPO when the tests run from a scratch project).
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ClientConfig } from 'pg'

export const dsn: string | undefined = process.env.PG_FLAKE_TEST_DSN || undefined

/** The repository: PG_FLAKE_REPO, or the one around clients/typescript/dist-test/helpers. */
export const REPO = process.env.PG_FLAKE_REPO ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')

export function parseDsn (text: string): ClientConfig {
  const names: Record<string, keyof ClientConfig> = { host: 'host', port: 'port', user: 'user', dbname: 'database', password: 'password' }
  const out: Record<string, unknown> = {}
  const re = /\s*(\w+)\s*=\s*('((?:[^'\\]|\\.)*)'|\S*)/g
  let m: RegExpExecArray | null
  while ((m = re.exec(text)) !== null) {
    const name = names[m[1]]
    if (name === undefined) throw new Error(`PG_FLAKE_TEST_DSN: unsupported key ${m[1]}`)
    out[name] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]
  }
  if (out.port !== undefined) out.port = Number(out.port)
  return out as ClientConfig
}

export function config (text: string | undefined = dsn): ClientConfig {
  if (text === undefined) throw new Error('PG_FLAKE_TEST_DSN is not set')
  return parseDsn(text)
}

export const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))
