#!/usr/bin/env node
/**
 * The sizes gate: oxlint's `max-lines` (400 code lines a file) and `max-lines-per-function` (80 code lines), as set in
 * .oxlintrc.json, held against scripts/sizes-baseline.txt, the list of the offenders there were when the gate came in.
 * The list may only shrink: the gate fails on an offender the list does not name (a new long file or function) and on
 * a listed one that no longer offends (so the list stays true and the pay-down shows in its diff). `--shrink` drops
 * the entries that no longer offend; it never adds one. It reads the sources and the list, and writes nothing else.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = join(dirname(fileURLToPath(import.meta.url)), '..')
const RULES = new Set(['eslint(max-lines)', 'eslint(max-lines-per-function)'])

/** Where the list of today's offenders lives, relative to the repository root. */
export const BASELINE = 'scripts/sizes-baseline.txt'

/**
 * The offenders oxlint reports under `root` for `sources`, one line each, sorted: `file <path>` for a file over
 * max-lines, `function <path> <name>` for a function over max-lines-per-function (`<anonymous>` when it has no name;
 * a name that occurs twice in a file is listed twice). Line numbers are left out so an edit above an entry does not
 * move it.
 */
export function findOffenders({ root = here, sources = ['lib', 'test', 'bench', 'scripts'] } = {}) {
  const ran = spawnSync(
    join(here, 'node_modules', '.bin', 'oxlint'),
    ['-c', join(root, '.oxlintrc.json'), '--format', 'json', ...sources],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  )
  let report
  try {
    report = JSON.parse(ran.stdout)
  } catch {
    throw new Error(`oxlint gave no JSON report (exit ${ran.status}): ${ran.stderr || ran.stdout}`)
  }
  const lines = []
  for (const d of report.diagnostics) {
    if (!RULES.has(d.code)) continue
    if (d.code === 'eslint(max-lines)') lines.push(`file ${d.filename}`)
    else lines.push(`function ${d.filename} ${/`([^`]+)`/.exec(d.message)?.[1] ?? boundName(root, d)}`)
  }
  return lines.sort()
}

/**
 * oxlint names declared functions only; an arrow or function expression gets the name it is bound to on its first
 * line (`const openFeed = (…) =>`, `status: () =>`), or `<anonymous>` when it is bound to none.
 */
function boundName(root, diagnostic) {
  const { line, column } = diagnostic.labels[0].span
  const text = readFileSync(join(root, diagnostic.filename), 'utf8').split('\n')[line - 1] ?? ''
  return /([\w$]+)\s*[:=]\s*(?:async\s*)?$/.exec(text.slice(0, column - 1))?.[1] ?? '<anonymous>'
}

/** The entries of a baseline text: one per line, `#` comments and blank lines skipped, sorted. */
export function parseBaseline(text) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .sort()
}

/** What `found` has beyond `listed` (`added`), and what `listed` has beyond `found` (`gone`), counting repeats. */
export function compare(found, listed) {
  const left = new Map()
  for (const entry of listed) left.set(entry, (left.get(entry) ?? 0) + 1)
  const added = []
  for (const entry of found) {
    const n = left.get(entry) ?? 0
    if (n > 0) left.set(entry, n - 1)
    else added.push(entry)
  }
  const gone = [...left].flatMap(([entry, n]) => Array(n).fill(entry))
  return { added, gone }
}

/** The gate: the problems, one sentence each (empty when the sources and the list agree). */
export function checkSizes({ root = here, sources, baseline = join(root, BASELINE) } = {}) {
  const { added, gone } = compare(findOffenders({ root, sources }), parseBaseline(readFileSync(baseline, 'utf8')))
  return [
    ...added.map((e) => `${e}: over the limit and not on ${BASELINE} — split it (the list may only shrink)`),
    ...gone.map(
      (e) => `${e}: on ${BASELINE} but within the limit now — remove the line (node scripts/sizes.mjs --shrink)`,
    ),
  ]
}

/** Drops the baseline entries that no longer offend; returns how many went. Never adds an entry. */
export function shrinkBaseline({ root = here, sources, baseline = join(root, BASELINE) } = {}) {
  const text = readFileSync(baseline, 'utf8')
  const { gone } = compare(findOffenders({ root, sources }), parseBaseline(text))
  const drop = new Map()
  for (const entry of gone) drop.set(entry, (drop.get(entry) ?? 0) + 1)
  const kept = text.split('\n').filter((line) => {
    const n = drop.get(line.trim()) ?? 0
    if (n === 0) return true
    drop.set(line.trim(), n - 1)
    return false
  })
  writeFileSync(baseline, kept.join('\n'))
  return gone.length
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--shrink')) {
    console.log(`${shrinkBaseline()} entries dropped from ${BASELINE}`)
  } else {
    const problems = checkSizes()
    for (const p of problems) console.error(p)
    process.exit(problems.length > 0 ? 1 : 0)
  }
}
