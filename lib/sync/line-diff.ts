/**
 * git's line diff of two versions of a file (`git diff -U0`), read into hunks, and applied to the old version's lines
 * as the caller holds them (objects, not text): so that a pull parses only the lines that changed. Anything it does
 * not understand (a binary diff, a hunk outside the old file, counts that do not add up) gives undefined, and the
 * caller reads the files whole instead. Linear in the diff's size, no backtracking pattern. Pure.
 */

/** One hunk: from old line `oldFrom` (0-based), its lines in order: kept (` `), removed (`-`) or added (`+`). */
export interface Hunk {
  oldFrom: number
  lines: { op: ' ' | '-' | '+'; text: string }[]
}

/** A hunk's header: `@@ -a[,b] +c[,d] @@`. Anchored and without nested repetition: linear. */
const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/

/** The hunks of a unified diff of one file, or undefined when it is not one this module reads. */
export function parseDiff(text: string): Hunk[] | undefined {
  const rows = text.split('\n')
  const hunks: Hunk[] = []
  let i = 0
  // The file header (`diff --git`, `index`, `---`, `+++`) comes before the first hunk.
  while (i < rows.length && !rows[i]!.startsWith('@@')) {
    if (rows[i]!.startsWith('Binary files')) return undefined
    i++
  }
  let lastOld = 0
  while (i < rows.length) {
    const row = rows[i]!
    if (row === '' && i === rows.length - 1) break
    const m = HEADER.exec(row)
    if (m === null) return undefined
    const oldStart = Number(m[1])
    let oldLeft = m[2] === undefined ? 1 : Number(m[2])
    let newLeft = m[4] === undefined ? 1 : Number(m[4])
    // A hunk that removes nothing names the line after which it adds.
    const oldFrom = oldLeft === 0 ? oldStart : oldStart - 1
    if (oldFrom < lastOld) return undefined
    const hunk: Hunk = { oldFrom, lines: [] }
    i++
    while (oldLeft > 0 || newLeft > 0) {
      if (i >= rows.length) return undefined
      const body = rows[i]!
      i++
      if (body.startsWith('\\')) continue
      const op = body[0]
      if (op === ' ' && oldLeft > 0 && newLeft > 0) {
        oldLeft--
        newLeft--
      } else if (op === '-' && oldLeft > 0) oldLeft--
      else if (op === '+' && newLeft > 0) newLeft--
      else return undefined
      hunk.lines.push({ op, text: body.slice(1) })
    }
    while (i < rows.length && rows[i]!.startsWith('\\')) i++
    lastOld = oldFrom + hunk.lines.filter((l) => l.op !== '+').length
    hunks.push(hunk)
  }
  return hunks
}

/** What applying hunks gave: the new lines (old ones as the caller's objects), and the old ones removed. */
export interface Patched<T, N> {
  lines: (T | N)[]
  removed: T[]
}

/**
 * Apply hunks to the old version's lines. `same` tells whether an old line is the text the diff names (a kept or
 * removed line that is not is a diff of some other version: undefined); `read` turns an added line into the caller's
 * object (it may throw: a refused line). Undefined when a hunk lies outside the old lines.
 */
export function applyHunks<T, N>(
  old: readonly T[],
  hunks: readonly Hunk[],
  same: (line: T, text: string) => boolean,
  read: (text: string, newLine: number) => N,
): Patched<T, N> | undefined {
  const lines: (T | N)[] = []
  const removed: T[] = []
  let at = 0
  for (const h of hunks) {
    if (h.oldFrom < at || h.oldFrom > old.length) return undefined
    for (; at < h.oldFrom; at++) lines.push(old[at]!)
    for (const l of h.lines) {
      if (l.op === '+') {
        lines.push(read(l.text, lines.length + 1))
        continue
      }
      const was = old[at]
      if (was === undefined || !same(was, l.text)) return undefined
      at++
      if (l.op === ' ') lines.push(was)
      else removed.push(was)
    }
  }
  for (; at < old.length; at++) lines.push(old[at]!)
  return { lines, removed }
}
