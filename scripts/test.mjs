#!/usr/bin/env node
/**
 * `npm test`: runs the gates, makes sure the browser the end-to-end tests drive is present, runs the whole vitest
 * suite, and ends with one plain summary line ("Tests: N passed, N failed, N skipped") that any CI can read.
 *
 * The gates run first and each one fails the run: the TypeScript check (the host half with its tests, benches and
 * scripts without DOM types; the browser half and lib/shared without Node types; everything together, for the
 * tests that drive jsdom or Chromium; the scripts' own JavaScript, by its JSDoc types, tsconfig.scripts.json), oxlint (.oxlintrc.json), the sizes (its max-lines rules against the list of
 * today's offenders, scripts/sizes.mjs), the unused exports (knip against its list, scripts/exports.mjs), dependency-cruiser (.dependency-cruiser.cjs) and prettier (.prettierrc.json:
 * a file not laid out as the formatter lays it out fails the run).
 * vitest only strips types, so without the first gate a type error would pass the suite. When a gate fails the
 * suite is not run and each failed gate counts as one failed test. `--gates-only` stops after the gates.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { projectNode } from './node.mjs'
import { ensureDebianPackages, onPath } from './debian.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/** @param {string} name */
const bin = (name) => join(root, 'node_modules', '.bin', name)
const SOURCES = ['lib', 'test', 'bench', 'scripts']

/**
 * Each gate: what it checks, and the command that exits non-zero when the check fails.
 * @type {[gate: string, command: string, args: string[]][]}
 */
const GATES = [
  ['typecheck: host (no DOM)', bin('tsc'), ['-p', 'tsconfig.host.json']],
  ['typecheck: browser (no Node)', bin('tsc'), ['-p', 'tsconfig.client.json']],
  ['typecheck: everything', bin('tsc'), ['-p', 'tsconfig.json']],
  ['typecheck: scripts (checkJs)', bin('tsc'), ['-p', 'tsconfig.scripts.json']],
  // The size rules are allowed here because their gate is the next one: a listed offender is not a failure.
  [
    'lint: oxlint',
    bin('oxlint'),
    ['-c', '.oxlintrc.json', '--deny-warnings', '-A', 'max-lines', '-A', 'max-lines-per-function', ...SOURCES],
  ],
  ['sizes: max-lines against scripts/sizes-baseline.txt', process.execPath, [join(root, 'scripts', 'sizes.mjs')]],
  ['exports: knip against scripts/exports-baseline.txt', process.execPath, [join(root, 'scripts', 'exports.mjs')]],
  ['imports: dependency-cruiser', bin('depcruise'), ['--config', '.dependency-cruiser.cjs', ...SOURCES]],
  ['format: prettier', bin('prettier'), ['--check', '--log-level', 'warn', '.']],
]

/**
 * Runs one gate with its output held back, so that two gates running at once print one after the other.
 * @param {[gate: string, command: string, args: string[]]} gate
 * @returns {Promise<{ ok: boolean, output: Buffer }>}
 */
function runGate([, command, gateArgs]) {
  return new Promise((resolve) => {
    const child = spawn(command, gateArgs, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    /** @type {Buffer[]} */
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    child.on('error', (error) => resolve({ ok: false, output: Buffer.from(`${error.message}\n`) }))
    child.on('close', (code) => resolve({ ok: code === 0, output: Buffer.concat(output) }))
  })
}

const args = process.argv.slice(2)
const gatesOnly = args.includes('--gates-only')
// Two gates at a time, one per core of the machines CI runs on: the four typechecks alone take a minute one by one.
// They start in the list's order; each prints when its turn in that order comes.
let running = 0
/** @type {Array<() => void>} */
const waiting = []
const results = GATES.map(async (gate) => {
  if (running >= 2) await new Promise((resolve) => waiting.push(() => resolve(undefined)))
  running++
  try {
    return await runGate(gate)
  } finally {
    running--
    waiting.shift()?.()
  }
})
const failedGates = []
for (const [i, [gate]] of GATES.entries()) {
  const { ok, output } = await results[i]
  process.stdout.write(output)
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${gate}`)
  if (!ok) failedGates.push(gate)
}
if (failedGates.length > 0 || gatesOnly) {
  if (failedGates.length > 0) console.log(`Gates failed: ${failedGates.join('; ')} — the suite was not run`)
  console.log(`Tests: 0 passed, ${failedGates.length} failed`)
  process.exit(failedGates.length > 0 ? 1 : 0)
}

ensureDebianPackages(
  () => existsSync(chromium),
  ['chromium', 'fonts-noto-cjk', 'fonts-noto-color-emoji'],
  `Chromium is missing at ${chromium}. Install it (Debian: sudo apt-get install chromium fonts-noto-cjk) or set CHROMIUM_PATH.`,
)

ensureDebianPackages(
  () => onPath('git'),
  ['git'],
  'git is missing: the sync tests run the system git. Install it (Debian: sudo apt-get install git).',
)

const out = join(root, 'test-artifacts')
mkdirSync(out, { recursive: true })
const report = join(out, 'vitest-report.json')
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const run = spawnSync(
  projectNode(root),
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args],
  { stdio: 'inherit', cwd: root },
)

let summary = 'Tests: 0 passed, 1 failed'
try {
  const r = JSON.parse(readFileSync(report, 'utf8'))
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
  // A spec file that fails before any of its tests runs (an import that throws) has no failed test to count: it
  // counts as one failure, so the line never reads "0 failed" over a red run.
  /** @type {Array<{ status: string, assertionResults: Array<{ status: string }> }>} */
  const files = r.testResults
  const unloaded = files.filter(
    (f) => f.status === 'failed' && !f.assertionResults.some((t) => t.status === 'failed'),
  ).length
  summary = `Tests: ${r.numPassedTests} passed, ${r.numFailedTests + unloaded} failed${skipped ? `, ${skipped} skipped` : ''}`
} catch {
  /* vitest died before writing a report: counted as a failure above */
}
console.log(summary)
process.exit(run.status ?? 1)
