#!/usr/bin/env node
/**
 * `npm test`: makes sure the browser the end-to-end tests drive is present, runs the whole vitest suite, and ends with
 * one plain summary line ("Tests: N passed, N failed, N skipped") that any CI can read.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { projectNode } from './node.mjs'
import { ensureDebianPackages } from './debian.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

ensureDebianPackages(() => existsSync(chromium), ['chromium', 'fonts-noto-cjk', 'fonts-noto-color-emoji'],
  `Chromium is missing at ${chromium}. Install it (Debian: sudo apt-get install chromium fonts-noto-cjk) or set CHROMIUM_PATH.`)

const out = join(root, 'test-artifacts')
mkdirSync(out, { recursive: true })
const report = join(out, 'vitest-report.json')
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const run = spawnSync(projectNode(root), [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { stdio: 'inherit', cwd: root })

let summary = 'Tests: 0 passed, 1 failed'
try {
  const r = JSON.parse(readFileSync(report, 'utf8'))
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
  summary = `Tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`
} catch { /* vitest died before writing a report: counted as a failure above */ }
console.log(summary)
process.exit(run.status ?? 1)
