/**
 * The store's write-ahead log (`<stem>.wal`, beside the data file): one line per committed batch carrying only what
 * that batch changed. Owns the line format (checksum, revision, change), the state diff and its replay onto a stored
 * snapshot, and the durable append. It never writes the snapshot or avatar files and never decides what the state
 * is (persist.ts does both).
 *
 * Why: with 100 profiles the data file is ~240 KB, and rewriting it atomically on every one-field edit cost about
 * twice the I/O floor; appending one line of a few KB with fdatasync costs less than the floor of a replace.
 * A line is `<16 hex of SHA-256 of the payload> <payload JSON>\n`. A line that fails its checksum is torn when it is
 * the last one (it was never acknowledged: its fdatasync had not returned) and corruption anywhere else.
 */
import { createHash } from 'node:crypto'
import { constants, open, readFile, type FileHandle } from 'node:fs/promises'
import type { Profile, State } from '../shared/model.ts'
import { invalid, isRecord } from '../validate/state.ts'

/** What one committed batch changed, in stored form (avatars as `avatarFile`). Absent fields did not change. */
export interface Change {
  /** The revision this batch made durable. */
  r: number
  /** activeId. */
  a?: string
  /** Profile ids in order, when the list's membership or order changed. */
  o?: string[]
  /** Profiles that are new or changed, by id. */
  p?: Record<string, unknown>
  /** Conversation settings that are new or changed, by session id; null = removed. */
  s?: Record<string, unknown>
  /** Session ids in order, when replaying `s` would not give the new order by itself. */
  so?: string[]
  /** memoryUndo, null when it went away. */
  u?: unknown
  /** Memory history lists that changed, by key: entries dropped from the front (`d`) and appended (`a`); null = gone. */
  h?: Record<string, { d: number; a: unknown[] } | null>
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

/**
 * What a change did to the profile list: the profiles that are new or changed, each one's previous version (undefined
 * for a new profile) at the same index, and whether the id order is the same.
 */
export interface ProfileChanges {
  changed: Profile[]
  previous: (Profile | undefined)[]
  sameOrder: boolean
}

/**
 * The profiles of `next` that are not the very same objects in `prev`. States are immutable and an edit replaces
 * only what it touches, so the common case (edits in place, same list) is found by comparing positions, without
 * building an index of every profile per batch.
 */
export function profileChanges(prev: State, next: State): ProfileChanges {
  const a = prev.profiles
  const b = next.profiles
  if (a.length === b.length) {
    const changes: ProfileChanges = { changed: [], previous: [], sameOrder: true }
    let i = 0
    for (; i < b.length; i++) {
      if (a[i] === b[i]) continue
      if (a[i]!.id !== b[i]!.id) break
      changes.changed.push(b[i]!)
      changes.previous.push(a[i])
    }
    if (i === b.length) return changes
  }
  const before = new Map(a.map((p) => [p.id, p]))
  const changed = b.filter((p) => before.get(p.id) !== p)
  return { changed, previous: changed.map((p) => before.get(p.id)), sameOrder: sameList(a.map((p) => p.id), b.map((p) => p.id)) }
}

/** The batch from `prev` to `next` (both immutable states, so unchanged parts are the very same objects). */
export function diffStates(prev: State, next: State, revision: number, stored: (p: Profile) => unknown): Change {
  const change: Change = { r: revision }
  if (prev.activeId !== next.activeId) change.a = next.activeId
  const { changed, sameOrder } = profileChanges(prev, next)
  if (changed.length > 0) change.p = Object.fromEntries(changed.map((p) => [p.id, stored(p)]))
  if (!sameOrder) change.o = next.profiles.map((p) => p.id)
  if (prev.sessions !== next.sessions) {
    const s: Record<string, unknown> = {}
    for (const [key, setting] of Object.entries(next.sessions)) if (!Object.hasOwn(prev.sessions, key) || prev.sessions[key] !== setting) s[key] = setting
    for (const key of Object.keys(prev.sessions)) if (!Object.hasOwn(next.sessions, key)) s[key] = null
    if (Object.keys(s).length > 0) change.s = s
    const keys = Object.keys(next.sessions)
    if (!sameList(Object.keys(replaySessions(prev.sessions, s)), keys)) change.so = keys
  }
  if (prev.memoryUndo !== next.memoryUndo) change.u = next.memoryUndo ?? null
  if (prev.history !== next.history) change.h = historyChanges(prev.history ?? {}, next.history ?? {})
  return change
}

/**
 * Each changed history list as what its write did: lists only grow at the end and lose entries at the front, so a
 * line carries the new entries, not the whole list (up to 100 KB each).
 */
function historyChanges(prev: NonNullable<State['history']>, next: NonNullable<State['history']>): NonNullable<Change['h']> {
  const h: NonNullable<Change['h']> = {}
  for (const [key, list] of Object.entries(next)) {
    const old = Object.hasOwn(prev, key) ? prev[key]! : []
    if (old === list) continue
    // The first entry of `list` that `old` holds (same object), and from where the two must agree.
    const start = list.length === 0 ? -1 : old.indexOf(list[0]!)
    const kept = start < 0 ? 0 : old.length - start
    const agrees = start >= 0 && old.slice(start).every((e, i) => list[i] === e)
    h[key] = agrees ? { d: start, a: list.slice(kept) } : { d: old.length, a: list }
  }
  for (const key of Object.keys(prev)) if (!Object.hasOwn(next, key)) h[key] = null
  return h
}

function replaySessions(base: Record<string, unknown>, s: Record<string, unknown> = {}, order?: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(base)) {
    if (!Object.hasOwn(s, key)) out[key] = value
    else if (s[key] !== null) out[key] = s[key]
  }
  for (const [key, value] of Object.entries(s)) if (value !== null && !Object.hasOwn(base, key)) out[key] = value
  if (order === undefined) return out
  if (!Array.isArray(order) || order.length !== Object.keys(out).length) throw invalid('log.so', 'does not match the conversations')
  return Object.fromEntries(order.map((key) => {
    if (typeof key !== 'string' || !Object.hasOwn(out, key)) throw invalid('log.so', 'names a conversation that is not there')
    return [key, out[key]]
  }))
}

