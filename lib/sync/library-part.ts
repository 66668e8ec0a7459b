/**
 * The team libraries of this machine: their settings (`<data dir>/sync/libraries.json`: remote, branch, name — no
 * secret), one bare clone each (`<data dir>/sync/library-<id>`), a pull on an interval and on "Sync now", one at a
 * time per library, and adding and removing them. Removing a library takes its profiles out of the list but keeps
 * the user's own memory of each (`<data dir>/sync/library-memory/<profile id>.jsonl`), which comes back if the same
 * library is added again. A failure is kept as the library's status and retried on the next interval; it never
 * throws into the host.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ProfileStore } from '../store/store.ts'
import type { Log } from '../shared/log.ts'
import { LIMITS, type MemoryItem } from '../state/model.ts'
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
import { memoryLines, readMemoryLines } from './layout.ts'
import { problemOf } from './engine.ts'
import { libraryId, libraryRepo, pullLibrary } from './library.ts'

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

/** The settings file's libraries (none when missing or unusable, said in the log). */
function readLibraries(file: string, log: Pick<Log, 'warn'>): LibrarySettings[] {
  let raw: string
  try {
    raw = readFileSync(file, 'utf8')
  } catch {
    return []
  }
  try {
    const list: unknown = JSON.parse(raw)
    if (!Array.isArray(list)) throw new Error('must be an array')
    return list.slice(0, LIBRARY_LIMIT).flatMap((o: Partial<LibrarySettings>) => {
      if (typeof o?.remote !== 'string' || typeof o.branch !== 'string' || typeof o.name !== 'string') return []
      const s = { remote: o.remote.trim(), branch: o.branch }
      if (s.remote === '' || syncSettingsRefusal(s) !== undefined) return []
      return [{ ...s, id: libraryId(s.remote, s.branch), name: [...o.name].slice(0, LIBRARY_NAME_LIMIT).join('') }]
    })
  } catch (e) {
    log.warn(`agent-profiles: sync: the team libraries in ${file} are not usable (${errorText(e)}); none is followed`)
    return []
  }
}

/** Start the team libraries of `store` under the sync folder `root`. */
export function installLibraries(
  store: ProfileStore,
  root: string,
  log: Pick<Log, 'warn'>,
  options: { intervalMs?: number } = {},
): LibraryPart {
  const file = join(root, 'libraries.json')
  const keptDir = join(root, 'library-memory')
  let libraries = readLibraries(file, log)
  const status = new Map<string, LibraryStatus>()
  const running = new Map<string, Promise<void>>()
  let stopped = false
  const statusOf = (id: string) => {
    let s = status.get(id)
    if (s === undefined) status.set(id, (s = { running: false, failures: 0, profiles: 0 }))
    return s
  }
  const kept = (pid: string): MemoryItem[] | undefined => {
    try {
      const text = readFileSync(join(keptDir, `${pid}.jsonl`), 'utf8')
      return readMemoryLines(text, `${pid}.jsonl`, { items: LIMITS.memoryItems, entries: 0 }).items
    } catch {
      return undefined
    }
  }
  const pull = (lib: LibrarySettings): Promise<void> => {
    const under = running.get(lib.id)
    if (under !== undefined) return under
    const s = statusOf(lib.id)
    s.running = true
    const run = (async () => {
      try {
        const r = await pullLibrary(libraryRepo(join(root, `library-${lib.id}`), lib), store, lib, kept)
        s.profiles = r.profiles
        s.lastSync = Date.now()
        delete s.error
        s.failures = 0
        // The kept memory is the profiles' again.
        for (const p of store.state.profiles)
          if (p.library?.id === lib.id) rmSync(join(keptDir, `${p.id}.jsonl`), { force: true })
      } catch (e) {
        const problem = problemOf(e)
        s.error = problem
        s.failures++
        if (s.failures === 1) log.warn(`agent-profiles: team library "${lib.name}": ${problem.key}: ${problem.detail}`)
      } finally {
        s.running = false
        s.lastAttempt = Date.now()
        running.delete(lib.id)
      }
    })()
    running.set(lib.id, run)
    return run
  }
  const now = async () => {
    await Promise.all(libraries.map(pull))
    return reply()
  }
  const save = () => {
    mkdirSync(root, { recursive: true, mode: 0o700 })
    const body = libraries.map(({ remote, branch, name }) => ({ remote, branch, name }))
    writeFileSync(`${file}.tmp`, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 })
    renameSync(`${file}.tmp`, file)
  }
  const reply = (): LibrariesReply => ({
    libraries: libraries.map((l) => ({ ...l, status: { ...statusOf(l.id) } })),
  })
  const timer = setInterval(() => {
    if (!stopped) void now()
  }, options.intervalMs ?? 300_000)
  timer.unref()
  if (libraries.length > 0) void now()
  return {
    reply,
    now,
    async add(input) {
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
      const id = libraryId(remote, branch)
      if (libraries.some((l) => l.id === id))
        throw brokeRule('conflict', 'remote: this library is already added', 'remote', 'library.added')
      if (libraries.length >= LIBRARY_LIMIT)
        throw invalid('libraries', `already holds ${LIBRARY_LIMIT} libraries, the limit`, LIBRARY_LIMIT)
      const lib: LibrarySettings = { id, remote, branch, name: typed === '' ? defaultLibraryName(remote) : typed }
      libraries = [...libraries, lib]
      save()
      await pull(lib)
      return reply()
    },
    async remove(id) {
      const lib = libraries.find((l) => l.id === id)
      if (lib === undefined) throw invalid('id', 'names no team library of this machine')
      await running.get(id)
      // The user's own memory of the library's profiles stays on the disk, for when the library comes back: written
      // before the profiles go (a crash between loses nothing), and again from what the command took away (a fact
      // saved while it waited in the queue is kept too).
      mkdirSync(keptDir, { recursive: true, mode: 0o700 })
      const keep = (gone: readonly { id: string; items: MemoryItem[] }[]) => {
        for (const p of gone)
          if (p.items.length > 0)
            writeFileSync(join(keptDir, `${p.id}.jsonl`), memoryLines(p.items, []), { mode: 0o600 })
      }
      keep(store.state.profiles.filter((p) => p.library?.id === id).map((p) => ({ id: p.id, items: p.memory.items })))
      const r = await store.command({
        op: 'library.apply',
        library: { id, name: lib.name },
        profiles: [],
        remove: true,
      })
      keep(r.gone)
      libraries = libraries.filter((l) => l.id !== id)
      status.delete(id)
      save()
      rmSync(join(root, `library-${id}`), { recursive: true, force: true })
      return reply()
    },
    async stop() {
      stopped = true
      clearInterval(timer)
      await Promise.all(running.values())
    },
  }
}
