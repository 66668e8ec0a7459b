/**
 * The provenance of memory items, which is policy: who an item's source is, when it was saved, which id and which
 * conversation it has, and what an editor that sends a list back may and may not change. lib/validate returns items
 * as they were given; the commands, the sync layout and the preview route give them their provenance here, and
 * lib/store hands it to the database's load, reload and migration (store/stored-values.ts), so that store/db, below
 * this room, applies it without importing it. Pure functions over parsed shapes: it checks no shape (validation did)
 * and touches no state.
 */
import type {
  Memory,
  MemoryItem,
  MemorySource,
  MemoryWrite,
  Profile,
  SessionSetting,
  State,
  UserLayer,
} from '../state/model.ts'
import type { ProfilePatch } from '../shared/command-inputs.ts'
import { sessionsOf } from '../state/sessions.ts'
import {
  bareRecord,
  invalid,
  type ParsedItem,
  type ParsedMemory,
  type ParsedPatch,
  type ParsedProfile,
  type ParsedSetting,
  type ParsedState,
  type ParsedUndo,
  type ParsedWrite,
} from '../validate/state.ts'
import { keysProblem, type KeysProblem } from '../shared/memory-keys.ts'

/** What a command's provenance needs of its context: the time and a source of fresh ids (the commands' OpContext). */
interface Clock {
  now: number
  newId: (prefix: string) => string
}

/** Where the provenance an item was given without comes from. */
export interface Provenance {
  source: MemorySource
  at: number
  newId: () => string
  /** The conversation new items come from, when there is one. */
  sessionId?: string
  /** Items already stored, by id: an editor that sends an item back without its provenance keeps the stored one. */
  existing?: ReadonlyMap<string, MemoryItem>
  /**
   * The items come in a file: whatever it says of their provenance (a source, a time), of the user's approval or pin,
   * and of the item a suggestion would replace is not taken (see {@link fromFile}).
   */
  file?: true
}

/** Items that arrive now from `source` (a user typing, the model's tool, an import…), with fresh ids. */
export function arriving(source: MemorySource, ctx: Clock, extra: Partial<Provenance> = {}): Provenance {
  return { source, at: ctx.now, newId: () => ctx.newId('m'), ...extra }
}

/**
 * Items that arrive in a file (an import of any format): their source is the import and their time the import's,
 * whatever the file says, and they are neither approved nor pinned: a file from the internet must not pass its
 * items off as the user's own words of long ago, nor approve or pin them in the user's place. A suggestion in the
 * file stays one (pending), but without the id of an item it would replace. Only the user approves and pins.
 */
export function fromFile(ctx: Clock): Provenance {
  return { ...arriving('import', ctx), file: true }
}

/** What a stored item lacks is never filled in (every stored item has its provenance); `newId` is never called. */
export function asStored(now: number): Provenance {
  return { source: 'user', at: now, newId: () => 'x' }
}

/** Items of a draft no one saved yet (the preview): typed now, with ids that need only be distinct. */
export function asDraft(now: number): Provenance {
  let n = 0
  return { source: 'user', at: now, newId: () => `draft-${n++}` }
}

/**
 * A parsed item with its provenance: what the caller left out comes from the item stored under its id (an editor
 * that sends an item back keeps it), else from `p`. Pending, what it replaces and approval are the store's to
 * record: an editor (one that passes `existing`) can neither set nor clear them.
 */
export function itemOf(o: ParsedItem, p: Provenance): MemoryItem {
  const itemId = o.id ?? p.newId()
  const prior = o.id === undefined ? undefined : p.existing?.get(itemId)
  const file = p.file === true
  const item: MemoryItem = {
    id: itemId,
    text: o.text,
    source: file ? p.source : (o.source ?? prior?.source ?? p.source),
    at: file ? p.at : (o.at ?? prior?.at ?? p.at),
  }
  // Unlike the provenance, a pin is the editor's to say: an item sent without it is unpinned.
  if (o.pinned === true && !file) item.pinned = true
  const pending = p.existing === undefined ? o.pending === true : prior?.pending === true
  if (pending) item.pending = true
  const replaces = file ? undefined : p.existing === undefined ? o.replaces : prior?.replaces
  if (pending && replaces !== undefined) item.replaces = replaces
  const approved = file ? false : p.existing === undefined ? o.approved === true : prior?.approved === true
  if (approved && !pending) item.approved = true
  // Like the provenance, whether an item is archived and its search keys stay as stored when an editor omits them.
  const archived = o.archived === undefined ? prior?.archived === true : o.archived
  if (archived && !pending) item.archived = true
  const keys = o.keys ?? prior?.keys
  if (keys !== undefined && keys.trim() !== '') item.keys = keys
  // Where an item was brought from is said by what brought it; a file from the internet does not say it for the user.
  const origin = file ? undefined : (o.origin ?? prior?.origin)
  if (origin !== undefined && origin.trim() !== '') item.origin = origin
  // The learning run that brought an item is the run's to say, kept as stored; a file does not say it.
  const importId = file ? undefined : (o.importId ?? prior?.importId)
  if (importId !== undefined) item.importId = importId
  const from = o.sessionId === undefined ? (prior === undefined ? p.sessionId : prior.sessionId) : o.sessionId
  if (from !== undefined && from !== null) item.sessionId = from
  return item
}

