/**
 * The sync repository's files ⇄ the part of the state that travels between machines: one folder per profile
 * (`profiles/<folder>/`, the folder named from the profile's id, never its name), holding `profile.md` (the Markdown
 * export, for a person to read: the texts), `profile.json` (what Markdown does not hold exactly: id, name, emoji,
 * memory switch and mode, tool profile, model, creation time, card, avatar) and `memory.jsonl` (one memory item a line in the
 * store's order, then one history entry a line, oldest first); and `about-you.jsonl` (the user layer in the same
 * line form). Keys are written in one fixed order, so writing the same state twice gives the same bytes and one new
 * fact is one line more in one file (plus its history line). Conversation settings, undo copies and the active
 * profile stay on the machine and are never written, and so does a profile's `updatedAt`: every saved fact changes
 * it, and writing it would make each fact a change of two files (which side edited a field last is the commits' to
 * say, see merge.ts).
 *
 * Reading treats every file as untrusted: each is checked by the same schemas a load or import uses, within the
 * state's limits, and a file that breaks them is refused with its path. Pure: it never touches git or the disk.
 */
import { createHash } from 'node:crypto'
import {
  HISTORY_LIMITS,
  LIMITS,
  USER_HISTORY,
  type MemoryItem,
  type MemoryWrite,
  type Profile,
  type State,
} from '../state/model.ts'
import { markdownToProfile, profileToMarkdown } from '../interop/markdown.ts'
import { itemOf, profileOf, writeOf, asStored } from '../provenance/provenance.ts'
import { invalid, isRecord, memoryItem, memoryWrite, profile as parseProfile } from '../validate/state.ts'
import { errorText } from '../shared/errors.ts'
import { fileOfLines, type FileText } from './file-text.ts'

/** The user layer's file. */
export const USER_FILE = 'about-you.jsonl'
/** The folder every profile folder sits in. */
const PROFILES_DIR = 'profiles'
/** The files of one profile folder. */
export const PROFILE_FILES = { markdown: 'profile.md', json: 'profile.json', memory: 'memory.jsonl' } as const

/** What travels of one profile: the profile and its memory history. */
export interface SyncedProfile {
  profile: Profile
  history: readonly MemoryWrite[]
}

/** What travels of the user layer: its items and its history. */
export interface SyncedUser {
  items: readonly MemoryItem[]
  history: readonly MemoryWrite[]
}

/** Everything that travels, by profile id. */
export interface Synced {
  profiles: Map<string, SyncedProfile>
  user: SyncedUser
}

/** A repository's files by path (relative, `/`-separated). */
export type Files = Map<string, string>

/**
 * The folder of a profile. An id is 1–64 of `[A-Za-z0-9_-]` already; it is used as it is when it has no capital
 * letter, else lower-cased with a short hash of the id after it, so that two ids that differ only in case never share
 * a folder on a case-insensitive file system of someone who clones the repository.
 */
export function folderOf(id: string): string {
  const lower = id.toLowerCase()
  const name = lower === id ? id : `${lower}-${createHash('sha1').update(id).digest('hex').slice(0, 8)}`
  return `${PROFILES_DIR}/${name}`
}

/** One memory item as a JSON object with its keys in the one written order. */
function itemObject(it: MemoryItem): Record<string, unknown> {
  const o: Record<string, unknown> = { id: it.id, text: it.text, source: it.source, at: it.at }
  if (it.sessionId !== undefined) o.sessionId = it.sessionId
  if (it.pinned === true) o.pinned = true
  if (it.pending === true) o.pending = true
  if (it.replaces !== undefined) o.replaces = it.replaces
  if (it.approved === true) o.approved = true
  if (it.archived === true) o.archived = true
  if (it.keys !== undefined) o.keys = it.keys
  return o
}

/** One history entry as a JSON object with its keys in the one written order. */
function writeObject(w: MemoryWrite): Record<string, unknown> {
  const o: Record<string, unknown> = { id: w.id, at: w.at, who: w.who }
  if (w.sessionId !== undefined) o.sessionId = w.sessionId
  o.added = w.added.map(itemObject)
  o.removed = w.removed.map(itemObject)
  o.edited = w.edited.map((e) => ({ before: itemObject(e.before), after: itemObject(e.after) }))
  if (w.summary !== undefined) o.summary = { before: w.summary.before, after: w.summary.after }
  if (w.reverts !== undefined) o.reverts = w.reverts
  return o
}

/** One memory item as its line (without the line end): two items are the same item exactly when their lines are. */
export function itemLine(it: MemoryItem): string {
  return JSON.stringify(itemObject(it))
}

/** One history entry as its line (without the line end). */
export function writeLine(w: MemoryWrite): string {
  return JSON.stringify({ write: writeObject(w) })
}

/** A memory list and its history as lines: the items in their order, then `{"write": …}` per entry, oldest first. */
export function memoryLines(items: readonly MemoryItem[], history: readonly MemoryWrite[]): string {
  const lines = items.map((it) => itemLine(it))
  for (const w of history) lines.push(writeLine(w))
  return fileOfLines(lines)
}

