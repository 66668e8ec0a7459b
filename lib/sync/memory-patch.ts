/**
 * A pull of a memory file by its line diff: the store's list (whose lines are exactly our side's file: the sync just
 * committed them) patched with the lines git says changed, only those lines parsed and checked, and the `sync.apply`
 * delta made from them — the items put and removed, the order only when it moved, the history entries added. Its
 * cost follows the changed lines, not the list: no unchanged line is parsed, serialized or compared as text. It
 * gives the same list and delta as reading both versions whole (pull.ts): test/sync/memory-patch.spec.ts compares
 * the two over random edits. Undefined when the diff does not fit the store's list; the caller then reads whole. Pure.
 */
import type { MemoryItem, MemoryWrite } from '../state/model.ts'
import type { CommandInput } from '../shared/schema-commands.ts'
import { applyHunks, type Hunk } from './line-diff.ts'
import { checkMemoryLines, itemLine, memoryLine, writeLine, type MemoryLine } from './layout.ts'
import { historyChange } from './pull.ts'

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
  const old: Old[] = [
    ...before.items.map((item) => ({ old: true as const, line: { item } })),
    ...before.history.map((write) => ({ old: true as const, line: { write } })),
  ]
  const patched = applyHunks<Old, MemoryLine>(
    old,
    hunks,
    (o, text) => text === ('item' in o.line ? itemLine(o.line.item) : writeLine(o.line.write)),
    (text, n) => memoryLine(text, `${path}:${n}`),
  )
  if (patched === undefined) return undefined
  const lines = patched.lines.map((l) => ('old' in l ? l.line : l))
  const { items, history } = checkMemoryLines(lines, path, limits)
  const fresh = patched.lines.filter((l): l is MemoryLine => !('old' in l))
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
  if (moved(before.items, items, new Set(remove), added)) d.order = items.map((it) => it.id)
  const h = historyChange(before.history, history)
  if (h !== undefined) d.history = h
  return { items, history, delta: Object.keys(d).length === 0 ? undefined : d }
}

/**
 * Whether `after` is not the order `sync.apply` makes by itself: the items of `before` it keeps (in place, edited
 * or not), then the new ones in their order. Compares ids, one pass.
 */
function moved(
  before: readonly MemoryItem[],
  after: readonly MemoryItem[],
  removed: ReadonlySet<string>,
  added: readonly MemoryItem[],
): boolean {
  let i = 0
  for (const it of before) {
    if (removed.has(it.id)) continue
    if (after[i++]?.id !== it.id) return true
  }
  for (const it of added) if (after[i++]?.id !== it.id) return true
  return i !== after.length
}
