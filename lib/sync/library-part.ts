/**
 * The team libraries of this machine: their settings (`<data dir>/sync/libraries.json`: remote, branch, name — no
 * secret), one bare clone each (`<data dir>/sync/library-<id>`), a pull on an interval and on "Sync now", one at a
 * time per library, and adding and removing them. Removing a library takes its profiles out of the list but keeps
 * the user's own memory of each aside (lib/sync/library-memory.ts), which comes back if the same library is added
 * again. A team profile in the list whose library this machine does not follow (an older version's personal sync
 * brought it) leaves the list the same way at start. A pull's git calls wait for the turns under way, as the personal
 * sync's do. A failure is kept as the library's status and retried on the next interval; it never throws into the
 * host.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ProfileStore } from '../store/store.ts'
import type { Log } from '../shared/log.ts'
import {
  defaultLibraryName,
  LIBRARY_LIMIT,
  LIBRARY_NAME_LIMIT,
  type LibrariesReply,
  type LibrarySettings,
  type LibraryStatus,
} from '../shared/library.ts'
import { DEFAULT_BRANCH, syncSettingsRefusal } from '../shared/sync.ts'
import { brokeRule, invalid } from '../validate/state.ts'
import { errorText } from '../shared/errors.ts'
import { keptMemoryAt, type KeptMemory, type TeamMemory } from './library-memory.ts'
import { problemOf } from './engine.ts'
import { libraryId, libraryRepo, pullLibrary } from './library.ts'
import { QUIET_WAIT_MS, type TurnQuiet } from './turn-quiet.ts'

/** What the routes use of the team libraries. */
export interface LibraryPart {
  reply(): LibrariesReply
  /** Add a library (remote, branch, name) and pull it once; refused naming the field when malformed or already there. */
  add(input: { remote: string; branch?: string; name?: string }): Promise<LibrariesReply>
  /** Remove a library: its profiles leave the list, the user's memory of them is kept. */
  remove(id: string): Promise<LibrariesReply>
  /** Pull every library now. */
  now(): Promise<LibrariesReply>
  stop(): Promise<void>
}

/** The settings file's libraries (none when missing or unusable, said in the log); `read`: the file said it. */
function readLibraries(file: string, log: Pick<Log, 'warn'>): { libraries: LibrarySettings[]; read: boolean } {
  let raw: string
  try {
    raw = readFileSync(file, 'utf8')
  } catch (e) {
    return { libraries: [], read: (e as NodeJS.ErrnoException).code === 'ENOENT' }
  }
  try {
    const list: unknown = JSON.parse(raw)
    if (!Array.isArray(list)) throw new Error('must be an array')
    const libraries = list.slice(0, LIBRARY_LIMIT).flatMap((o: Partial<LibrarySettings>) => {
      if (typeof o?.remote !== 'string' || typeof o.branch !== 'string' || typeof o.name !== 'string') return []
      const s = { remote: o.remote.trim(), branch: o.branch }
      if (s.remote === '' || syncSettingsRefusal(s) !== undefined) return []
      return [{ ...s, id: libraryId(s.remote, s.branch), name: [...o.name].slice(0, LIBRARY_NAME_LIMIT).join('') }]
    })
    return { libraries, read: true }
  } catch (e) {
    log.warn(`agent-profiles: sync: the team libraries in ${file} are not usable (${errorText(e)}); none is followed`)
    return { libraries: [], read: false }
  }
}

/** An empty status, for a library not pulled yet. */
const freshStatus = (): LibraryStatus => ({ running: false, failures: 0, profiles: 0 })

