/**
 * The host's side of the git helper process (git-helper.ts): started on the first git call, not with the plugin (a
 * host that never syncs never starts it), with the user's environment so that git finds their configuration, ssh
 * agent and credential helper as it would for them; at the lowest CPU priority, which the git processes it starts
 * inherit. Calls for one repository run one at a time, in the order asked. A helper that dies (killed, out of memory)
 * fails the calls it was running, which the sync retries as any failed call, and the next call starts a new one;
 * a helper that stops answering is killed past the call's own time limit. It ends with the host: killed at exit, and it
 * ends itself when its channel closes (a host killed with -9). Where no helper can start (its file is missing), git
 * is spawned from the host as before. It never decides what git runs: git.ts does.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { setPriority } from 'node:os'
import { fileURLToPath } from 'node:url'
import { GIT_NICENESS, spawnGit, type SpawnJob, type SpawnResult } from './git-spawn.ts'
import { pauseGit } from './git-pause.ts'
import { KeyedQueue } from '../runtime/keyed-queue.ts'
import { entryScript } from '../runtime/entry-script.ts'

/** Milliseconds past a call's own time limit before a helper that has not answered is taken for hung. */
const GRACE_MS = 10_000

/** The helper's script next to this module: `dist/git-helper.js` in the built plugin, the .ts source in tests. */
const helperScript = (): string => fileURLToPath(entryScript('git-helper', import.meta.url))

interface Pending {
  resolve: (r: SpawnResult) => void
  timer: NodeJS.Timeout
}

/** The helper process and the calls waiting on it. */
class GitHelper {
  readonly #script = helperScript()
  #child: ChildProcess | undefined
  #next = 1
  readonly #pending = new Map<number, Pending>()
  /** Per repository, one call at a time: the next one starts when the last one asked has ended. */
  readonly #queues = new KeyedQueue()
  #exitHook = false
  /** The helper running now was told that turns began and not yet that they ended. */
  #told = false

  /** Run one git process for the repository `dir`, after the calls for it asked before. Never rejects. */
  run(dir: string, job: SpawnJob): Promise<SpawnResult> {
    return this.#queues.run(dir, () => this.#send(job))
  }

  #send(job: SpawnJob): Promise<SpawnResult> {
    const child = this.#start()
    if (child === undefined) return spawnGit(job)
    const id = this.#next++
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        // The helper has not answered long after git's own limit: it is stuck; a new one serves the next call.
        child.kill('SIGKILL')
        this.#settle(id, { failure: 'timeout', detail: `the git helper did not answer ${job.name} in time` })
      }, job.timeoutMs + GRACE_MS)
      this.#pending.set(id, { resolve, timer })
      this.#hold(child)
      try {
        child.send({ ...job, id })
      } catch (e) {
        this.#settle(id, { failure: 'failed', detail: `the git helper could not be reached: ${(e as Error).message}` })
      }
    })
  }

  #settle(id: number, result: SpawnResult): void {
    const p = this.#pending.get(id)
    if (p === undefined) return
    this.#pending.delete(id)
    clearTimeout(p.timer)
    if (this.#child !== undefined) this.#hold(this.#child)
    p.resolve(result)
  }

  /** Keep the host alive while the helper owes answers, and never because of an idle helper. */
  #hold(child: ChildProcess): void {
    if (this.#pending.size > 0) {
      child.ref()
      child.channel?.ref()
    } else {
      child.unref()
      child.channel?.unref()
    }
  }

  /**
   * Tell the helper that turns began (`true`: it stops the git processes under way) or ended (it continues them). Only
   * when it has a call under way: a turn begins on this thread, and a message (serialized and written to the
   * channel, ~0.3 ms) to a helper with nothing to stop is work for the turn with no use; the end of the turns is told
   * only to a helper told of their beginning. A call that starts while the turns run is not stopped either way.
   */
  pause(pause: boolean): void {
    // Calls the host runs itself (no helper could start) pause here.
    pauseGit(pause)
    const child = this.#child
    if (child === undefined || !child.connected) return
    if (pause ? this.#pending.size === 0 : !this.#told) return
    this.#told = pause
    try {
      child.send({ pause })
    } catch {
      // A helper going away kills its git processes itself.
    }
  }

  /** The running helper, started when there is none; undefined when none can start. */
  #start(): ChildProcess | undefined {
    if (this.#child !== undefined) return this.#child
    if (!existsSync(this.#script)) return undefined
    const child = fork(this.#script, [], {
      env: process.env,
      execArgv: this.#script.endsWith('.ts') ? ['--experimental-strip-types', '--no-warnings'] : [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    })
    this.#child = child
    this.#told = false
    if (child.pid !== undefined)
      try {
        setPriority(child.pid, GIT_NICENESS)
      } catch {
        // A system that refuses runs the helper (and its git) at the usual priority.
      }
    child.on('message', (m: { id: number; result: SpawnResult }) => this.#settle(m.id, m.result))
    const gone = (why: string) => {
      if (this.#child !== child) return
      this.#child = undefined
      for (const id of [...this.#pending.keys()])
        this.#settle(id, { failure: 'failed', detail: `the git helper process stopped (${why})` })
    }
    child.on('exit', (code, signal) => gone(signal ?? `exit ${code}`))
    child.on('error', (e) => gone(e.message))
    if (!this.#exitHook) {
      this.#exitHook = true
      process.on('exit', () => this.#child?.kill('SIGKILL'))
    }
    this.#hold(child)
    return child
  }
}

const helper = new GitHelper()

/** Run one git process for the repository `dir` in the helper process. Never rejects. */
export function runGit(dir: string, job: SpawnJob): Promise<SpawnResult> {
  return helper.run(dir, job)
}

/**
 * Turns began (`true`) or all ended (`false`): the sync's git processes under way are stopped until they end, each
 * for a bounded time in all (git-pause.ts). Never throws.
 */
export function pauseSyncGit(pause: boolean): void {
  helper.pause(pause)
}
