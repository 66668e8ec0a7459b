/**
 * A list of today's offenders that may only shrink, for the gates that hold a rule the code does not meet yet
 * (scripts/sizes.mjs, scripts/exports.mjs). The list is a text file, one entry a line, `#` comments. A gate fails on
 * an offender the list does not name, and on a listed one that no longer offends, so the list stays true and its
 * pay-down shows in the diff. It runs the checking tool and reads and writes the list file only.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Runs the tool `name` of node_modules/.bin in `root` with `args` and parses the JSON report it prints.
 * @param {string} name
 * @param {string[]} args
 * @param {string} root
 * @returns {any} the tool's report, as its own JSON shape
 */
export function jsonReport(name, args, root) {
  const ran = spawnSync(join(here, 'node_modules', '.bin', name), args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  try {
    return JSON.parse(ran.stdout)
  } catch {
    throw new Error(`${name} gave no JSON report (exit ${ran.status}): ${ran.stderr || ran.stdout}`)
  }
}

/**
 * The entries of a list text: one per line, `#` comments and blank lines skipped, sorted.
 * @param {string} text
 */
export function parseBaseline(text) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .sort()
}

/**
 * What `found` has beyond `listed` (`added`), and what `listed` has beyond `found` (`gone`), counting repeats.
 * @param {readonly string[]} found
 * @param {readonly string[]} listed
 */
export function compare(found, listed) {
  /** @type {Map<string, number>} */
  const left = new Map()
  for (const entry of listed) left.set(entry, (left.get(entry) ?? 0) + 1)
  /** @type {string[]} */
  const added = []
  for (const entry of found) {
    const n = left.get(entry) ?? 0
    if (n > 0) left.set(entry, n - 1)
    else added.push(entry)
  }
  const gone = [...left].flatMap(([entry, n]) => Array(n).fill(entry))
  return { added, gone }
}

/**
 * The gate's problems, one sentence each (empty when `found` and the list at `file` agree); `name` is how the list
 * is called in them, `fix` what to do about a new offender.
 * @param {readonly string[]} found
 * @param {string} file
 * @param {string} name
 * @param {string} fix
 */
export function checkBaseline(found, file, name, fix) {
  const { added, gone } = compare(found, parseBaseline(readFileSync(file, 'utf8')))
  return [
    ...added.map((e) => `${e}: not on ${name} — ${fix} (the list may only shrink)`),
    ...gone.map((e) => `${e}: on ${name} but no longer offends — remove the line (run the gate with --shrink)`),
  ]
}

/**
 * Drops the entries of the list at `file` that `found` no longer has; returns how many went. Never adds one.
 * @param {readonly string[]} found
 * @param {string} file
 */
export function shrinkBaseline(found, file) {
  const text = readFileSync(file, 'utf8')
  const { gone } = compare(found, parseBaseline(text))
  /** @type {Map<string, number>} */
  const drop = new Map()
  for (const entry of gone) drop.set(entry, (drop.get(entry) ?? 0) + 1)
  const kept = text.split('\n').filter((line) => {
    const n = drop.get(line.trim()) ?? 0
    if (n === 0) return true
    drop.set(line.trim(), n - 1)
    return false
  })
  writeFileSync(file, kept.join('\n'))
  return gone.length
}

/**
 * Runs a gate from the command line: `--shrink` drops what no longer offends, else the problems are printed.
 * @param {() => readonly string[]} found
 * @param {string} file
 * @param {string} name
 * @param {string} fix
 */
export function runGate(found, file, name, fix) {
  if (process.argv.includes('--shrink')) {
    console.log(`${shrinkBaseline(found(), file)} entries dropped from ${name}`)
    return
  }
  const problems = checkBaseline(found(), file, name, fix)
  for (const p of problems) console.error(p)
  process.exitCode = problems.length > 0 ? 1 : 0
}
