/**
 * The files of the store's state as the sync writes them, with their git blob ids, kept per profile object: the
 * store's snapshots are immutable and share every profile that did not change, so after a saved fact only that
 * profile's files are written and hashed again. The cost of a sync's look at the store follows the change, not the
 * size of the memory (each item's line is kept too: only new items are written as JSON again, and a list that only
 * grew keeps the last file's lines; the file is still hashed whole, which git's blob id needs). A memory file is kept
 * as its lines, never joined into one string (file-text.ts says why). A team profile is
 * not written as a folder: only the user's memory of it travels (lib/sync/library-memory.ts), and with it the memory
 * kept aside for team profiles this machine does not show. It never writes anything.
 */
import { USER_HISTORY, type MemoryItem, type MemoryWrite, type Profile, type State } from '../state/model.ts'
import { folderOf, itemLine, profileFiles, USER_FILE, writeLine } from './layout.ts'
import { blobId, type FileLines, type FileText } from './file-text.ts'
import { teamMemoryFile, teamMemoryPath, type KeptMemory } from './library-memory.ts'

/** A file's text and its git blob id. */
export interface HashedFile {
  text: FileText
  id: string
}

const EMPTY: readonly MemoryWrite[] = []
const NO_ITEMS: readonly MemoryItem[] = []

/** A line of a memory file and its size in UTF-8 bytes with its newline. */
interface Line {
  text: string
  bytes: number
}

/** `write` of an object, kept per object (the store's objects are immutable, so a kept line stays right). */
function cachedBy<T extends object>(write: (o: T) => string): (o: T) => Line {
  const lines = new WeakMap<T, Line>()
  return (o) => {
    let line = lines.get(o)
    if (line === undefined) {
      const text = write(o)
      line = { text, bytes: Buffer.byteLength(text, 'utf8') + 1 }
      lines.set(o, line)
    }
    return line
  }
}

/** The files of each state, computed once per profile object. */
export class StateFiles {
  #profiles = new WeakMap<Profile, { history: readonly MemoryWrite[]; files: [string, HashedFile][] }>()
  #user: { items: readonly MemoryItem[]; history: readonly MemoryWrite[]; file?: HashedFile } | undefined
  /** Each item's line, by the item object: a pulled or saved fact makes a new list, but only its new items are written again. */
  readonly #line = cachedBy(itemLine)
  /** Each history entry's line, by the entry object: a saved fact adds one entry, the others are not written again. */
  readonly #entry = cachedBy(writeLine)
  /**
   * The last memory file written of each profile (by id; About you under its file's path): its items, its lines (the
   * items' first) and the items' bytes. A list that only grew at its end (a saved fact) is written as those lines and
   * the new ones, not every item's line looked up again.
   */
  readonly #memory = new Map<
    string,
    { list: readonly MemoryItem[]; items: readonly MemoryItem[]; lines: readonly string[]; itemBytes: number }
  >()

  /** The texts this process last committed, by path: what the next commit's message compares with. */
  readonly #committed = new Map<string, HashedFile>()

  /** The memory kept aside for team profiles this machine does not show (none: no team memory travels from here). */
  readonly kept: KeptMemory | undefined

  constructor(kept?: KeptMemory) {
    this.kept = kept
  }

  /** The text of `path` this process committed, when it is the blob `id` (undefined: not known here). */
  committedText(path: string, id: string | undefined): FileText | undefined {
    const f = this.#committed.get(path)
    return f !== undefined && f.id === id ? f.text : undefined
  }

  /** Remember what a commit wrote: `changes` (a text, or undefined: removed), their ids from `files`. */
  committed(changes: ReadonlyMap<string, FileText | undefined>, files: ReadonlyMap<string, HashedFile>): void {
    for (const [path, text] of changes) {
      const f = files.get(path)
      if (text === undefined || f === undefined) this.#committed.delete(path)
      else this.#committed.set(path, f)
    }
  }