/**
 * Keys an editor sends are the user's typing: refused whole, naming the rule and its bound, when they break one
 * (lib/shared/memory-keys.ts), so nothing changes. Keys sent back as they are stored pass: a lorebook's keys were
 * bounded by their own rule when imported, and editing an item's text must not be refused for them.
 */
function checkTypedKeys(o: ParsedItem, field: string, existing: ReadonlyMap<string, MemoryItem>): void {
  if (o.keys === undefined || (o.id !== undefined && existing.get(o.id)?.keys === o.keys)) return
  const problem = keysProblem(o.keys)
  if (problem === undefined) return
  throw Object.assign(invalid(field, KEYS_REFUSED[problem.rule](problem.limit), problem.limit), { rule: problem.rule })
}

/** The log's words for each keys rule (the page words the rule itself). */
const KEYS_REFUSED: Record<KeysProblem['rule'], (limit?: number) => string> = {
  'keys.count': (limit) => `holds more search keys than the limit of ${limit}`,
  'keys.length': (limit) => `holds a search key over the limit of ${limit} characters`,
  'keys.total': (limit) => `holds search keys over the limit of ${limit} characters in all`,
  'keys.markup': () => 'holds markup in a search key',
  'keys.control': () => 'holds a control character in a search key',
  'keys.secret': () => 'holds a search key shaped like a password, key or token',
}

/** Items with their provenance (see {@link itemOf}), refusing a repeated id at `<field>[i].id`. */
export function itemsOf(list: readonly ParsedItem[], field: string, p: Provenance): MemoryItem[] {
  if (p.existing !== undefined) list.forEach((o, i) => checkTypedKeys(o, `${field}[${i}].keys`, p.existing!))
  const out = list.map((o) => itemOf(o, p))
  const seen = new Set<string>()
  out.forEach((entry, i) => {
    if (seen.has(entry.id)) throw invalid(`${field}[${i}].id`, `repeats the id "${entry.id}"`)
    seen.add(entry.id)
  })
  return out
}

/** A memory with its items' provenance. */
export function memoryOf(m: ParsedMemory, field: string, p: Provenance): Memory {
  return { summary: m.summary, items: itemsOf(m.items, `${field}.items`, p) }
}

/** A profile patch with its memory's provenance. */
export function patchOf(patch: ParsedPatch, field: string, p: Provenance): ProfilePatch {
  const { memory, ...out } = patch
  return memory === undefined ? out : { ...out, memory: memoryOf(memory, `${field}.memory`, p) }
}

/** A complete profile with its memory's provenance. */
export function profileOf(profile: ParsedProfile, field: string, p: Provenance): Profile {
  return { ...profile, memory: memoryOf(profile.memory, `${field}.memory`, p) }
}

/** A conversation's settings with its memories' provenance. */
export function settingOf(s: ParsedSetting, field: string, p: Provenance): SessionSetting {
  // Nearly every stored setting (a pin, a note) has no memories: it is its own result, so a load of 100,000 of them
  // copies none.
  if (s.memories.length === 0) return s as SessionSetting
  return { ...s, memories: itemsOf(s.memories, `${field}.memories`, p) }
}

/** The user layer with its items' provenance. */
export function userLayerOf(u: { items: ParsedItem[] }, field: string, p: Provenance): UserLayer {
  return { items: itemsOf(u.items, `${field}.items`, p) }
}

/** One recorded memory write with its items' provenance. */
export function writeOf(w: ParsedWrite, field: string, p: Provenance): MemoryWrite {
  return {
    ...w,
    added: itemsOf(w.added, `${field}.added`, p),
    removed: itemsOf(w.removed, `${field}.removed`, p),
    edited: w.edited.map((e) => ({ before: itemOf(e.before, p), after: itemOf(e.after, p) })),
  }
}

/** A profile's undo copy with its memory's provenance. */
export function undoOf(u: ParsedUndo, field: string, p: Provenance): { memory: Memory; at: number } {
  return { memory: memoryOf(u.memory, `${field}.memory`, p), at: u.at }
}

/** A whole state with every item's provenance. */
export function stateOf(s: ParsedState, field: string, p: Provenance): State {
  const out: State = {
    version: 1,
    activeId: s.activeId,
    profiles: s.profiles.map((x, i) => profileOf(x, `${field}.profiles[${i}]`, p)),
    sessions: sessionsOf(s.sessions.map(([key, v]) => [key, settingOf(v, `${field}.sessions.${key}`, p)])),
  }
  if (s.memoryUndo !== undefined)
    out.memoryUndo = bareRecord(
      Object.entries(s.memoryUndo).map(([key, u]) => [key, undoOf(u, `${field}.memoryUndo.${key}`, p)]),
    )
  if (s.history !== undefined)
    out.history = bareRecord(
      Object.entries(s.history).map(([key, list]) => [
        key,
        list.map((w, i) => writeOf(w, `${field}.history.${key}[${i}]`, p)),
      ]),
    )
  if (s.user !== undefined) out.user = userLayerOf(s.user, `${field}.user`, p)
  return out
}
