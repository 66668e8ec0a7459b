/**
 * Loading and writing the store's data: the snapshot (with quarantine of a file that cannot be used), atomic durable
 * writes, and the content-addressed avatar files. The write-ahead log (wal.ts), the writer lock (writer-lock.ts) and
 * the turn ledger (ledger.ts) own their files; the files themselves are listed in README, "Where data lives". It
 * never decides what the state is; it stores what it is given.
 *
 * Why split avatars out: a 60 KB avatar on each of 100 profiles makes an 8 MB JSON, and rewriting that on every
 * keystroke-sized edit costs ~70 ms; with avatars apart, an edit rewrites a few KB. Content addressing means an
 * unchanged avatar is never rewritten and a file name can only ever hold one content. An avatar file is written (and
 * fsynced) before the JSON or log line that references it, and removed only after a state (snapshot + log) that no
 * longer references it is durable, so a crash at any moment leaves a state whose avatars all exist. Export stays one self-contained envelope.
 * A batch appends one line to the log (wal.ts) instead of rewriting the JSON; the JSON is rewritten (a snapshot) on the
 * first write and whenever the log passes WAL_LIMIT, and only then is the log emptied: a crash between the two leaves
 * lines at or below the snapshot's revision, which loading skips. State = snapshot + the log's lines above it.
 */
