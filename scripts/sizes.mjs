#!/usr/bin/env node
/**
 * The sizes gate: oxlint's `max-lines` (400 code lines a file) and `max-lines-per-function` (80 code lines), as set in
 * .oxlintrc.json, held against scripts/sizes-baseline.txt, the list of the offenders there were when the gate came in,
 * which may only shrink (scripts/baseline.mjs): a new long file or function fails the gate, and so does a listed one
 * that no longer offends. `--shrink` drops those lines. It reads the sources and writes nothing but the list.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkBaseline, jsonReport, runGate, shrinkBaseline } from './baseline.mjs'

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
  const report = jsonReport('oxlint', ['-c', join(root, '.oxlintrc.json'), '--format', 'json', ...sources], root)
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

/** The gate: the problems, one sentence each (empty when the sources and the list agree). */
export function checkSizes({ root = here, sources, baseline = join(root, BASELINE) } = {}) {
  return checkBaseline(findOffenders({ root, sources }), baseline, BASELINE, 'split it')
}

/** Drops the list's entries that no longer offend; returns how many went. Never adds an entry. */
export function shrinkSizes({ root = here, sources, baseline = join(root, BASELINE) } = {}) {
  return shrinkBaseline(findOffenders({ root, sources }), baseline)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runGate(() => findOffenders(), join(here, BASELINE), BASELINE, 'split it')
}
