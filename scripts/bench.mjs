#!/usr/bin/env node
/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or the ones named on the command line) one after another with this
 * Node (22, which strips TypeScript types itself), so each figure is measured without another benchmark competing.
 * The routes benchmark drives its HTTP load with wrk (Debian package `wrk`), installed here when it may be.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { projectNode } from './node.mjs'
import { ensureDebianPackages, onPath } from './debian.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const wanted = process.argv.slice(2)
const files = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort()
if (files.includes('routes.bench.ts')) {
  ensureDebianPackages(
    () => onPath('wrk'),
    ['wrk'],
    'bench/routes.bench.ts needs wrk, the HTTP load generator (Debian: sudo apt-get install wrk).',
  )
}
let failed = 0
for (const file of files) {
  console.log(`\n=== bench/${file}`)
  const run = spawnSync(
    projectNode(root),
    ['--experimental-strip-types', '--no-warnings', '--expose-gc', join(root, 'bench', file)],
    { stdio: 'inherit', cwd: root },
  )
  if (run.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
