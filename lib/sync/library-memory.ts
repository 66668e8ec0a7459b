/**
 * The user's own memory of team profiles, as it travels between the user's machines. A team profile's text is the
 * team's: it is never written into the personal repository (it may be a company's, and the personal remote a
 * public host; and two machines pulling the library at different moments would fight over its fields). What is
 * the user's — the facts and their history saved in conversations with it — travels as one file per team profile,
 * `team-memory/<profile id>.jsonl` (the id names the library and the profile), one item a line as a profile's
 * `memory.jsonl`, so one new fact is one line more. The compressed summary of that memory is the user's too: it is
 * the file's first line, `{"summary": …}`, when there is one (a profile's own summary travels in its `profile.md`,
 * which a team profile does not write), so a compression is a diff of the lines it changed, and a file without a
 * summary reads as before.
 *
 * On a machine that does not follow that library the memory is kept aside, in `<sync folder>/library-memory/<profile
 * id>.jsonl` (the same folder a removed library's memory goes to): the personal sync reads those files as this
 * machine's version (so it never deletes what it cannot show), writes what it pulls there, and the library brings
 * them in when it is added. One lock per sync folder orders the kept files against the store's commands: a pull
 * of the library and a pull of the personal repository never hand the same profile's memory over at once.
 *
 * It never touches a team's own repository, and it reads no file outside the kept folder.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { HISTORY_LIMITS, LIMITS, type MemoryWrite, type Profile } from '../state/model.ts'
import { MemoryInput } from '../state/schema-state.ts'
import { invalid, isRecord, parse } from '../validate/core.ts'
import { checkMemoryLines, memoryLine, memoryLines, type SyncedUser } from './layout.ts'
import { mergeMemory, type MergeContext } from './merge.ts'
import type { Repo, TreeEntry } from './repo.ts'
import { blobId } from './file-text.ts'

/** The folder of the personal repository holding the user's memory of team profiles. */
const TEAM_DIR = 'team-memory'
/** A team profile's id in the store: `t-`, its library's key, a key of its own (lib/sync/library.ts). */
const TEAM_ID = /^t-[0-9a-f]{10}-[0-9a-f]{12}$/
/** The bounds of one memory file (a profile's). */
const BOUNDS = { items: LIMITS.memoryItems, entries: HISTORY_LIMITS.entries }

/** The path of a team profile's memory in the personal repository. */
export function teamMemoryPath(id: string): string {
  return `${TEAM_DIR}/${id}.jsonl`
}

/** The team profile a path of the personal repository holds the memory of, or undefined for any other path. */
export function teamIdOfPath(path: string): string | undefined {
  if (!path.startsWith(`${TEAM_DIR}/`) || !path.endsWith('.jsonl')) return undefined
  const id = path.slice(TEAM_DIR.length + 1, -'.jsonl'.length)
  return TEAM_ID.test(id) ? id : undefined
}

/** The user's memory of one team profile: its summary, items and history. */
export interface TeamMemory extends SyncedUser {
  summary: string
}

/** A team memory file's text: the summary's line when there is a summary, then the items and history. */
export function teamMemoryText(m: TeamMemory): string {
  const rest = memoryLines(m.items, m.history)
  return m.summary === '' ? rest : `${JSON.stringify({ summary: m.summary })}\n${rest}`
}

/**
 * A team memory file's text read within a profile's bounds (the summary's line checked by the schema a memory
 * arrives by); refused naming the path and line.
 */
export function readTeamMemory(text: string, path: string): TeamMemory {
  const lines = text.split('\n', BOUNDS.items + BOUNDS.entries + 3)
  if (lines.at(-1) === '') lines.pop()
  let summary = ''
  let first = 0
  if (lines[0]?.startsWith('{"summary":') === true) {
    let value: unknown
    try {
      value = JSON.parse(lines[0])
    } catch {
      throw invalid(`${path}:1`, 'is not JSON')
    }
    if (!isRecord(value) || Object.keys(value).length !== 1) throw invalid(`${path}:1`, 'must hold the summary alone')
    summary = parse(MemoryInput, value, `${path}:1`).summary ?? ''
    first = 1
  }
  const rest = lines.slice(first)
  if (rest.length > BOUNDS.items + BOUNDS.entries)
    throw invalid(
      path,
      `has more than ${BOUNDS.items + BOUNDS.entries} lines, the limit`,
      BOUNDS.items + BOUNDS.entries,
    )
  const at = (i: number) => `${path}:${i + first + 1}`
  const read = rest.map((line, i) => memoryLine(line, at(i)))
  return { summary, ...checkMemoryLines(read, path, BOUNDS, at) }
}

/** A kept file's text and git blob id, with what it was read from. */
interface KeptFile {
  mtimeMs: number
  size: number
  text: string
  id: string
}

/** The memory of team profiles this machine does not show, kept aside in one folder; one lock for its handovers. */
export class KeptMemory {
  readonly dir: string
  #files = new Map<string, KeptFile>()
  #tail: Promise<unknown> = Promise.resolve()

