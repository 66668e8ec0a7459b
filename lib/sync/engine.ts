/**
 * The background sync of one repository: runs after a change (debounced), on an interval and when asked, one run at
 * a time (a second request while one runs makes one more run after it, never two at once), and across processes on
 * the same data one at a time too (a lock file holding the owner's pid). A failure is kept as the status (the page
 * words it), retried with a growing pause up to the interval; it never throws into the host and never blocks a turn:
 * git runs in child processes, the store's work is one command sized by the change, and every step of a run — each
 * git call, the reading of its answer, the host's own work between them — waits for the turns under way.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import type { ProfileStore } from '../store/store.ts'
import type { Log } from '../shared/log.ts'
import { errorText } from '../shared/errors.ts'
import type { SyncProblem, SyncStatus } from '../shared/sync.ts'
import { LAST_REF, type Repo } from './repo.ts'
import { syncOnce, type RunOutcome } from './run.ts'
import { SyncStop } from './errors.ts'
import { PendingCount } from './pending.ts'
import { StateFiles } from './state-files.ts'
import { keptMemoryAt } from './library-memory.ts'
import { LastPush } from './last-push.ts'
import { QUIET_WAIT_MS, type TurnQuiet } from './turn-quiet.ts'
import { StoreError } from '../shared/errors.ts'
import { GitError, RepoRefusal } from './errors.ts'

/** How an engine runs. */
export interface EngineOptions {
  store: ProfileStore
  repo: Repo
  log: Pick<Log, 'warn'>
  /** Milliseconds after a change before a run (default 5 s). */
  debounceMs?: number
  /** Milliseconds between runs when nothing changes (default 5 min); also the longest pause after failures. */
  intervalMs?: number
  /** The turns under way: a run starts between them (none given: at once). */
  quiet?: Pick<TurnQuiet, 'settled'>
}

/** What a failure is, for the status. */
export function problemOf(e: unknown): SyncProblem {
  const detail = errorText(e)
  if (e instanceof SyncStop) return { key: e.reason === 'store-changed' ? 'busy' : e.reason, detail }
  if (e instanceof RepoRefusal) return { key: 'refused-content', detail }
  if (e instanceof StoreError) return { key: 'store', detail }
  if (e instanceof GitError) {
    if (e.failure === 'missing') return { key: 'git-missing', detail }
    if (e.failure === 'timeout') return { key: 'timeout', detail }
    if (e.failure === 'too-large') return { key: 'refused-content', detail }
    // git's own checks of what it fetches (a tree with `..` or `.git` in a path, a malformed object): content a sync
    // never takes, said as such rather than as a failure to retry blindly.
    if (/fsck error|: (hasDot\w*|badTree|fullPathname):/i.test(e.stderr)) return { key: 'refused-content', detail }
    if (/rejected|non-fast-forward|fetch first/i.test(e.stderr)) return { key: 'rejected', detail }
    if (/permission denied|authentication failed|could not read username|publickey/i.test(e.stderr))
      return { key: 'auth', detail }
    if (
      /could not resolve|connection refused|unable to access|does not appear to be a git repository|could not read from remote|no such file|not a git repository|network is unreachable/i.test(
        e.stderr,
      )
    )
      return { key: 'unreachable', detail }
  }
  return { key: 'failed', detail }
}

/** One repository's background sync. */
export class SyncEngine {
  readonly #store: ProfileStore
  readonly #repo: Repo
  readonly #log: Pick<Log, 'warn'>
  readonly #debounceMs: number
  readonly #intervalMs: number
  readonly #files: StateFiles
  readonly #pending: PendingCount
  readonly #lastPush: LastPush
  readonly #quiet: EngineOptions['quiet']
  /** Aborted by {@link stop}: a run waiting for a turn to end gives up. */
  readonly #halt = new AbortController()
  /**
   * Between turns: a run's steps, overlapping a turn's prompt assembly, take the host's thread and make the store's
   * synchronous commits of that turn wait on the disk. Each step (every git call, the reading of its answer, the
   * store's command, the host's hashing and merging) starts only once no turn runs; turns that run long delay a run by
   * the bound in all (turn-quiet.ts), and a stop ends the wait.
   */
  readonly #between = async (): Promise<void> => this.#quiet?.settled(QUIET_WAIT_MS, this.#halt.signal)
  #timer: NodeJS.Timeout | undefined
  #timerAt = Infinity
  #interval: NodeJS.Timeout | undefined
  #unsubscribe: (() => void) | undefined
  #running: Promise<void> | undefined
  #again = false
  #stopped = false
  #status: SyncStatus = { running: false, notes: [], failures: 0 }

