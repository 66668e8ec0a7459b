/**
 * A card's lorebook (`character_book`) ⇄ a profile's memory. Owns how entries become memory items (enabled entries in
 * insertion order, long ones split to the item limit, at most the item count): an always-on (`constant`) entry goes
 * to the core, every other one to the archive with its keys as the item's search keys, so recall brings it when its
 * keys come up, as a card's own app injects it only then. Memory goes back out the same way: core items as always-on
 * entries, archived ones as entries triggered by their keys. Pure; the card mapping (card-fields.ts) decides when a
 * lorebook is used.
 */
import { LIMITS, MEMORY_SOURCES, type Memory, type MemorySource } from '../state/model.ts'
import { asText, fit } from '../shared/card-text.ts'
import { note, type ImportNote } from '../shared/import-notes.ts'
import { isRecord } from '../validate/core.ts'

/** A memory item as an import gives it: the store fills what is missing. */
export interface MemoryItemImport {
  id?: string
  text: string
  source: MemorySource
  at?: number
  sessionId?: string
  archived?: true
  keys?: string
}

/** A memory as an import gives it. */
export interface MemoryImport {
  summary: string
  items: MemoryItemImport[]
}

/** `text` in pieces of at most `limit`, broken after a line or sentence end when one is in the second half. */
function pieces(text: string, limit: number): string[] {
  const out: string[] = []
  let rest = text
  while (rest.length > limit) {
    const window = rest.slice(0, limit)
    const breakAt = Math.max(
      window.lastIndexOf('\n'),
      ...['。', '！', '？', '. ', '! ', '? '].map((m) => window.lastIndexOf(m) + m.length - 1),
    )
    let cut = breakAt >= limit / 2 ? breakAt + 1 : limit
    if (/[\uD800-\uDBFF]/.test(rest[cut - 1]!)) cut--
    out.push(rest.slice(0, cut).trim())
    rest = rest.slice(cut)
  }
  out.push(rest.trim())
  return out.filter((p) => p !== '')
}

/** Lorebook entries read at most: ten times the memory items they can give (real books hold a few hundred). */
const BOOK_ENTRIES = 10 * LIMITS.memoryItems

/**
 * An entry's keys (`keys`, or `key` in lorebook exports) as an item's search keys: separated by spaces, macros
 * replaced, whole keys while they fit LIMITS.memoryKeys, the rest named in a warning.
 */
function entryKeys(e: Record<string, unknown>, at: string, w: ImportNote[], sub: (text: string) => string): string {
  const raw = Array.isArray(e.keys) ? e.keys : Array.isArray(e.key) ? e.key : []
  const all = raw.flatMap((k) => (typeof k === 'string' && k.trim() !== '' ? [sub(k).trim()] : []))
  let keys = ''
  let kept = 0
  for (const k of all) {
    const next = keys === '' ? k : `${keys} ${k}`
    if (next.length > LIMITS.memoryKeys) break
    keys = next
    kept++
  }
  if (kept < all.length) w.push(note('bookKeys', { at, count: all.length, kept, limit: LIMITS.memoryKeys }))
  return keys
}

/** Keep the first LIMITS.memoryItems items, saying how many were left out. */
function capItems(items: MemoryItemImport[], w: ImportNote[]): MemoryItemImport[] {
  if (items.length <= LIMITS.memoryItems) return items
  w.push(note('memoryItems', { count: items.length, limit: LIMITS.memoryItems }))
  return items.slice(0, LIMITS.memoryItems)
}

/**
 * Lorebook entries as memory items (source `import`). Disabled and empty entries are left out; an entry our export
 * marked as the memory summary becomes the summary. Entries may be a list or, as in lorebook exports, an object.
 * `sub` replaces the card's macros ({{char}}, {{user}}) the way every other card field gets them replaced.
 */
