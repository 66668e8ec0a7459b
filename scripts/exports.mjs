#!/usr/bin/env node
/**
 * The unused-export gate: knip (knip.json) lists every export, exported type and file that no other file of lib/,
 * test/, bench/ or scripts/ imports (a spec counts: an export a spec pins is part of what its module offers), held
 * against scripts/exports-baseline.txt, the list there was when the gate came in, which may only shrink
 * (scripts/baseline.mjs). `--shrink` drops the lines of what is used or gone now. It reads the sources and writes
 * nothing but the list.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkBaseline, jsonReport, runGate, shrinkBaseline } from './baseline.mjs'

const here = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Where the list of today's unused exports lives, relative to the repository root. */
export const BASELINE = 'scripts/exports-baseline.txt'
const FIX = 'import it from another file, or drop the export (or the code)'

/**
 * What knip finds under `root` (holding knip.json), one line each, sorted: `export <path> <name>`, `type <path>
 * <name>`, `file <path>`. Line numbers are left out so an edit above an entry does not move it.
 */
export function findUnused({ root = here } = {}) {
  const args = ['--include', 'exports,types,files', '--reporter', 'json', '--no-progress', '--no-config-hints']
  const report = jsonReport('knip', args, root)
  const lines = []
  for (const issue of report.issues) {
    for (const e of issue.exports ?? []) lines.push(`export ${issue.file} ${e.name}`)
    for (const t of issue.types ?? []) lines.push(`type ${issue.file} ${t.name}`)
    if ((issue.files ?? []).length > 0) lines.push(`file ${issue.file}`)
  }
  return lines.sort()
}

/** The gate: the problems, one sentence each (empty when the sources and the list agree). */
export function checkExports({ root = here, baseline = join(root, BASELINE) } = {}) {
  return checkBaseline(findUnused({ root }), baseline, BASELINE, FIX)
}

/** Drops the list's entries that are used or gone now; returns how many went. Never adds an entry. */
export function shrinkExports({ root = here, baseline = join(root, BASELINE) } = {}) {
  return shrinkBaseline(findUnused({ root }), baseline)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runGate(() => findUnused(), join(here, BASELINE), BASELINE, FIX)
}