/** The fields of `profile.json`, in their written order. */
function profileObject(p: Profile): Record<string, unknown> {
  const o: Record<string, unknown> = { id: p.id, name: p.name, emoji: p.emoji, memoryEnabled: p.memoryEnabled }
  if (p.memoryMode !== undefined) o.memoryMode = p.memoryMode
  if (p.tools !== undefined) o.tools = { profile: p.tools.profile, add: p.tools.add, remove: p.tools.remove }
  if (p.model !== undefined) {
    const m: Record<string, unknown> = { provider: p.model.provider, model: p.model.model }
    if (p.model.reasoningEffort !== undefined) m.reasoningEffort = p.model.reasoningEffort
    if (p.model.temperature !== undefined) m.temperature = p.model.temperature
    o.model = m
  }
  o.createdAt = p.createdAt
  if (p.suggestedModel !== undefined) o.suggestedModel = p.suggestedModel
  // The sync never writes a team profile's folder (lib/sync/state-files.ts); an older version did, and the mark lets
  // a sync recognise such a folder and leave it out.
  if (p.library !== undefined) o.library = p.library
  if (p.card !== undefined) o.card = p.card
  if (p.avatar !== '') o.avatar = p.avatar
  return o
}

/**
 * One profile's three files, by their name in its folder; `memory` writes the memory file (a caller that keeps the
 * last one it wrote passes a writer that reuses it, and may keep it as lines).
 */
export function profileFiles(p: Profile, history?: readonly MemoryWrite[]): Record<string, string>
export function profileFiles(
  p: Profile,
  history: readonly MemoryWrite[],
  memory: (items: readonly MemoryItem[], history: readonly MemoryWrite[]) => FileText,
): Record<string, FileText>
export function profileFiles(
  p: Profile,
  history: readonly MemoryWrite[] = [],
  memory: (items: readonly MemoryItem[], history: readonly MemoryWrite[]) => FileText = memoryLines,
): Record<string, FileText> {
  return {
    [PROFILE_FILES.markdown]: profileToMarkdown({ ...p, memory: { summary: p.memory.summary, items: [] } }),
    [PROFILE_FILES.json]: `${JSON.stringify(profileObject(p), null, 2)}\n`,
    [PROFILE_FILES.memory]: memory(p.memory.items, history),
  }
}

/** The files of everything that travels in `state`. */
export function stateFiles(state: Pick<State, 'profiles' | 'history' | 'user'>): Files {
  return syncedFiles(syncedOf(state))
}

/** The part of a state that travels. */
export function syncedOf(state: Pick<State, 'profiles' | 'history' | 'user'>): Synced {
  const profiles = new Map<string, SyncedProfile>()
  for (const p of state.profiles) profiles.set(p.id, { profile: p, history: state.history?.[p.id] ?? [] })
  return { profiles, user: { items: state.user?.items ?? [], history: state.history?.[USER_HISTORY] ?? [] } }
}

/** The files of what travels. */
export function syncedFiles(synced: Synced): Files {
  const files: Files = new Map()
  for (const { profile, history } of synced.profiles.values()) {
    const folder = folderOf(profile.id)
    for (const [name, text] of Object.entries(profileFiles(profile, history))) files.set(`${folder}/${name}`, text)
  }
  const user = memoryLines(synced.user.items, synced.user.history)
  if (user !== '') files.set(USER_FILE, user)
  return files
}

/** A memory file's items and history, each line checked; refused naming the file and line. */
export function readMemoryLines(
  text: string,
  path: string,
  limits: { items: number; entries: number },
): { items: MemoryItem[]; history: MemoryWrite[] } {
  const lines = text.split('\n', limits.items + limits.entries + 2)
  if (lines.at(-1) === '') lines.pop()
  if (lines.length > limits.items + limits.entries)
    throw invalid(
      path,
      `has more than ${limits.items + limits.entries} lines, the limit`,
      limits.items + limits.entries,
    )
  return checkMemoryLines(
    lines.map((line, i) => memoryLine(line, `${path}:${i + 1}`)),
    path,
    limits,
  )
}

/** One line of a memory file read: a memory item, or a history entry (`{"write": …}`); refused naming `field`. */
export type MemoryLine = { item: MemoryItem } | { write: MemoryWrite }

/** One line of a memory file, checked by the schemas a load uses; refused naming `field` (the file and line). */
export function memoryLine(line: string, field: string): MemoryLine {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (e) {
    throw invalid(field, `is not JSON (${errorText(e)})`)
  }
  const stored = asStored(0)
  if (isRecord(value) && Object.keys(value).length === 1 && value.write !== undefined)
    return { write: writeOf(memoryWrite(value.write, field), field, stored) }
  return { item: itemOf(memoryItem(value, field), stored) }
}

