/**
 * Where two versions of one list are the same objects: the run of identical entries at their start and at their end.
 * Lists in the state are immutable and a command that changes a few items keeps every other item object as it was,
 * so comparing by identity finds the part that changed with one pointer comparison per untouched item, and the work
 * by id (maps, sets, hashing) covers only the part between. Pure; it never copies or changes a list.
 */

/**
 * Lists a command made by appending to another (`after` → `before`): their common start is all of `before`, known
 * without comparing. A save into 10,000 items otherwise compared 10,000 pairs, twice (the history and the rows).
 */
const appendedTo = new WeakMap<readonly unknown[], readonly unknown[]>()

/** Record that `after` is `before` with entries appended and nothing else changed (the caller made it so). */
export function markAppended<T>(before: readonly T[], after: readonly T[]): void {
  if (after.length >= before.length) appendedTo.set(after, before)
}

/** How many entries `before` and `after` share, as the same objects, at their start (`head`) and their end (`tail`). */
export function sameEnds<T>(before: readonly T[], after: readonly T[]): { head: number; tail: number } {
  if (before !== after && appendedTo.get(after) === before) return { head: before.length, tail: 0 }
  const shortest = Math.min(before.length, after.length)
  let head = 0
  while (head < shortest && before[head] === after[head]) head++
  let tail = 0
  while (tail < shortest - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++
  return { head, tail }
}