/** Replay one change onto a parsed (stored-form) data file, in place. Throws StoreError when it does not fit. */
export function replay(data: Record<string, unknown>, c: Change): void {
  if (c.a !== undefined) data.activeId = c.a
  if (c.p !== undefined || c.o !== undefined) {
    if (!Array.isArray(data.profiles)) throw invalid('data.profiles', 'must be an array')
    const current = new Map(data.profiles.map((p) => [isRecord(p) ? p.id : undefined, p]))
    const order = c.o ?? [...current.keys()]
    if (!Array.isArray(order)) throw invalid('log.o', 'must be an array')
    const p = isRecord(c.p) ? c.p : {}
    data.profiles = order.map((id) => {
      const profile = typeof id === 'string' && Object.hasOwn(p, id) ? p[id] : current.get(id)
      if (profile === undefined) throw invalid('log.o', `names a profile that is not there (${String(id)})`)
      return profile
    })
  }
  if (c.s !== undefined || c.so !== undefined) {
    const sessions = isRecord(data.sessions) ? data.sessions : {}
    data.sessions = replaySessions(sessions, isRecord(c.s) ? c.s : {}, c.so)
  }
  if (c.u === null) delete data.memoryUndo
  else if (c.u !== undefined) data.memoryUndo = c.u
  if (c.h !== undefined) {
    const lists: Record<string, unknown> = isRecord(data.history) ? data.history : {}
    for (const [key, step] of Object.entries(c.h)) {
      if (step === null) { delete lists[key]; continue }
      const old = Object.hasOwn(lists, key) ? lists[key] : []
      if (!Array.isArray(old) || !isRecord(step) || !Array.isArray(step.a) || typeof step.d !== 'number' || step.d > old.length) {
        throw invalid(`log.h.${key}`, 'does not fit the stored history')
      }
      // Deleted and set again, so a written list moves to the end as it does in memory (least recently written first).
      delete lists[key]
      lists[key] = [...old.slice(step.d), ...step.a]
    }
    if (Object.keys(lists).length > 0) data.history = lists
    else delete data.history
  }
}

