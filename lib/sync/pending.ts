/**
 * How many profiles (About you counted as one, a team profile's memory as one) changed here and are not in the
 * remote's last synced commit yet: the status's `pending`, which every state reply carries. Counted exactly from the
 * files once at the end of each run, by the run and between turns (a pulled profile's memory file is joined and
 * hashed whole there, ~10 ms at 10,000 items, and that hash is kept for the next run's commit); between runs, what
 * changed is found by the store's objects (its snapshots are immutable and share every profile that did not change),
 * so a reply never writes or hashes a memory file. It never writes anything.
 */
import { USER_HISTORY, type Profile, type State } from '../state/model.ts'
import { folderOf, folderOfPath, USER_FILE } from './layout.ts'
import { teamIdOfPath, teamMemoryPath } from './library-memory.ts'
import type { TreeEntry } from './repo.ts'
import type { StateFiles } from './state-files.ts'

/** The group a path belongs to: its profile folder, About you, or a team profile's memory file. */
function groupOf(path: string): string | undefined {
  const folder = folderOfPath(path)
  if (folder !== undefined) return folder
  return path === USER_FILE || teamIdOfPath(path) !== undefined ? path : undefined
}

/** The group of a profile (as {@link groupOf} names it). */
const profileGroup = (p: Profile) => (p.library === undefined ? folderOf(p.id) : teamMemoryPath(p.id))

/** The groups whose files differ between this machine's files and a commit's tree. */
function changedGroups(mine: ReadonlyMap<string, { id: string }>, tree: ReadonlyMap<string, TreeEntry>): Set<string> {
  const out = new Set<string>()
  const add = (path: string) => {
    const g = groupOf(path)
    if (g !== undefined) out.add(g)
  }
  for (const [path, f] of mine) if (tree.get(path)?.id !== f.id) add(path)
  for (const path of tree.keys()) if (!mine.has(path)) add(path)
  return out
}

/** The groups whose store objects changed from `a` to `b` (a profile, its history, About you). */
function movedGroups(a: State, b: State): string[] {
  const out: string[] = []
  const was = new Map(a.profiles.map((p) => [p.id, p]))
  for (const p of b.profiles)
    if (was.get(p.id) !== p || a.history?.[p.id] !== b.history?.[p.id]) out.push(profileGroup(p))
  const ids = new Set(b.profiles.map((p) => p.id))
  for (const p of a.profiles) if (!ids.has(p.id)) out.push(profileGroup(p))
  if (a.user !== b.user || a.history?.[USER_HISTORY] !== b.history?.[USER_HISTORY]) out.push(USER_FILE)
  return out
}

/** The pending count of one sync clone. */
export class PendingCount {
  readonly #files: StateFiles
  /** The last exact look: the state it read and the groups whose files differed from the synced commit's. */
  #look: { state: State; groups: Set<string> } | undefined

  constructor(files: StateFiles) {
    this.#files = files
  }

  /**
   * Count exactly: `state`'s files against `tree`, the files of the last synced commit. It writes and hashes the
   * profiles whose objects the state files have not seen (a pull's), so the run calls it between turns.
   */
  look(state: State, tree: ReadonlyMap<string, TreeEntry>): void {
    this.#look = { state, groups: changedGroups(this.#files.of(state), tree) }
  }

  /** The count for `state` (undefined before the first look): the last look's, plus what the store changed since. */
  of(state: State): number | undefined {
    const look = this.#look
    if (look === undefined) return undefined
    if (look.state === state) return look.groups.size
    // What changed since the exact look is added by the objects; the next run's look makes it exact again.
    return new Set([...look.groups, ...movedGroups(look.state, state)]).size
  }
}