/**
 * A memory file's lines, read, as its items and history: items first, ids unique, within the limits; refused
 * naming the file and line. `fields` names each line for a refusal (the file and its line number).
 */
export function checkMemoryLines(
  lines: readonly MemoryLine[],
  path: string,
  limits: { items: number; entries: number },
  fields: (i: number) => string = (i) => `${path}:${i + 1}`,
): { items: MemoryItem[]; history: MemoryWrite[] } {
  const items: MemoryItem[] = []
  const history: MemoryWrite[] = []
  const seen = new Set<string>()
  lines.forEach((line, i) => {
    if ('write' in line) {
      history.push(line.write)
      return
    }
    if (history.length > 0) throw invalid(fields(i), 'is a memory item after the history entries')
    const it = line.item
    if (seen.has(it.id)) throw invalid(`${fields(i)}.id`, `repeats the id "${it.id}"`)
    seen.add(it.id)
    items.push(it)
  })
  if (items.length > limits.items)
    throw invalid(path, `has ${items.length} memory items, over the limit of ${limits.items}`, limits.items)
  if (history.length > limits.entries)
    throw invalid(path, `has ${history.length} history entries, over the limit of ${limits.entries}`, limits.entries)
  return { items, history }
}

/**
 * One profile read back from its folder's three files (each may be missing: then the profile is refused). Its
 * `updatedAt` is not in the files: it is `updatedAt` (the caller's clock), or its creation time.
 */
export function readProfile(
  folder: string,
  files: { md?: string; json?: string; memory?: string },
  updatedAt?: number,
): SyncedProfile {
  const need = (name: string, text: string | undefined) => {
    if (text === undefined) throw invalid(`${folder}/${name}`, 'is missing')
    return text
  }
  const jsonPath = `${folder}/${PROFILE_FILES.json}`
  let raw: unknown
  try {
    raw = JSON.parse(need(PROFILE_FILES.json, files.json))
  } catch (e) {
    if (e instanceof SyntaxError) throw invalid(jsonPath, `is not JSON (${e.message})`)
    throw e
  }
  if (!isRecord(raw)) throw invalid(jsonPath, 'must be a JSON object')
  const mdPath = `${folder}/${PROFILE_FILES.markdown}`
  let texts
  try {
    texts = markdownToProfile(need(PROFILE_FILES.markdown, files.md), 'x').profile
  } catch (e) {
    throw invalid(mdPath, errorText(e))
  }
  const memPath = `${folder}/${PROFILE_FILES.memory}`
  const memory = readMemoryLines(files.memory ?? '', memPath, {
    items: LIMITS.memoryItems,
    entries: HISTORY_LIMITS.entries,
  })
  const whole = {
    avatar: '',
    ...raw,
    updatedAt: updatedAt ?? raw.createdAt,
    role: texts.role,
    personality: texts.personality,
    speakingStyle: texts.speakingStyle,
    rules: texts.rules,
    memory: { summary: texts.memory.summary, items: [] },
  }
  const p = profileOf(parseProfile(whole, jsonPath), jsonPath, asStored(0))
  if (folderOf(p.id) !== folder) throw invalid(`${jsonPath}.id`, `does not belong in the folder ${folder}`)
  return { profile: { ...p, memory: { summary: p.memory.summary, items: memory.items } }, history: memory.history }
}

/** The profile folder a path is in, or undefined for a path outside every profile folder. */
export function folderOfPath(path: string): string | undefined {
  const m = /^profiles\/([^/]+)\/[^/]+$/.exec(path)
  return m === null ? undefined : `${PROFILES_DIR}/${m[1]}`
}

/** The user layer read back from its file (absent: empty). */
export function readUser(text: string | undefined): SyncedUser {
  if (text === undefined) return { items: [], history: [] }
  return readMemoryLines(text, USER_FILE, { items: LIMITS.userItems, entries: HISTORY_LIMITS.entries })
}

/** Everything that travels, read back from a repository's files; a file that breaks a rule is refused. */
export function readFiles(files: Files): Synced {
  const folders = new Map<string, { md?: string; json?: string; memory?: string }>()
  for (const [path, text] of files) {
    const folder = folderOfPath(path)
    if (folder === undefined) continue
    const slot = folders.get(folder) ?? {}
    const name = path.slice(folder.length + 1)
    if (name === PROFILE_FILES.markdown) slot.md = text
    else if (name === PROFILE_FILES.json) slot.json = text
    else if (name === PROFILE_FILES.memory) slot.memory = text
    else continue
    folders.set(folder, slot)
  }
  if (folders.size > LIMITS.profiles)
    throw invalid(PROFILES_DIR, `has ${folders.size} profile folders, over the limit of ${LIMITS.profiles}`)
  const profiles = new Map<string, SyncedProfile>()
  for (const [folder, slot] of folders) {
    const read = readProfile(folder, slot)
    profiles.set(read.profile.id, read)
  }
  return { profiles, user: readUser(files.get(USER_FILE)) }
}
