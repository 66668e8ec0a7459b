/**
 * Avatar images on disk: one file per distinct image in `<stem>.avatars/`, named by the SHA-256 of its bytes and its
 * type, written with write-file-atomic and fsync before any database row refers to it, removed only after the rows
 * that referred to it are gone. Owns those files and the per-profile cache of their hashes; it never decides what the
 * state is and never touches the database.
 *
 * Why files rather than rows: 100 profiles with 60 KB avatars are 6 MB that never change when a name or a memory
 * does; as files they are written once per new image, shared by equal images, and the database stays small, so a
 * commit and a reload in another process cost what the change costs.
 */
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { mkdir, open, readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { DIR_MODE, FILE_MODE } from './private-files.ts'
import type { Profile, State } from '../../state/model.ts'
import { avatarParts, avatarUrlOf } from '../../validate/state.ts'

/** An avatar file name: the SHA-256 of the image bytes and the image type. */
export const AVATAR_FILE = /^[0-9a-f]{64}\.(png|jpeg|webp|gif)$/
/** A temporary file left by an interrupted atomic write (`<name>.<counter>`). */
const TEMP_FILE = /\.\d+$/
/**
 * Files nobody refers to are removed only when they are older than this: to this process, another process's avatar
 * written a moment before its commit looks exactly like one a crash left behind.
 */
const STRAY_AGE_MS = 60_000

/** One avatar as stored: the file it lives in, and the short hash the wire uses in URLs. */
export interface AvatarInfo {
  file: string
  hash: string
}

/** Syncs a directory so a rename inside it survives power loss, not only a process crash. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** The avatar directory of one data directory. */
export class AvatarFiles {
  readonly dir: string
  /** Avatar files known to exist. */
  readonly #onDisk = new Set<string>()
  /** Files that could not be read: never removed, so a later repair can still find them. */
  readonly #keep = new Set<string>()
  /**
   * Per profile id, its current avatar and file. Keyed by id, not by data URL: V8 hashes strings longer than 16 K
   * characters by their length alone, so a map keyed by 60 KB data URLs would put most avatars in one bucket.
   */
  readonly #byProfile = new Map<string, AvatarInfo & { dataUrl: string }>()
  /** Data URL per file read, so that another process's edit of a profile does not read its unchanged avatar again. */
  readonly #read = new Map<string, string>()
  /** Files a state of this process referred to: once none does, they go at once (strays wait, see STRAY_AGE_MS). */
  readonly #mine = new Set<string>()
  /** Whether the first collection, which also looks for strays, is still due. */
  #sweepDue = true
  /** A write failed after its avatar files were written: the next collection looks at every file. */
  #recheck = false

  constructor(dir: string) {
    this.dir = dir
    for (const n of (() => {
      try {
        return readdirSync(dir)
      } catch {
        return [] as string[]
      }
    })())
      if (AVATAR_FILE.test(n)) this.#onDisk.add(n)
  }

  /** The stored form of a profile's avatar (hashed once per new image). Assumes `p.avatar` is not ''. */
  infoOf(p: Profile): AvatarInfo {
    const known = this.#byProfile.get(p.id)
    if (known !== undefined && known.dataUrl === p.avatar) return known
    const { type, bytes } = avatarParts(p.avatar)
    const digest = createHash('sha256').update(bytes).digest('hex')
    const info = { dataUrl: p.avatar, file: `${digest}.${type}`, hash: digest.slice(0, 16) }
    this.#byProfile.set(p.id, info)
    this.#mine.add(info.file)
    return info
  }

  /** The data URL stored in `file`, or undefined when it is missing or does not match its name (kept, not removed). */
  read(file: string): string | undefined {
    const cached = this.#read.get(file)
    if (cached !== undefined) return cached
    try {
      const bytes = readFileSync(join(this.dir, file))
      const digest = createHash('sha256').update(bytes).digest('hex')
      if (digest !== file.slice(0, 64)) throw new Error('content does not match its hash')
      const dataUrl = avatarUrlOf(file.slice(65), bytes)
      this.#read.set(file, dataUrl)
      this.#onDisk.add(file)
      return dataUrl
    } catch {
      this.#keep.add(file)
      return undefined
    }
  }

  /** Remember that profile `id` shows the avatar read from `file`. */
  learn(id: string, file: string, dataUrl: string): void {
    this.#byProfile.set(id, { dataUrl, file, hash: file.slice(0, 16) })
    this.#mine.add(file)
  }

  /**
   * The avatar files `state` refers to that are not on disk yet, with their bytes. `fresh` are the profiles whose
   * avatar changed: their files are looked for on disk rather than trusted from memory, since another process may have
   * removed a file this one saw.
   */
  #missing(state: State, fresh: ReadonlySet<string>, bytes: boolean): Map<string, Buffer | undefined> {
    const missing = new Map<string, Buffer | undefined>()
    for (const p of state.profiles) {
      if (p.avatar === '') continue
      const { file } = this.infoOf(p)
      if (missing.has(file)) continue
      if (this.#onDisk.has(file) && !(fresh.has(p.id) && !this.#exists(file))) continue
      // Bytes are decoded again only for a new image: keeping them for every avatar would double its memory.
      missing.set(file, bytes ? avatarParts(p.avatar).bytes : undefined)
    }
    return missing
  }

  /** Whether `ensure` has files to write for `state`. */
  needs(state: State, fresh: ReadonlySet<string>): boolean {
    return this.#missing(state, fresh, false).size > 0
  }

  /** Durably write the avatar files `state` refers to that are not on disk yet (see `#missing`). */
  async ensure(state: State, fresh: ReadonlySet<string>): Promise<void> {
    const missing = this.#missing(state, fresh, true)
    if (missing.size === 0) return
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE })
    await Promise.all(
      [...missing].map(async ([file, bytes]) => {
        await writeFileAtomic(join(this.dir, file), bytes!, { fsync: true, mode: FILE_MODE })
        this.#onDisk.add(file)
      }),
    )
    await syncDir(this.dir)
  }

  /** A commit failed: files written for it are referred to by nothing durable. */
  failed(): void {
    this.#recheck = true
  }

  #exists(file: string): boolean {
    try {
      statSync(join(this.dir, file))
      return true
    } catch {
      return false
    }
  }

  /**
   * After `state` is durable: remove the files it no longer refers to, and forget cached avatars it does not hold.
   * Files this process never wrote or read (a crash's leftovers, temp files of interrupted writes) go only when old
   * (see STRAY_AGE_MS). Returns what could not be removed; a leftover file costs disk space, not data.
   */
  async collect(state: State, dropped: boolean): Promise<string[]> {
    if (!dropped && !this.#sweepDue && !this.#recheck) return []
    this.#recheck = false
    const used = new Set<string>()
    const live = new Set<string>()
    for (const p of state.profiles) {
      if (p.avatar === '') continue
      used.add(this.infoOf(p).file)
      live.add(p.id)
    }
    for (const id of [...this.#byProfile.keys()]) if (!live.has(id)) this.#byProfile.delete(id)
    const failed: string[] = []
    const remove = async (file: string) => {
      this.#onDisk.delete(file)
      this.#mine.delete(file)
      this.#read.delete(file)
      await unlink(join(this.dir, file)).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') failed.push(`${file}: ${e.message}`)
      })
    }
    for (const file of [...this.#onDisk]) {
      if (used.has(file) || this.#keep.has(file)) continue
      if (this.#mine.has(file) || !this.#young(file)) await remove(file)
    }
    if (this.#sweepDue) {
      this.#sweepDue = false
      for (const n of await readdir(this.dir).catch(() => [] as string[])) {
        if (TEMP_FILE.test(n) && AVATAR_FILE.test(n.replace(TEMP_FILE, '')) && !this.#young(n)) await remove(n)
      }
    }
    return failed
  }

  /** Whether a file changed within STRAY_AGE_MS (or cannot be looked at): then it may be another process's write. */
  #young(file: string): boolean {
    try {
      return Date.now() - statSync(join(this.dir, file)).mtimeMs < STRAY_AGE_MS
    } catch {
      return false
    }
  }
}
