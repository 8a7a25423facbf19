// Builds the package: ES modules (dist/esm), CommonJS (dist/cjs) and the
// type declarations (dist/types) from src/, then the tests (dist-test) from
// test/. One TypeScript compiler, the one package-lock.json pins.
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')

function compile (project) {
  execFileSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit' })
}

rmSync(join(root, 'dist'), { recursive: true, force: true })
rmSync(join(root, 'dist-test'), { recursive: true, force: true })
compile('tsconfig.json')
compile('tsconfig.cjs.json')
// Each output directory says how Node must load its .js files.
for (const [dir, type] of [['dist/esm', 'module'], ['dist/cjs', 'commonjs']]) {
  mkdirSync(join(root, dir), { recursive: true })
  writeFileSync(join(root, dir, 'package.json'), JSON.stringify({ type }) + '\n')
}
if (!process.argv.includes('--no-tests')) {
  // Tests are .mts (ES modules whatever the package.json around them says), and import the
  // package by its name: this package's own exports here, the installed copy in a scratch project.
  compile('tsconfig.test.json')
}
