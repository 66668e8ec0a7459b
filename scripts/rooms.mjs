#!/usr/bin/env node
/**
 * The rooms drawing of docs/architecture.md, drawn from the STACKS in .dependency-cruiser.cjs (the one place the
 * allowed direction between rooms is written down), so the drawing cannot drift from the rules: `node
 * scripts/rooms.mjs` prints it, `--write` puts it between the markers in docs/architecture.md, and
 * test/docs/docs.spec.ts fails when the two differ. It never reads or changes anything else.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The markers in docs/architecture.md between which the drawing sits. */
export const BEGIN = '<!-- rooms:begin (node scripts/rooms.mjs --write) -->'
export const END = '<!-- rooms:end -->'

/**
 * The STACKS array literal of the rules file, evaluated: a list of stacks, each a list of layers top first, each layer
 * a list of room names. Read from the file's text because the file exports only what dependency-cruiser accepts.
 */
export function readStacks(file = join(root, '.dependency-cruiser.cjs')) {
  const text = readFileSync(file, 'utf8')
  const start = text.indexOf('const STACKS = [')
  if (start < 0) throw new Error(`${file}: no "const STACKS = [" found`)
  const open = text.indexOf('[', start)
  let depth = 0
  let end = open
  for (; end < text.length; end++) {
    if (text[end] === '[') depth++
    else if (text[end] === ']' && --depth === 0) break
  }
  // The literal holds only strings, brackets and commas: evaluating it runs nothing else.
  return new Function(`return ${text.slice(open, end + 1)}`)()
}

/**
 * The drawing: the two stacks side by side, top layer first, each layer's rooms on one line, and the layers both
 * stacks share at the bottom drawn once across the width. Imports go only downwards.
 */
export function drawRooms(stacks = readStacks()) {
  const [host, browser] = stacks
  // The bottom layers both stacks end with (the same rooms in the same order) are drawn once.
  let common = 0
  while (
    common < Math.min(host.length, browser.length) &&
    host[host.length - 1 - common].join() === browser[browser.length - 1 - common].join()
  )
    common++
  const left = host.slice(0, host.length - common).map((layer) => layer.map((r) => `lib/${r}`).join(' · '))
  const right = browser.slice(0, browser.length - common).map((layer) => layer.map((r) => `lib/${r}`).join(' · '))
  const width = Math.max('host half (lib/index.ts on top)'.length, ...left.map((l) => l.length)) + 4
  const pad = (s) => s + ' '.repeat(Math.max(0, width - s.length))
  const lines = [pad('host half (lib/index.ts on top)') + 'browser half (lib/client/index.ts on top)', '']
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    lines.push((pad(left[i] ?? '') + (right[i] ?? '')).trimEnd())
    if (i < Math.max(left.length, right.length) - 1)
      lines.push((pad(left[i + 1] ? '  ↓' : '') + (right[i + 1] ? '  ↓' : '')).trimEnd())
  }
  const total = width + Math.max(...right.map((l) => l.length), 'browser half (lib/client/index.ts on top)'.length)
  host.slice(host.length - common).forEach((layer, i) => {
    const name = ` ${layer.map((r) => `lib/${r}`).join(' · ')} `
    const side = Math.max(2, Math.floor((total - name.length) / 2))
    // Both halves import the first shared layer; below it the arrow is the shared layers' own.
    lines.push(
      i === 0 ? `${pad('  ↓')}  ↓` : '  ↓',
      '─'.repeat(side) + name + '─'.repeat(Math.max(2, total - name.length - side)),
    )
  })
  return ['```text', ...lines, '```'].join('\n')
}

/** docs/architecture.md with the drawing between its markers replaced by `drawing`. */
export function withDrawing(doc, drawing = drawRooms()) {
  const a = doc.indexOf(BEGIN)
  const b = doc.indexOf(END)
  if (a < 0 || b < a) throw new Error(`docs/architecture.md: the markers ${BEGIN} … ${END} are missing`)
  return `${doc.slice(0, a + BEGIN.length)}\n${drawing}\n${doc.slice(b)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--write')) {
    const file = join(root, 'docs', 'architecture.md')
    writeFileSync(file, withDrawing(readFileSync(file, 'utf8')))
    console.log(`wrote the rooms drawing into ${file}`)
  } else {
    console.log(drawRooms())
  }
}
