/**
 * Where two versions of one list are the same objects: the run of identical entries at their start and at their end.
 * Lists in the state are immutable and a command that changes a few items keeps every other item object as it was,
 * so comparing by identity finds the part that changed with one pointer comparison per untouched item, and the work
 * by id (maps, sets, hashing) covers only the part between. Pure; it never copies or changes a list.
 */

/** What a command that made `after` from `before` knows the two share at their ends. */
interface Ends {
  before: readonly unknown[]
  head: number
  tail: number
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