/**
 * The log is opened O_DSYNC where the platform has it: each append is then durable when its one write returns (the
 * kernel syncs the data and the size, as fdatasync would), so a batch costs one thread-pool round trip instead of two.
 * Where it does not (Windows), appends are followed by an explicit fdatasync.
 */
const DSYNC = constants.O_DSYNC ?? 0
const LOG_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | DSYNC

const checksum = (payload: string) => createHash('sha256').update(payload).digest('hex').slice(0, 16)

/** One line of the log. */
export function encodeChange(c: Change): Buffer {
  const payload = JSON.stringify(c)
  return Buffer.from(`${checksum(payload)} ${payload}\n`)
}

function decodeLine(line: string): Change | undefined {
  if (line.length < 18 || line[16] !== ' ') return undefined
  const payload = line.slice(17)
  if (checksum(payload) !== line.slice(0, 16)) return undefined
  try {
    const c: unknown = JSON.parse(payload)
    return isRecord(c) && Number.isSafeInteger(c.r) ? (c as unknown as Change) : undefined
  } catch {
    return undefined
  }
}

/** What reading the log found. `corrupt` names a bad line that is not the last one (the log cannot be trusted). */
export interface LogContents {
  changes: Change[]
  torn: boolean
  corrupt?: string
}

/** The log file: read back at load, appended durably per batch, emptied after a snapshot. */
export class WriteAheadLog {
  readonly file: string
  #handle: FileHandle | undefined
  /** Bytes of complete, durable lines. */
  #size = 0
  /** Bytes past `#size` may exist (a torn tail or a failed append): they are cut before the next append. */
  #dirty = false
  /** The file's directory entry is known to be durable. */
  #exists = false

  constructor(file: string) {
    this.file = file
  }

  /** Bytes of complete lines in the log. */
  get size(): number {
    return this.#size
  }

  /** Read every complete, checksum-valid line. A missing file is an empty log; other read errors throw. */
  async read(): Promise<LogContents> {
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { changes: [], torn: false }
      throw e
    }
    this.#exists = true
    const pieces = text.split('\n')
    if (pieces.at(-1) === '') pieces.pop()
    const changes: Change[] = []
    for (const [i, piece] of pieces.entries()) {
      const c = decodeLine(piece)
      const ordered = c !== undefined && (changes.length === 0 || c.r > changes.at(-1)!.r)
      if (!ordered) {
        if (i < pieces.length - 1) return { changes, torn: false, corrupt: `line ${i + 1} of ${pieces.length} is damaged` }
        this.#dirty = true
        return { changes, torn: true }
      }
      changes.push(c)
      this.#size += Buffer.byteLength(piece) + 1
    }
    return { changes, torn: false }
  }

  /** Append one line durably (O_DSYNC or fdatasync); `syncDir` makes a new log's name durable. Throws on any failure. */
  async append(line: Buffer, syncDir: () => Promise<void>): Promise<void> {
    try {
      this.#handle ??= await open(this.file, LOG_FLAGS, 0o600)
      if (this.#dirty) await this.#handle.truncate(this.#size)
      this.#dirty = true
      const { bytesWritten } = await this.#handle.write(line)
      if (bytesWritten !== line.length) throw new Error(`short write to ${this.file}`)
      if (DSYNC === 0) await this.#handle.datasync()
      if (!this.#exists) await syncDir()
    } catch (e) {
      await this.close()
      throw e
    }
    this.#exists = true
    this.#dirty = false
    this.#size += line.length
  }

  /** Empty the log after a snapshot made every line in it redundant. */
  async reset(): Promise<void> {
    if (this.#size === 0 && !this.#dirty) return
    try {
      this.#handle ??= await open(this.file, LOG_FLAGS, 0o600)
      await this.#handle.truncate(0)
      await this.#handle.datasync()
    } catch (e) {
      // The lines left are at or below the snapshot's revision, so a later load skips them; only a tail may be torn.
      this.#dirty = true
      await this.close()
      throw e
    }
    this.#size = 0
    this.#dirty = false
  }

  /** Close the open handle (the next append reopens). */
  async close(): Promise<void> {
    const handle = this.#handle
    this.#handle = undefined
    await handle?.close().catch(() => {})
  }
}