/** The add form's input checked: remote and branch trimmed, the typed name cleaned; refused naming the field. */
function checkedInput(input: { remote: string; branch?: string; name?: string }): {
  remote: string
  branch: string
  typed: string
} {
  const remote = input.remote.trim()
  const branch = (input.branch ?? '').trim() || DEFAULT_BRANCH
  if (remote === '') throw invalid('remote', 'is empty: name the team repository')
  const refusal = syncSettingsRefusal({ remote, branch })
  if (refusal !== undefined)
    throw invalid(
      refusal.field,
      refusal.rule === 'branch.form'
        ? 'is not a branch name'
        : 'is not a git remote (ssh://, https://, user@host:path or an absolute path)',
    )
  const typed = (input.name ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim()
  if ([...typed].length > LIBRARY_NAME_LIMIT)
    throw invalid('name', `is longer than ${LIBRARY_NAME_LIMIT} characters`, LIBRARY_NAME_LIMIT)
  return { remote, branch, typed }
}

/** The team libraries of one sync folder: their settings, statuses, pulls in flight and the interval's timer. */
class TeamLibraries implements LibraryPart {
  readonly #store: ProfileStore
  readonly #root: string
  readonly #log: Pick<Log, 'warn'>
  readonly #file: string
  readonly #kept: KeptMemory
  #libraries: LibrarySettings[]
  readonly #status = new Map<string, LibraryStatus>()
  readonly #running = new Map<string, Promise<void>>()
  #stopped = false
  readonly #timer: ReturnType<typeof setInterval>
  readonly #quiet: Pick<TurnQuiet, 'settled'> | undefined
  /** Aborted by {@link stop}: a pull waiting for a turn to end waits no longer. */
  readonly #halt = new AbortController()
  /** A pull's git calls (and the reading of their answers) wait for the turns under way, as the personal sync's do. */
  readonly #between = async (): Promise<void> => this.#quiet?.settled(QUIET_WAIT_MS, this.#halt.signal)

  constructor(
    store: ProfileStore,
    root: string,
    log: Pick<Log, 'warn'>,
    intervalMs: number,
    quiet: Pick<TurnQuiet, 'settled'> | undefined,
  ) {
    this.#store = store
    this.#quiet = quiet
    this.#root = root
    this.#log = log
    this.#file = join(root, 'libraries.json')
    this.#kept = keptMemoryAt(root)
    const { libraries, read } = readLibraries(this.#file, log)
    this.#libraries = libraries
    this.#timer = setInterval(() => {
      if (!this.#stopped) void this.now()
    }, intervalMs)
    this.#timer.unref()
    // Only when the settings were read: a file that could not be read says nothing of which libraries are followed.
    if (read) this.#running.set('', this.#dropStrays())
    if (this.#libraries.length > 0) void this.now()
  }

  reply(): LibrariesReply {
    return { libraries: this.#libraries.map((l) => ({ ...l, status: { ...this.#statusOf(l.id) } })) }
  }

  async now(): Promise<LibrariesReply> {
    // The start's clean-up of team profiles whose library is not followed comes first.
    await this.#running.get('')
    await Promise.all(this.#libraries.map((l) => this.#pull(l)))
    return this.reply()
  }

  async add(input: { remote: string; branch?: string; name?: string }): Promise<LibrariesReply> {
    const { remote, branch, typed } = checkedInput(input)
    const id = libraryId(remote, branch)
    if (this.#libraries.some((l) => l.id === id))
      throw brokeRule('conflict', 'remote: this library is already added', 'remote', 'library.added')
    if (this.#libraries.length >= LIBRARY_LIMIT)
      throw invalid('libraries', `already holds ${LIBRARY_LIMIT} libraries, the limit`, LIBRARY_LIMIT)
    const lib: LibrarySettings = { id, remote, branch, name: typed === '' ? defaultLibraryName(remote) : typed }
    this.#libraries = [...this.#libraries, lib]
    this.#save()
    await this.#pull(lib)
    return this.reply()
  }

  async remove(id: string): Promise<LibrariesReply> {
    const lib = this.#libraries.find((l) => l.id === id)
    if (lib === undefined) throw invalid('id', 'names no team library of this machine')
    await this.#running.get(id)
    await this.#takeOut(id, lib.name)
    this.#libraries = this.#libraries.filter((l) => l.id !== id)
    this.#status.delete(id)
    this.#save()
    rmSync(join(this.#root, `library-${id}`), { recursive: true, force: true })
    return this.reply()
  }

  /**
   * Take a library's profiles out of the list, their memory kept aside for when the library comes back: written
   * before the profiles go (a crash between loses nothing), and again from what the command took away (a fact saved
   * while it waited in the queue is kept too). The personal sync sends the kept memory on as it did the profiles'.
   */
  #takeOut(id: string, name: string): Promise<void> {
    return this.#kept.exclusive(async () => {
      const state = this.#store.state
      const profiles = state.profiles.filter((p) => p.library?.id === id)
      this.#keep(profiles.map((p) => ({ id: p.id, ...p.memory, history: state.history?.[p.id] ?? [] })))
      const r = await this.#store.command({ op: 'library.apply', library: { id, name }, profiles: [], remove: true })
      this.#keep(r.gone)
    })
  }

  /** Team profiles of libraries this machine does not follow leave the list, their memory kept (see #takeOut). */
  async #dropStrays(): Promise<void> {
    try {
      const followed = new Set(this.#libraries.map((l) => l.id))
      const strays = new Map<string, string>()
      for (const p of this.#store.state.profiles)
        if (p.library !== undefined && !followed.has(p.library.id)) strays.set(p.library.id, p.library.name)
      for (const [id, name] of strays) await this.#takeOut(id, name)
    } catch (e) {
      this.#log.warn(`agent-profiles: team libraries: a profile of a library not followed stays (${errorText(e)})`)
    } finally {
      this.#running.delete('')
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#halt.abort()
    clearInterval(this.#timer)
    await Promise.all(this.#running.values())
  }

  #statusOf(id: string): LibraryStatus {
    let s = this.#status.get(id)
    if (s === undefined) this.#status.set(id, (s = freshStatus()))
    return s
  }

  /** Keep the memory of profiles leaving the list aside (those with neither summary, item nor history leave no file). */
  #keep(gone: readonly ({ id: string } & TeamMemory)[]): void {
    for (const p of gone) this.#kept.write(p.id, p)
  }

  /** Pull one library, or join the pull of it already under way. */
  #pull(lib: LibrarySettings): Promise<void> {
    const under = this.#running.get(lib.id)
    if (under !== undefined) return under
    const s = this.#statusOf(lib.id)
    s.running = true
    const run = this.#pullOnce(lib, s)
    this.#running.set(lib.id, run)
    return run
  }

  async #pullOnce(lib: LibrarySettings, s: LibraryStatus): Promise<void> {
    try {
      const repo = libraryRepo(join(this.#root, `library-${lib.id}`), lib)
      repo.waitBetween(this.#between)
      const r = await pullLibrary(repo, this.#store, lib, this.#kept)
      s.profiles = r.profiles
      s.lastSync = Date.now()
      delete s.error
      s.failures = 0
    } catch (e) {
      const problem = problemOf(e)
      s.error = problem
      s.failures++
      if (s.failures === 1)
        this.#log.warn(`agent-profiles: team library "${lib.name}": ${problem.key}: ${problem.detail}`)
    } finally {
      s.running = false
      s.lastAttempt = Date.now()
      this.#running.delete(lib.id)
    }
  }

  #save(): void {
    mkdirSync(this.#root, { recursive: true, mode: 0o700 })
    const body = this.#libraries.map(({ remote, branch, name }) => ({ remote, branch, name }))
    writeFileSync(`${this.#file}.tmp`, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 })
    renameSync(`${this.#file}.tmp`, this.#file)
  }
}

/** Start the team libraries of `store` under the sync folder `root`. */
export function installLibraries(
  store: ProfileStore,
  root: string,
  log: Pick<Log, 'warn'>,
  options: { intervalMs?: number; quiet?: Pick<TurnQuiet, 'settled'> } = {},
): LibraryPart {
  return new TeamLibraries(store, root, log, options.intervalMs ?? 300_000, options.quiet)
}
