/**
 * The data directory's writer lock (`<stem>.lock` beside the data file): which dsh process may change the profile data
 * right now. A store takes it for a change and lets it go once it has been idle a moment (store.ts), so dsh processes
 * on the same data (a headless run beside `dsh web`, say) take turns saving, each starting from what the other saved,
 * instead of appending log lines that interleave and silently drop a save.
 *
 * The lock file holds the owner's pid, host name and start time. A lock whose owner is gone (a crash, SIGKILL) is
 * taken over at once: liveness is asked of the OS by pid, not guessed from the file's age, so a restart right after a
 * crash is never locked out — which is why this is written here rather than taken from a time-based lockfile library.
 * Store instances in one process share the lock (counted), as a reopen in a test or a hot reload does.
 */
import { hostname } from 'node:os'
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { unlinkSync } from 'node:fs'

/** Who holds a lock. */
export interface LockHolder {
  pid: number
  host: string
  /** When the holder took the lock (ms since the epoch). */
  since: number
}

/** Locks this process holds, by path, with how many stores share each. */
const held = new Map<string, number>()
let exitHook = false

function releaseAllSync(): void {
  for (const path of held.keys()) {
    try {
      unlinkSync(path)
    } catch {
      // Gone already: nothing to release.
    }
  }
  held.clear()
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The lock file's text, '' when there is none (or it cannot be read). */
function readLock(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '')
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>
    return Number.isSafeInteger(h.pid) && typeof h.host === 'string' && typeof h.since === 'number' ? (h as LockHolder) : undefined
  } catch {
    return undefined
  }
}

/** One store's handle on the lock at `path`. */
export class WriterLock {
  readonly path: string
  #held = false

  constructor(path: string) {
    this.path = path
  }

  /** Whether this store holds the lock. */
  get held(): boolean {
    return this.#held
  }

  /**
   * Take the lock. Returns undefined when this store now holds it, or the live process that does. A lock left by a
   * process that is gone is replaced. Throws when the lock file cannot be written (a read-only directory, a full disk).
   */
  async acquire(): Promise<LockHolder | undefined> {
    if (this.#held) return undefined
    const shared = held.get(this.path)
    if (shared !== undefined) {
      held.set(this.path, shared + 1)
      this.#held = true
      return undefined
    }
    const me: LockHolder = { pid: process.pid, host: hostname(), since: Date.now() }
    // Written whole under a private name, then linked into place: link never replaces a file, so of two processes
    // taking a free lock at once exactly one wins, and nobody ever reads a half-written lock.
    const temp = `${this.path}.${process.pid}`
    await mkdir(dirname(this.path), { recursive: true })
    await writeFile(temp, JSON.stringify(me), { mode: 0o600 })
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          await link(temp, this.path)
          held.set(this.path, 1)
          this.#held = true
          if (!exitHook) {
            exitHook = true
            process.once('exit', releaseAllSync)
          }
          return undefined
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        }
        const text = await readLock(this.path)
        const holder = parseHolder(text)
        // Another host's pid means nothing here: only its owner (or the user) can say it is free. Our own pid in a lock
        // this process never took belongs to a dead process the OS gave the same number.
        if (holder !== undefined && (holder.host !== me.host || (holder.pid !== me.pid && alive(holder.pid)))) return holder
        // Its owner is gone (or the file is not a lock we wrote): take it over, unless it changed meanwhile.
        if ((await readLock(this.path)) === text) await unlink(this.path).catch(() => {})
      }
      const holder = parseHolder(await readLock(this.path))
      if (holder !== undefined) return holder
      throw new Error(`${this.path} could not be taken`)
    } finally {
      await unlink(temp).catch(() => {})
    }
  }

  /** Give the lock up (the file goes when the last store of this process sharing it lets go). */
  async release(): Promise<void> {
    if (!this.#held) return
    this.#held = false
    const count = (held.get(this.path) ?? 1) - 1
    if (count > 0) {
      held.set(this.path, count)
      return
    }
    held.delete(this.path)
    await unlink(this.path).catch(() => {})
  }
}

/** The refusal a second process gets, naming who writes. */
export function heldBy(holder: LockHolder, path: string): string {
  const where = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`
  return `another dsh process (${where}, since ${new Date(holder.since).toISOString()}) kept saving agent profiles to this ` +
    `data and did not let go in time; try again in a moment (the lock is ${path})`
}