  constructor(dir: string) {
    this.dir = dir
  }

  /** Run `job` when every earlier one is done (a failure of one does not stop the next). */
  exclusive<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(job, job)
    this.#tail = run.catch(() => undefined)
    return run
  }

  /** The kept memory of a team profile, or undefined when none is kept (or the file is unusable). */
  read(id: string): TeamMemory | undefined {
    const text = this.#text(id)
    if (text === undefined) return undefined
    try {
      return readTeamMemory(text, `${id}.jsonl`)
    } catch {
      return undefined
    }
  }

  /** Keep a team profile's memory (nothing kept when it holds neither summary, item nor history). */
  write(id: string, memory: TeamMemory): void {
    const text = teamMemoryText(memory)
    if (text === '') return this.remove(id)
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    const file = join(this.dir, `${id}.jsonl`)
    writeFileSync(`${file}.tmp`, text, { mode: 0o600 })
    renameSync(`${file}.tmp`, file)
  }

  /** Forget a team profile's kept memory (it is the profile's again, or was never kept). */
  remove(id: string): void {
    rmSync(join(this.dir, `${id}.jsonl`), { force: true })
  }

  /**
   * The kept files as the personal repository holds them, by path, for the team profiles `shown` does not hold: each
   * file read again only when it changed on the disk.
   */
  files(shown: ReadonlySet<string>): Map<string, { text: string; id: string }> {
    const out = new Map<string, { text: string; id: string }>()
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return out
    }
    const seen = new Map<string, KeptFile>()
    for (const name of names) {
      const id = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : ''
      if (!TEAM_ID.test(id) || shown.has(id)) continue
      const f = this.#fresh(id)
      if (f === undefined) continue
      seen.set(id, f)
      out.set(teamMemoryPath(id), { text: f.text, id: f.id })
    }
    this.#files = seen
    return out
  }

  #fresh(id: string): KeptFile | undefined {
    const file = join(this.dir, `${id}.jsonl`)
    try {
      const st = statSync(file)
      const was = this.#files.get(id)
      if (was !== undefined && was.mtimeMs === st.mtimeMs && was.size === st.size) return was
      const text = readFileSync(file, 'utf8')
      return { mtimeMs: st.mtimeMs, size: st.size, text, id: blobId(text) }
    } catch {
      return undefined
    }
  }

  #text(id: string): string | undefined {
    try {
      return readFileSync(join(this.dir, `${id}.jsonl`), 'utf8')
    } catch {
      return undefined
    }
  }
}

const keptByRoot = new Map<string, KeptMemory>()

/** The kept memory of one sync folder, shared by its personal sync and its team libraries. */
export function keptMemoryAt(syncRoot: string): KeptMemory {
  let k = keptByRoot.get(syncRoot)
  if (k === undefined) keptByRoot.set(syncRoot, (k = new KeptMemory(join(syncRoot, 'library-memory'))))
  return k
}

/** A team profile's memory file as the personal repository holds it (undefined: nothing to hold). */
export function teamMemoryFile(p: Profile, history: readonly MemoryWrite[]): string | undefined {
  const text = teamMemoryText({ summary: p.memory.summary, items: p.memory.items, history })
  return text === '' ? undefined : text
}

/** One team profile's memory taken in from the remote: this machine's version and the one to hold now. */
export interface TeamMemoryChange {
  id: string
  ours: TeamMemory
  merged: TeamMemory
}

/**
 * The team memory files among a pull's changed paths, merged like a profile's memory and summary (both sides' facts
 * kept, a deletion travels, a clash keeps the newer and puts the other in the history). `fastForward`: ours is the base.
 * A file that breaks a rule is refused (a StoreError naming the path and line).
 */
export async function mergeTeamMemory(
  repo: Repo,
  trees: { base: Map<string, TreeEntry>; ours: Map<string, TreeEntry>; theirs: Map<string, TreeEntry> },
  paths: Iterable<string>,
  fastForward: boolean,
  ctx: MergeContext,
): Promise<TeamMemoryChange[]> {
  const ids = new Set<string>()
  for (const p of paths) {
    const id = teamIdOfPath(p)
    if (id !== undefined) ids.add(id)
  }
  const out: TeamMemoryChange[] = []
  for (const id of [...ids].sort()) {
    const path = teamMemoryPath(id)
    const side = async (tree: Map<string, TreeEntry>) =>
      readTeamMemory((await repo.read(tree, [path])).get(path) ?? '', path)
    const ours = await side(trees.ours)
    const theirs = await side(trees.theirs)
    if (fastForward) {
      out.push({ id, ours, merged: theirs })
      continue
    }
    const m = mergeMemory(await side(trees.base), ours, theirs, ctx, BOUNDS.items)
    out.push({ id, ours, merged: m.merged })
  }
  return out
}