  constructor(o: EngineOptions) {
    this.#store = o.store
    this.#repo = o.repo
    this.#log = o.log
    this.#debounceMs = o.debounceMs ?? 5_000
    this.#intervalMs = o.intervalMs ?? 300_000
    this.#quiet = o.quiet
    // Every git call of a run (and the reading of its answer, on this thread) waits for the turns under way.
    o.repo.waitBetween(this.#between)
    // The clone sits in the sync folder, beside the memory kept for team profiles this machine does not show.
    this.#files = new StateFiles(keptMemoryAt(dirname(o.repo.dir)))
    this.#pending = new PendingCount(this.#files)
    // What this machine last pushed, from before a restart too (a refused record file is logged and ignored).
    this.#lastPush = new LastPush(o.repo, o.log)
    const pushed = this.#lastPush.record
    if (pushed !== undefined) Object.assign(this.#status, { lastPush: pushed.at, lastPushSubject: pushed.subject })
  }

  /** Start: a run soon, one after each change, one per interval. */
  start(): void {
    this.#unsubscribe = this.#store.onChange(() => this.schedule(this.#debounceMs))
    this.#interval = setInterval(() => this.schedule(0), this.#intervalMs)
    this.#interval.unref()
    this.schedule(0)
  }

  /** The status as it is now, with the local changes the remote does not have yet. */
  status(): SyncStatus {
    const out: SyncStatus = { ...this.#status, notes: [...this.#status.notes] }
    // Profiles (and About you) whose files differ from the last synced commit: exact after a run, by the store's
    // objects between runs (pending.ts), so a reply never writes or hashes a memory file.
    const pending = this.#pending.of(this.#store.state)
    if (pending !== undefined) out.pending = pending
    return out
  }

  /** A run in `ms` (an earlier one already planned stays). */
  schedule(ms: number): void {
    if (this.#stopped) return
    const at = Date.now() + ms
    if (this.#timer !== undefined && this.#timerAt <= at) return
    clearTimeout(this.#timer)
    this.#timerAt = at
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#timerAt = Infinity
      void this.now()
    }, ms)
    this.#timer.unref()
  }

  /** Run now (or once more after the run under way) and answer the status after it. Never throws. */
  async now(): Promise<SyncStatus> {
    if (this.#running !== undefined) {
      this.#again = true
      while (this.#running !== undefined) await this.#running
      return this.status()
    }
    this.#running = this.#loop()
    await this.#running
    return this.status()
  }

  async #loop(): Promise<void> {
    try {
      do {
        this.#again = false
        await this.#once()
      } while (this.#again && !this.#stopped)
    } finally {
      this.#running = undefined
    }
  }

  async #once(): Promise<void> {
    const between = this.#between
    await between()
    if (this.#stopped) return
    this.#status.running = true
    const lock = `${this.#repo.dir}.lock`
    mkdirSync(dirname(lock), { recursive: true, mode: 0o700 })
    let outcome: RunOutcome | undefined
    let failure: unknown
    if (!takeLock(lock)) failure = new SyncStop('store-changed', 'another dsh process is syncing this data')
    else {
      try {
        outcome = await syncOnce(this.#repo, this.#store, this.#files, between)
      } catch (e) {
        failure = e
      } finally {
        rmSync(lock, { force: true })
      }
    }
    // The exact pending count against what the remote holds now, looked at between turns like the run's other steps:
    // it hashes a pulled profile's memory file whole (a clone that cannot be read leaves the count as it was).
    try {
      const synced = await this.#repo.tree((await this.#repo.refs()).get(LAST_REF))
      await between()
      this.#pending.look(this.#store.state, synced)
    } catch {
      // Kept: the last count stays until a run can read the clone.
    }
    const now = Date.now()
    this.#status.running = false
    this.#status.lastAttempt = now
    if (outcome !== undefined) {
      this.#status.lastSync = now
      if (outcome.pushed !== undefined) await this.#recordPush(outcome.pushed, now)
      delete this.#status.error
      this.#status.failures = 0
      if (outcome.notes.length > 0) this.#status.notes = [...this.#status.notes, ...outcome.notes].slice(-20)
      return
    }
    const problem = problemOf(failure)
    if (problem.key === 'busy') {
      // Not a failure: the store or another process moved; look again shortly.
      this.schedule(Math.min(this.#debounceMs, 1_000))
      return
    }
    this.#status.error = problem
    this.#status.failures++
    if (this.#status.failures === 1) this.#log.warn(`agent-profiles: sync: ${problem.key}: ${problem.detail}`)
    this.schedule(Math.min(this.#intervalMs, 5_000 * 2 ** Math.min(this.#status.failures - 1, 10)))
  }

  /** Show and keep the push of `commit` at `at` (its subject read from the clone; unreadable: none). */
  async #recordPush(commit: string, at: number): Promise<void> {
    const subject = await this.#repo.subjectOf(commit).catch(() => '')
    this.#status.lastPush = at
    this.#status.lastPushSubject = subject
    await this.#between()
    await this.#lastPush.pushed({ at, commit, subject })
  }

  /** Stop every timer and wait for a run under way. */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#halt.abort()
    clearTimeout(this.#timer)
    clearInterval(this.#interval)
    this.#unsubscribe?.()
    while (this.#running !== undefined) await this.#running.catch(() => undefined)
  }
}

/**
 * Take the lock file of a clone: created exclusively, holding our pid; a lock whose process is gone (a crash, a
 * kill -9) is taken over. False when a live process holds it.
 */
function takeLock(file: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600)
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false
      let pid = NaN
      try {
        pid = Number(readFileSync(file, 'utf8'))
      } catch {
        // Unreadable: treated as stale.
      }
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return false
      rmSync(file, { force: true })
    }
  }
  return false
}

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}
