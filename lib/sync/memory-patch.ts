/**
 * A pull of a memory file by its line diff: the store's list (whose lines are exactly our side's file: the sync just
 * committed them) patched with the lines git says changed, only those lines parsed and checked, and the `sync.apply`
 * delta made from them — the items put and removed, the order only when it moved, the history entries added. Its
 * cost follows the changed lines, not the list: no unchanged line is parsed, serialized or compared as text, and the
 * items before the first changed line are not looked at (a fact pulled into 10,000 walks the last lines and the
 * history). It gives the same list and delta as reading both versions whole (pull.ts): test/sync/memory-patch.spec.ts
 * compares the two over random edits. Undefined when the diff does not fit the store's list, or when an added line
 * may break a rule with the items before it (an id they hold, more items than the limit): the caller then reads
 * whole, which refuses such a file naming its first bad line. Pure.
 */
import type { MemoryItem, MemoryWrite } from '../state/model.ts'
import type { CommandInput } from '../shared/schema-commands.ts'
import { applyHunks, type Hunk } from './line-diff.ts'
import { checkMemoryLines, itemLine, memoryLine, writeLine, type MemoryLine } from './layout.ts'
import { historyChange } from './pull.ts'
import { itemById } from '../commands/item-list.ts'

type ListDelta = NonNullable<CommandInput<'sync.apply'>['user']>

/** One list after the patch: its items and history, and the delta that takes the store there (undefined: none). */
export interface PatchedList {
  items: MemoryItem[]
  history: MemoryWrite[]
  delta: ListDelta | undefined
}

/** An old line as the patch holds it: the store's own object. */
type Old = { old: true; line: MemoryLine }

/**
 * The list `before` (the store's items and history) patched by `hunks`; refused (a {@link StoreError} from the
 * line's check) naming `path` and the new line when an added line breaks a rule.
 */
export function patchList(
  before: { items: readonly MemoryItem[]; history: readonly MemoryWrite[] },
  hunks: readonly Hunk[],
  path: string,
  limits: { items: number; entries: number },
): PatchedList | undefined {
  // The items before the first hunk stay as they are, where they are: the patch is made on the lines after them.
  const skip = Math.min(hunks[0]?.oldFrom ?? before.items.length, before.items.length)
  const old: Old[] = []
  for (let i = skip; i < before.items.length; i++) old.push({ old: true, line: { item: before.items[i]! } })
  for (const write of before.history) old.push({ old: true, line: { write } })
  const patched = applyHunks<Old, MemoryLine>(
    old,
    hunks.map((h) => ({ ...h, oldFrom: h.oldFrom - skip })),
    (o, text) => text === ('item' in o.line ? itemLine(o.line.item) : writeLine(o.line.write)),
    (text, n) => memoryLine(text, `${path}:${skip + n}`),
  )
  if (patched === undefined) return undefined
  const fresh = patched.lines.filter((l): l is MemoryLine => !('old' in l))
  const lines = patched.lines.map((l) => ('old' in l ? l.line : l))
  // A new item with the id of one before the patched lines, or more items than the limit: the whole read refuses it.
  const later = new Set(old.flatMap((o) => ('item' in o.line ? [o.line.item.id] : [])))
  const held = (l: MemoryLine) =>
    'item' in l && !later.has(l.item.id) && itemById(before.items, l.item.id) !== undefined
  if (fresh.some(held) || skip + lines.filter((l) => 'item' in l).length > limits.items) return undefined
  const tail = checkMemoryLines(lines, path, limits, (i) => `${path}:${skip + i + 1}`)
  // A spread, not `slice`: V8 copies a frozen list (the store's) by a spread at once, by `slice` element by element.
  const items = skip === 0 ? tail.items : [...before.items]
  if (skip > 0) {
    items.length = skip
    for (const it of tail.items) items.push(it)
  }
  const { history } = tail
  // Items added by the diff whose line differs from the store's item of that id; removed ids no line brings back.
  const removedItems = new Map(
    patched.removed.flatMap((o) => ('item' in o.line ? [[o.line.item.id, o.line.item] as const] : [])),
  )
  const put: MemoryItem[] = []
  const added: MemoryItem[] = []
  const back = new Set<string>()
  for (const l of fresh) {
    if (!('item' in l)) continue
    const was = removedItems.get(l.item.id)
    if (was === undefined) added.push(l.item)
    else back.add(l.item.id)
    if (was === undefined || itemLine(was) !== itemLine(l.item)) put.push(l.item)
  }
  const remove = [...removedItems.keys()].filter((id) => !back.has(id))
  const d: ListDelta = {}
  if (put.length > 0) d.put = put
  if (remove.length > 0) d.remove = remove
  if (moved(before.items, skip, tail.items, new Set(remove), added)) d.order = items.map((it) => it.id)
  const h = historyChange(before.history, history)
  if (h !== undefined) d.history = h
  return { items, history, delta: Object.keys(d).length === 0 ? undefined : d }
}

/**
 * Whether `after` (the patched lines' items) is not the order `sync.apply` makes by itself: the items of `before`
 * from `from` on it keeps (in place, edited or not), then the new ones in their order. Compares ids, one pass; the
 * items before `from` keep their places.
 */
function moved(
  before: readonly MemoryItem[],
  from: number,
  after: readonly MemoryItem[],
  removed: ReadonlySet<string>,
  added: readonly MemoryItem[],
): boolean {
  let i = 0
  for (let k = from; k < before.length; k++) {
    const it = before[k]!
    if (removed.has(it.id)) continue
    if (after[i++]?.id !== it.id) return true
  }
  for (const it of added) if (after[i++]?.id !== it.id) return true
  return i !== after.length
}
