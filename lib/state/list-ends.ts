/**
 * Where two versions of one list are the same objects: the run of identical entries at their start and at their end.
 * Lists in the state are immutable and a command that changes a few items keeps every other item object as it was,
 * so comparing by identity finds the part that changed with one pointer comparison per untouched item, and the work
 * by id (maps, sets, hashing) covers only the part between. Pure; it never copies or changes a list.
 */

/**
 * One changed part of two versions of a list: `before`'s entries from `b0` to `b1` (not included) became `after`'s
 * from `a0` to `a1`; everything outside the parts is the same objects, in the same order.
 */
export interface Part {
  b0: number
  b1: number
  a0: number
  a1: number
}

/** What a command that made `after` from `before` knows the two share at their ends (and between its parts). */
interface Ends {
  before: readonly unknown[]
  head: number
  tail: number
  /** The changed parts, in order, when there are more than one (a removal in the middle and an append, say). */
  parts?: readonly Part[]
}

/**
 * Lists a command made from another by appending, replacing or removing entries at one place (`after` → what it
 * shares with `before`): their common ends are known without comparing. A save, edit or delete in 10,000 items
 * otherwise compared 10,000 pairs, three times (the freeze, the history and the rows).
 */
const marked = new WeakMap<readonly unknown[], Ends>()

/**
 * Mark `after` as made from `ends.before`, and forget how `before` was made: a mark names the list before it, so a
 * chain of marks would keep every earlier version of a list alive as long as the newest one (a save per turn, for as
 * long as dsh runs). Only one step is ever read ({@link sameEnds} compares a list with the one it was made from), and
 * `before`'s own mark was read by the write that made it, or is the unwritten middle of a batch that a comparison
 * covers.
 */
function markFrom(after: readonly unknown[], ends: Ends): void {
  marked.delete(ends.before)
  marked.set(after, ends)
}

/** Record that `after` is `before` with entries appended and nothing else changed (the caller made it so). */
export function markAppended<T>(before: readonly T[], after: readonly T[]): void {
  if (after.length >= before.length) markFrom(after, { before, head: before.length, tail: 0 })
}

/**
 * Record that `after` is `before` with the entries from `at` on replaced by `put` new ones, `cut` taken out: the
 * `at` entries before them and all after them are the same objects in both (the caller made it so).
 */
export function markSpliced<T>(before: readonly T[], after: readonly T[], at: number, cut: number, put: number): void {
  const tail = before.length - at - cut
  if (at >= 0 && tail >= 0 && after.length === at + put + tail) markFrom(after, { before, head: at, tail })
}

/**
 * Record that `after` is `before` with each of `edits` (in order of `at`, none overlapping) applied: `cut` entries
 * from `at` on taken out and `put` new ones put there (the caller made it so).
 */
export function markEdits<T>(
  before: readonly T[],
  after: readonly T[],
  edits: readonly { at: number; cut: number; put: number }[],
): void {
  let shift = 0
  const parts = edits.map(({ at, cut, put }): Part => {
    const part = { b0: at, b1: at + cut, a0: at + shift, a1: at + shift + put }
    shift += put - cut
    return part
  })
  const first = parts[0]
  const last = parts.at(-1)
  if (first === undefined || last === undefined || after.length !== before.length + shift) return
  markFrom(after, { before, head: first.a0, tail: after.length - last.a1, parts })
}

/**
 * The parts in which `before` and `after` differ: the marked ones when `after` was marked as made from `before`,
 * otherwise the one part between the ends they share ({@link sameEnds}).
 */
export function changedParts<T>(before: readonly T[], after: readonly T[]): readonly Part[] {
  const mark = before === after ? undefined : marked.get(after)
  if (mark?.before === before && mark.parts !== undefined) return mark.parts
  const { head, tail } = sameEnds(before, after)
  return [{ b0: head, b1: before.length - tail, a0: head, a1: after.length - tail }]
}

/** How many entries `before` and `after` share, as the same objects, at their start (`head`) and their end (`tail`). */
export function sameEnds<T>(before: readonly T[], after: readonly T[]): { head: number; tail: number } {
  const mark = before === after ? undefined : marked.get(after)
  if (mark?.before === before) return { head: mark.head, tail: mark.tail }
  const shortest = Math.min(before.length, after.length)
  let head = 0
  while (head < shortest && before[head] === after[head]) head++
  let tail = 0
  while (tail < shortest - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++
  return { head, tail }
}