export function bookToMemory(
  book: unknown,
  extKey: string,
  w: ImportNote[],
  sub: (text: string) => string = (t) => t,
): MemoryImport {
  const memory: MemoryImport = { summary: '', items: [] }
  if (book === undefined || book === null) return memory
  const field = 'data.character_book'
  if (!isRecord(book)) {
    w.push(note('bookNotObject'))
    return memory
  }
  const raw = Array.isArray(book.entries)
    ? book.entries
    : isRecord(book.entries)
      ? Object.values(book.entries)
      : undefined
  if (raw === undefined) {
    if (book.entries !== undefined) w.push(note('bookEntriesNotList'))
    return memory
  }
  if (raw.length > BOOK_ENTRIES) w.push(note('bookEntriesCut', { count: raw.length, limit: BOOK_ENTRIES }))
  let disabled = 0
  const entries: { content: string; order: number; summary: boolean; at: string; constant: boolean; keys: string }[] =
    []
  raw.slice(0, BOOK_ENTRIES).forEach((e, i) => {
    const at = `${field}.entries[${i}]`
    if (!isRecord(e)) {
      w.push(note('bookEntryNotObject', { at }))
      return
    }
    if (e.enabled === false || e.enabled === 'false' || e.disable === true) {
      disabled++
      return
    }
    const content = sub(asText(e.content, `${at}.content`, w)).trim()
    if (content === '') return
    const order = Number(e.insertion_order ?? e.order)
    const summary = isRecord(e.extensions) && e.extensions[extKey] === 'summary'
    const constant = e.constant === true || e.constant === 'true'
    const keys = summary || constant ? '' : entryKeys(e, at, w, sub)
    entries.push({ content, order: Number.isFinite(order) ? order : i, summary, at, constant, keys })
  })
  if (disabled > 0) w.push(note('bookDisabled', { count: disabled }))
  entries.sort((a, b) => a.order - b.order)
  const items: MemoryItemImport[] = []
  for (const e of entries) {
    if (e.summary) {
      memory.summary = fit(e.content, LIMITS.summary, `${e.at}.content (memory summary)`, w)
      continue
    }
    const parts = pieces(e.content, LIMITS.memoryItem)
    if (parts.length > 1)
      w.push(note('bookSplit', { at: e.at, length: e.content.length, count: parts.length, limit: LIMITS.memoryItem }))
    for (const text of parts) {
      const item: MemoryItemImport = { text, source: 'import' }
      if (!e.constant) item.archived = true
      if (e.keys !== '') item.keys = e.keys
      items.push(item)
    }
  }
  memory.items = capItems(items, w)
  const archived = memory.items.filter((it) => it.archived === true).length
  if (archived > 0) {
    const core = memory.items.length - archived
    w.push(core === 0 ? note('bookArchivedAll', { count: archived }) : note('bookArchived', { count: archived, core }))
  }
  return memory
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
const SESSION = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/

/** Our own memory as our export wrote it, with its provenance; anything malformed is dropped, never guessed. */
export function ownMemory(value: unknown, field: string, w: ImportNote[]): MemoryImport {
  const m = isRecord(value) ? value : {}
  const memory: MemoryImport = {
    summary: fit(asText(m.summary, `${field}.summary`, w), LIMITS.summary, `${field}.summary`, w),
    items: [],
  }
  const seen = new Set<string>()
  const list = Array.isArray(m.items) ? m.items : []
  list.forEach((raw, i) => {
    if (!isRecord(raw)) return
    const text = fit(
      asText(raw.text, `${field}.items[${i}].text`, w),
      LIMITS.memoryItem,
      `${field}.items[${i}].text`,
      w,
    )
    if (text.trim() === '') return
    const item: MemoryItemImport = {
      text,
      source: (MEMORY_SOURCES as readonly unknown[]).includes(raw.source) ? (raw.source as MemorySource) : 'import',
    }
    if (typeof raw.id === 'string' && ID.test(raw.id) && !seen.has(raw.id)) {
      item.id = raw.id
      seen.add(raw.id)
    }
    if (typeof raw.at === 'number' && Number.isSafeInteger(raw.at) && raw.at >= 0) item.at = raw.at
    if (typeof raw.sessionId === 'string' && SESSION.test(raw.sessionId)) item.sessionId = raw.sessionId
    if (raw.archived === true) item.archived = true
    if (typeof raw.keys === 'string' && raw.keys.trim() !== '' && raw.keys.length <= LIMITS.memoryKeys)
      item.keys = raw.keys
    memory.items.push(item)
  })
  memory.items = capItems(memory.items, w)
  return memory
}

/**
 * Memory as a lorebook (the summary first, marked as ours): core items as always-on entries, archived ones as entries
 * their keys trigger (the item's search keys, split at spaces); undefined when memory is empty.
 */
export function memoryToBook(m: Memory | MemoryImport, extKey: string): Record<string, unknown> | undefined {
  if (m.summary === '' && m.items.length === 0) return undefined
  const entries: Record<string, unknown>[] = []
  if (m.summary !== '') {
    entries.push({
      keys: [],
      content: m.summary,
      extensions: { [extKey]: 'summary' },
      enabled: true,
      insertion_order: 0,
      constant: true,
      comment: 'memory summary',
    })
  }
  m.items.forEach((it, i) => {
    const keys = it.keys?.split(/[ \t\r\n]+/).filter((k) => k !== '') ?? []
    entries.push({
      keys,
      content: it.text,
      extensions: {},
      enabled: true,
      insertion_order: i + 1,
      constant: it.archived !== true,
    })
  })
  return { extensions: {}, entries }
}