  /** Every file of what travels in `state`, by path. */
  of(state: State): Map<string, HashedFile> {
    const out = new Map<string, HashedFile>()
    const team = new Set<string>()
    const ids = new Set<string>([USER_FILE])
    for (const p of state.profiles) {
      ids.add(p.id)
      if (p.library !== undefined) team.add(p.id)
      for (const [path, f] of this.#profileFiles(p, state)) out.set(path, f)
    }
    if (this.kept !== undefined) for (const [path, f] of this.kept.files(team)) out.set(path, f)
    const user = this.#userFile(state)
    if (user !== undefined) out.set(USER_FILE, user)
    // A profile gone from the state is not written again: its last memory file is not kept for it.
    for (const key of this.#memory.keys()) if (!ids.has(key)) this.#memory.delete(key)
    return out
  }

  /**
   * {@link of}, with `step` awaited before each profile (and About you) whose files are written and hashed again: one
   * saved fact rewrites its memory file whole (the blob id needs every byte; a few ms at a few thousand items), and a
   * turn whose request arrives meanwhile is taken up at the next step, not after every changed profile.
   */
  async ofStepwise(state: State, step: () => Promise<void>): Promise<Map<string, HashedFile>> {
    for (const p of state.profiles) {
      if (this.#profiles.get(p)?.history === historyOf(state, p.id)) continue
      await step()
      this.#profileFiles(p, state)
    }
    if (!this.#userFresh(state)) await step()
    return this.of(state)
  }

  /** A profile's files in `state`, written and hashed only when the profile or its history is new. */
  #profileFiles(p: Profile, state: State): [string, HashedFile][] {
    const history = historyOf(state, p.id)
    let cached = this.#profiles.get(p)
    if (cached === undefined || cached.history !== history) {
      cached = { history, files: filesOf(p, history, (items, h) => this.#memoryText(p.id, items, h)) }
      this.#profiles.set(p, cached)
    }
    return cached.files
  }

  /** Whether About you's file kept is that of `state`. */
  #userFresh(state: State): boolean {
    const u = this.#user
    return (
      u !== undefined && u.items === (state.user?.items ?? NO_ITEMS) && u.history === historyOf(state, USER_HISTORY)
    )
  }

  /** About you's file in `state` (undefined: nothing to write), written and hashed only when it is new. */
  #userFile(state: State): HashedFile | undefined {
    if (this.#userFresh(state)) return this.#user?.file
    const items = state.user?.items ?? NO_ITEMS
    const history = historyOf(state, USER_HISTORY)
    const text = this.#memoryText(USER_FILE, items, history)
    this.#user = text.lines.length === 0 ? { items, history } : { items, history, file: { text, id: blobId(text) } }
    return this.#user.file
  }

  /** A memory file (the lines {@link memoryLines} writes), kept under `key` to be appended to next time. */
  #memoryText(key: string, items: readonly MemoryItem[], history: readonly MemoryWrite[]): FileLines {
    const was = this.#memory.get(key)
    // The last items are compared as a plain array (a list read from disk answers each index through its Proxy).
    const n = was?.items.length ?? 0
    const grew =
      was !== undefined &&
      (was.list === items || (n <= items.length && items.every((it, i) => i >= n || was.items[i] === it)))
    const lines = grew ? was.lines.slice(0, n) : []
    let itemBytes = grew ? was.itemBytes : 0
    for (let i = grew ? n : 0; i < items.length; i++) {
      const line = this.#line(items[i]!)
      lines.push(line.text)
      itemBytes += line.bytes
    }
    let bytes = itemBytes
    for (const w of history) {
      const line = this.#entry(w)
      lines.push(line.text)
      bytes += line.bytes
    }
    this.#memory.set(key, { list: items, items: items.slice(), lines, itemBytes })
    return { lines, bytes }
  }
}

/** The history of `id` in `state` (none: one shared empty list, so that it compares equal run to run). */
const historyOf = (state: State, id: string): readonly MemoryWrite[] => state.history?.[id] ?? EMPTY

/** A profile's files with their blob ids: its folder, or for a team profile only the user's memory of it. */
function filesOf(
  p: Profile,
  history: readonly MemoryWrite[],
  memory: (items: readonly MemoryItem[], history: readonly MemoryWrite[]) => FileText,
): [string, HashedFile][] {
  if (p.library !== undefined) {
    const text = teamMemoryFile(p, history)
    return text === undefined ? [] : [[teamMemoryPath(p.id), { text, id: blobId(text) }]]
  }
  const folder = folderOf(p.id)
  return Object.entries(profileFiles(p, history, memory)).map(([name, text]) => [
    `${folder}/${name}`,
    { text, id: blobId(text) },
  ])
}