import { createHash } from 'node:crypto'
import { mkdir, open, readFile, readdir, rename, lstat, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import type { Profile, State } from '../shared/model.ts'
import { factoryState } from './defaults.ts'
import { StoreError, avatarParts, avatarUrlOf, invalid, isRecord, state as validState } from '../validate/state.ts'
import { WriteAheadLog, diffStates, encodeChange, profileChanges, replay } from './wal.ts'
import { errorText } from '../errors.ts'

/** Log bytes past which the next write is a snapshot (and the log is emptied): bounds what loading replays. */
export const WAL_LIMIT = 1024 * 1024

/** Where each part of the store lives. */
export interface Layout {
  file: string
  dir: string
  avatarDir: string
  ledgerFile: string
  walFile: string
  lockFile: string
}

/** The layout for a data file. */
export function layoutOf(file: string): Layout {
  const dir = dirname(file)
  const stem = basename(file).replace(/\.json$/i, '')
  return {
    file, dir, avatarDir: join(dir, `${stem}.avatars`), ledgerFile: join(dir, `${stem}.turns.jsonl`), walFile: join(dir, `${stem}.wal`),
    lockFile: join(dir, `${stem}.lock`),
  }
}

/** An avatar file name: the SHA-256 of the image bytes and the image type. */
const AVATAR_FILE = /^[0-9a-f]{64}\.(png|jpeg|webp|gif)$/
/** A temporary file left by an interrupted atomic write (`<name>.<counter>`). */
const TEMP_FILE = /\.\d+$/

/** What loading found. `problem` is for `lastError`; `blocked` means the bad file could not be moved aside. */
export interface Loaded {
  state: State
  revision: number
  problem?: { message: string; keptAs?: string }
  blocked?: boolean
  /** The files looked unusable while another process saves to them: nothing was moved; reading again may succeed. */
  busy?: boolean
}


/** Syncs a directory so a rename inside it survives power loss, not only a process crash. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false)
}

/** Rename a bad data file to `<file>.bad-<timestamp>` (never onto an existing file); undefined when it cannot move. */
async function keepAside(file: string, now: number): Promise<string | undefined> {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-')
  for (let n = 1; n < 100; n++) {
    const target = `${file}.bad-${stamp}${n === 1 ? '' : `-${n}`}`
    if (await exists(target)) continue
    try {
      await rename(file, target)
      return target
    } catch {
      return undefined
    }
  }
  return undefined
}

/** Whether going from `prev` to `next` can leave an avatar unused: a profile went away or changed its avatar. */
function dropsAvatars(prev: State, next: State): boolean {
  const { changed, previous, sameOrder } = profileChanges(prev, next)
  return !sameOrder || changed.some((p, i) => previous[i]?.avatar !== p.avatar)
}

/** One avatar as stored: the file it lives in, and the short hash the wire uses in URLs. */
interface AvatarInfo {
  file: string
  hash: string
}

/** Reads and writes the data file and the avatar files; remembers which avatar files exist. */
export class Disk {
  readonly layout: Layout
  /** Avatar files known to exist in the avatar directory. */
  readonly #onDisk = new Set<string>()
  /** Avatar files that could not be read at load: never collected, so a later repair can still find them. */
  readonly #keep = new Set<string>()
  /**
   * Per profile id, its current avatar and file. Keyed by id, not by data URL: V8 hashes strings longer than 16 K
   * characters by their length alone, so a map keyed by 60 KB data URLs would put most avatars in one bucket.
   */
  readonly #byProfile = new Map<string, AvatarInfo & { dataUrl: string }>()
  /** Serialized text per immutable state object (profiles, conversation settings). */
  readonly #fragments = new WeakMap<object, Buffer>()
  /** Whether the data directory is known to exist. */
  #dirReady = false
  #wal: WriteAheadLog
  /** The state the files on disk hold (snapshot + log), which the next log line is a diff from. */
  #durable: State | undefined
  /** A valid snapshot is on disk, so a batch may go to the log. */
  #snapshotOnDisk = false
  /** The state the last collection was for; a later one that drops no avatar has nothing to remove. */
  #collected: State | undefined
  /** Temporary files of interrupted writes, found at load, for `tidy`. */
  readonly #temps: string[] = []
  /** Whether this load may move an unusable file aside (see `load`). */
  #mayRepair: () => Promise<boolean> = async () => true

  constructor(layout: Layout) {
    this.layout = layout
    this.#wal = new WriteAheadLog(layout.walFile)
  }

  /** The stored form of a profile's avatar (hashed once per new image). Assumes `p.avatar` is not ''. */
  avatarOf(p: Profile): AvatarInfo {
    const known = this.#byProfile.get(p.id)
    if (known !== undefined && known.dataUrl === p.avatar) return known
    const { type, bytes } = avatarParts(p.avatar)
    const digest = createHash('sha256').update(bytes).digest('hex')
    const info = { dataUrl: p.avatar, file: `${digest}.${type}`, hash: digest.slice(0, 16) }
    this.#byProfile.set(p.id, info)
    return info
  }

  /**
   * Load the data file. Anything unusable yields the factory state and a problem to report; only a fault throws. An
   * unusable file is moved aside only when `mayRepair` says this process is the one that saves (it takes the writer
   * lock): to a process that only reads, a file another one is writing can look damaged for a moment.
   */
  async load(now: number, mayRepair: () => Promise<boolean> = async () => true): Promise<Loaded> {
    this.#mayRepair = mayRepair
    const name = basename(this.layout.file)
    await this.#scanAvatars()
    let raw: string
    try {
      raw = await readFile(this.layout.file, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        // A log with no snapshot has nothing to apply to: keep it aside rather than let the first snapshot empty it.
        if (await exists(this.layout.walFile)) return this.#quarantine(`${basename(this.layout.walFile)} has no ${name} to apply to`, now)
        // Avatar files with no data file belong to nothing we can see; keep them rather than guess.
        this.#keepAll()
        return { state: factoryState(now), revision: 0 }
      }
      return this.#quarantine(`${name} could not be read (${errorText(e)})`, now)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(raw)
    } catch (e) {
      return this.#quarantine(`${name} is not valid JSON (${errorText(e)})`, now)
    }
    const walName = basename(this.layout.walFile)
    let log
    try {
      log = await this.#wal.read()
    } catch (e) {
      return this.#quarantine(`${walName} could not be read (${errorText(e)})`, now)
    }
    if (log.corrupt !== undefined) return this.#quarantine(`${walName} is damaged (${log.corrupt})`, now)
    try {
      if (isRecord(parsed)) {
        // A data file from before avatars moved out is rewritten by the next write, not extended by a log.
        const inline = Array.isArray(parsed.profiles) && parsed.profiles.some((p) => isRecord(p) && typeof p.avatar === 'string' && p.avatar !== '')
        this.#snapshotOnDisk = !inline
        for (const change of log.changes) {
          if (typeof parsed.revision === 'number' && change.r <= parsed.revision) continue
          replay(parsed, change)
          parsed.revision = change.r
        }
      }
      const { state, revision, unreadable } = await this.#fromDisk(parsed, now)
      this.#durable = state
      if (unreadable.length === 0) return { state, revision }
      const message = `${unreadable.length} avatar file(s) could not be read (${unreadable.join(', ')}); those profiles show their emoji until a new avatar is saved`
      return { state, revision, problem: { message } }
    } catch (e) {
      if (!(e instanceof StoreError)) throw e
      return this.#quarantine(`${name} does not hold valid data (${e.message})`, now)
    }
  }

  /** Protect every avatar file now on disk from collection (they may belong to a file kept aside). */
  #keepAll(): void {
    for (const file of this.#onDisk) this.#keep.add(file)
  }

  /** Keep the data file and its log aside (the log's lines belong to that snapshot only) and start on defaults. */
  async #quarantine(reason: string, now: number): Promise<Loaded> {
    if (!(await this.#mayRepair())) {
      const message = `${reason}; another dsh process is saving this data, so it was left as it is; this process started on the factory profiles and saves nothing until it restarts`
      return { state: factoryState(now), revision: 0, problem: { message }, blocked: true, busy: true }
    }
    this.#keepAll()
    this.#wal = new WriteAheadLog(this.layout.walFile)
    this.#snapshotOnDisk = false
    const kept: string[] = []
    let stuck = false
    for (const file of [this.layout.file, this.layout.walFile]) {
      if (!(await exists(file))) continue
      const target = await keepAside(file, now)
      if (target === undefined) stuck = true
      else kept.push(target)
    }
    const state = factoryState(now)
    if (stuck || kept.length === 0) {
      const message = `${reason}; started on the factory profiles; the file could not be moved aside, so nothing is saved until it is fixed or removed`
      return { state, revision: 0, problem: { message }, blocked: true }
    }
    const names = kept.map((f) => basename(f)).join(' and ')
    return { state, revision: 0, problem: { message: `${reason}; started on the factory profiles; the file was kept as ${names}`, keptAs: kept[0] } }
  }

  /** Resolve avatar files into data URLs and validate the whole state. */
  async #fromDisk(parsed: unknown, now: number): Promise<{ state: State; revision: number; unreadable: string[] }> {
    if (!isRecord(parsed)) throw invalid('data', 'is not an object')
    const { revision = 0, profiles, ...rest } = parsed
    if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) {
      throw invalid('data.revision', 'must be a non-negative integer')
    }
    if (!Array.isArray(profiles)) throw invalid('data.profiles', 'must be an array')
    const unreadable: string[] = []
    const read = new Map<string, AvatarInfo & { dataUrl: string }>()
    const resolved = await Promise.all(profiles.map(async (p, i) => {
      if (!isRecord(p) || p.avatarFile === undefined) return p
      const { avatarFile, ...fields } = p
      const file = typeof avatarFile === 'string' && AVATAR_FILE.test(avatarFile) ? avatarFile : undefined
      if (file === undefined) throw invalid(`data.profiles[${i}].avatarFile`, 'is not an avatar file name')
      const info = await this.#readAvatar(file)
      if (info === undefined) unreadable.push(file)
      else read.set(String(fields.id), info)
      return { ...fields, avatar: info?.dataUrl ?? '' }
    }))
    const state = validState({ ...rest, profiles: resolved }, 'data', { source: 'user', at: now, newId: () => 'x' })
    for (const p of state.profiles) {
      const info = read.get(p.id)
      // Validation hands back the very string it was given when it is canonical, as ours always are.
      if (info !== undefined) this.#byProfile.set(p.id, { ...info, dataUrl: p.avatar })
    }
    return { state, revision, unreadable }
  }

  async #readAvatar(file: string): Promise<(AvatarInfo & { dataUrl: string }) | undefined> {
    try {
      const bytes = await readFile(join(this.layout.avatarDir, file))
      const digest = createHash('sha256').update(bytes).digest('hex')
      if (digest !== file.slice(0, 64)) throw new Error('content does not match its hash')
      return { dataUrl: avatarUrlOf(file.slice(65), bytes), file, hash: digest.slice(0, 16) }
    } catch {
      this.#keep.add(file)
      return undefined
    }
  }

  /** Learn which avatar files exist, and which temporary files interrupted writes left behind (ours only). */
  async #scanAvatars(): Promise<void> {
    const names = await readdir(this.layout.avatarDir).catch(() => [] as string[])
    for (const n of names) {
      if (AVATAR_FILE.test(n)) this.#onDisk.add(n)
      else if (TEMP_FILE.test(n) && AVATAR_FILE.test(n.replace(TEMP_FILE, ''))) this.#temps.push(join(this.layout.avatarDir, n))
    }
    const ours = new Set([basename(this.layout.file), basename(this.layout.ledgerFile)])
    for (const n of await readdir(this.layout.dir).catch(() => [] as string[])) {
      if (TEMP_FILE.test(n) && ours.has(n.replace(TEMP_FILE, ''))) this.#temps.push(join(this.layout.dir, n))
    }
  }

  /**
   * Remove the temporary files interrupted writes left behind, found at load. Only the process that saves calls this:
   * to any other, a file another process is writing right now looks the same.
   */
  async tidy(): Promise<void> {
    for (const path of this.#temps.splice(0)) await unlink(path).catch(() => {})
  }

  /** A profile as stored: its avatar as a reference to its file. */
  #stored(p: Profile): unknown {
    if (p.avatar === '') return p
    const { avatar: _inline, ...fields } = p
    return { ...fields, avatarFile: this.avatarOf(p).file }
  }

  /** The UTF-8 JSON of one immutable object, computed once per object (see `serialize`). */
  #fragment(key: object, value: () => unknown): Buffer {
    let bytes = this.#fragments.get(key)
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(value(), null, 1))
      this.#fragments.set(key, bytes)
    }
    return bytes
  }

  /**
   * The JSON text stored for `state`, indented because people do open and hand-edit this file. State objects are
   * immutable and an edit replaces only what it changes, so each profile and conversation setting is serialized
   * once and its bytes reused by every later write: an edit costs one profile's worth of JSON.stringify and UTF-8
   * encoding, plus a copy of the rest.
   */
  serialize(state: State, revision: number): Buffer {
    const parts: Buffer[] = []
    const text = (s: string) => parts.push(Buffer.from(s))
    const list = (open: string, items: [string, Buffer][], close: string) => {
      text(open)
      items.forEach(([prefix, bytes], i) => {
        text(`${i === 0 ? '\n' : ',\n'}${prefix}`)
        parts.push(bytes)
      })
      text(items.length === 0 ? close : `\n ${close}`)
    }
    text(`{\n "version": 1,\n "revision": ${revision},\n "activeId": ${JSON.stringify(state.activeId)},\n "profiles": `)
    list('[', state.profiles.map((p) => ['', this.#fragment(p, () => this.#stored(p))]), ']')
    text(',\n "sessions": ')
    list('{', Object.entries(state.sessions).map(([key, s]) => [`${JSON.stringify(key)}: `, this.#fragment(s, () => s)]), '}')
    const memoryUndo = state.memoryUndo
    if (memoryUndo !== undefined) {
      text(',\n "memoryUndo": ')
      parts.push(this.#fragment(memoryUndo, () => memoryUndo))
    }
    const history = state.history
    if (history !== undefined) {
      text(',\n "history": ')
      list('{', Object.entries(history).map(([key, entries]) => [`${JSON.stringify(key)}: `, this.#fragment(entries, () => entries)]), '}')
    }
    text('\n}\n')
    return Buffer.concat(parts)
  }

  /**
   * Durably write `state`: new avatar files first, then one log line (or a snapshot of the data file, then an emptied
   * log). Throws on any failure; memory is untouched.
   */
  async write(state: State, revision: number): Promise<void> {
    try {
      await this.#write(state, revision)
    } catch (e) {
      this.#dirReady = false
      // Avatar files this write made are referenced by no durable state: the next collection must look at every file.
      this.#collected = undefined
      throw e
    }
  }

  async #write(state: State, revision: number): Promise<void> {
    const fresh = new Map<string, Buffer>()
    for (const p of state.profiles) {
      if (p.avatar === '') continue
      const info = this.avatarOf(p)
      // Bytes are decoded again only for a new image: keeping them for every avatar would double its memory.
      if (!this.#onDisk.has(info.file) && !fresh.has(info.file)) fresh.set(info.file, avatarParts(p.avatar).bytes)
    }
    if (!this.#dirReady) {
      await mkdir(this.layout.dir, { recursive: true })
      this.#dirReady = true
    }
    if (fresh.size > 0) {
      await mkdir(this.layout.avatarDir, { recursive: true })
      await Promise.all([...fresh].map(async ([file, bytes]) => {
        await writeFileAtomic(join(this.layout.avatarDir, file), bytes, { fsync: true, mode: 0o600 })
        this.#onDisk.add(file)
      }))
      await syncDir(this.layout.avatarDir)
    }
    const prev = this.#durable
    if (prev !== undefined && this.#snapshotOnDisk && this.#wal.size < WAL_LIMIT) {
      await this.#wal.append(encodeChange(diffStates(prev, state, revision, (p) => this.#stored(p))), () => syncDir(this.layout.dir))
      this.#durable = state
      return
    }
    await writeFileAtomic(this.layout.file, this.serialize(state, revision), { fsync: true, mode: 0o600 })
    await syncDir(this.layout.dir)
    this.#durable = state
    this.#snapshotOnDisk = true
    // The snapshot is durable, so this write succeeded; a log that could not be emptied only holds lines it skips.
    await this.#wal.reset().catch(() => {})
  }

  /**
   * What the data file and its log look like on disk now (inode, size, modification time of each). Equal answers mean
   * nobody wrote in between; this process compares them across the time it did not hold the writer lock.
   */
  async fingerprint(): Promise<string> {
    const one = (path: string) => lstat(path).then((s) => `${s.ino}:${s.size}:${s.mtimeMs}`, () => '-')
    return `${await one(this.layout.file)} ${await one(this.layout.walFile)}`
  }

  /** Release the open log file. */
  async close(): Promise<void> {
    await this.#wal.close()
  }

  /**
   * Remove avatar files `state` no longer references (after it is durable), and forget cached avatars it does not
   * hold. Failures are reported, never thrown: a leftover file costs disk space, not data.
   */
  async collect(state: State): Promise<string[]> {
    const since = this.#collected
    this.#collected = state
    // Nothing unused at `state` that was not already unused (and removed) at `since`.
    if (since !== undefined && !dropsAvatars(since, state)) return []
    const used = new Set<string>()
    const live = new Set<string>()
    for (const p of state.profiles) {
      if (p.avatar === '') continue
      used.add(this.avatarOf(p).file)
      live.add(p.id)
    }
    for (const profileId of [...this.#byProfile.keys()]) if (!live.has(profileId)) this.#byProfile.delete(profileId)
    const failed: string[] = []
    for (const file of [...this.#onDisk]) {
      if (used.has(file) || this.#keep.has(file)) continue
      this.#onDisk.delete(file)
      await unlink(join(this.layout.avatarDir, file)).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') failed.push(`${file}: ${e.message}`)
      })
    }
    return failed
  }
}
