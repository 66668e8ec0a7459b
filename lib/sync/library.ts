/**
 * One pull of a team library: fetch its branch into a bare clone of its own (the hardened git runner, never a push,
 * never a commit), read every profile folder of the fetched commit (the tree checks refuse symlinks, submodules,
 * paths leaving their folder, too many or too large files before a byte is read; each file is checked by the store's
 * validators), and hand the profiles to the store as one `library.apply` command, which keeps the bounds of a team
 * profile. Only `profile.md` and `profile.json` of each folder are read: a library's `memory.jsonl` and
 * `about-you.jsonl` are never read (a team profile's memory is each user's own, and a library never writes About you).
 * A commit already applied is not read again, so an unchanged library costs one fetch.
 */
import { createHash } from 'node:crypto'
import type { ProfileStore } from '../store/store.ts'
import { LIMITS, type Profile } from '../state/model.ts'
import type { LibrarySettings } from '../shared/library.ts'
import { folderOfPath, PROFILE_FILES, readProfile } from './layout.ts'
import type { KeptMemory } from './library-memory.ts'
import { LAST_REF, REMOTE_REF, Repo, type TreeEntry } from './repo.ts'
import { SyncStop } from './errors.ts'

/** The id a library's profile has in the store: its library's and a hash of its own, so no library reaches another's. */
function teamProfileId(libraryId: string, id: string): string {
  return `t-${libraryId}-${createHash('sha1').update(id).digest('hex').slice(0, 12)}`
}

/** What a pull reads of a tree: its profile folders, and the blob of each `profile.md` and `profile.json` in them. */
function readPart(tree: Map<string, TreeEntry>): Set<string> {
  const out = new Set<string>()
  for (const [path, entry] of tree) {
    const folder = folderOfPath(path)
    if (folder === undefined) continue
    const name = path.slice(folder.length + 1)
    out.add(name === PROFILE_FILES.markdown || name === PROFILE_FILES.json ? `${path} ${entry.id}` : folder)
  }
  return out
}

/** Whether two trees hold the same profile folders with the same profile files (their memory files aside). */
function sameProfiles(a: Map<string, TreeEntry>, b: Map<string, TreeEntry>): boolean {
  const x = readPart(a)
  const y = readPart(b)
  return x.size === y.size && [...x].every((k) => y.has(k))
}

/** The key of a library: the same remote and branch always give the same one. */
export function libraryId(remote: string, branch: string): string {
  return createHash('sha1').update(`${remote.trim()}\n${branch}`).digest('hex').slice(0, 10)
}

/** What one pull did: how many profiles the library holds, and whether the store took in a change. */
export interface LibraryPull {
  profiles: number
  applied: boolean
}

/**
 * Pull `library` into `store` through the clone `repo`. `kept` holds the user's own memory of profiles kept aside
 * (the library was removed, or this machine did not follow it when the memory arrived from the user's other
 * machines): a profile not in the list yet comes with it, and it is forgotten once the profile holds it — read,
 * handed over and forgotten under the kept memory's lock, so the personal sync never writes it meanwhile. Throws
 * GitError, RepoRefusal or SyncStop.
 */
export async function pullLibrary(
  repo: Repo,
  store: ProfileStore,
  library: LibrarySettings,
  kept: Pick<KeptMemory, 'read' | 'remove' | 'exclusive'>,
): Promise<LibraryPull> {
  await repo.ensure()
  await repo.fetch()
  const refs = await repo.refs()
  const remote = refs.get(REMOTE_REF)
  const mine = store.state.profiles.filter((p) => p.library?.id === library.id)
  const named = mine.every((p) => p.library?.name === library.name)
  if (remote !== undefined && remote === refs.get(LAST_REF) && named && mine.length > 0)
    return { profiles: mine.length, applied: false }
  const tree = await repo.tree(remote)
  const folders = new Set<string>()
  for (const path of tree.keys()) {
    const f = folderOfPath(path)
    if (f !== undefined) folders.add(f)
  }
  if (folders.size > LIMITS.profiles)
    throw new SyncStop(
      'bad-file',
      `profiles: has ${folders.size} profile folders, over the limit of ${LIMITS.profiles}`,
    )
  const names = [...folders].flatMap((f) => [`${f}/${PROFILE_FILES.markdown}`, `${f}/${PROFILE_FILES.json}`])
  // A commit whose profile files are those last applied (the team's memory or a README moved, nothing read here)
  // brings the store nothing: it costs the store no command.
  const last = refs.get(LAST_REF)
  if (
    last !== undefined &&
    named &&
    mine.length === folders.size &&
    sameProfiles(tree, await repo.tree(last).catch(() => new Map()))
  ) {
    if (remote !== undefined) await repo.setRef(LAST_REF, remote)
    return { profiles: mine.length, applied: false }
  }
  const texts = await repo.read(tree, names)
  const read: Profile[] = []
  for (const folder of [...folders].sort()) {
    let p: Profile
    try {
      p = readProfile(folder, {
        md: texts.get(`${folder}/${PROFILE_FILES.markdown}`),
        json: texts.get(`${folder}/${PROFILE_FILES.json}`),
      }).profile
    } catch (e) {
      throw new SyncStop('bad-file', (e as Error).message)
    }
    read.push({ ...p, id: teamProfileId(library.id, p.id) })
  }
  const r = await kept.exclusive(async () => {
    const shown = new Set(store.state.profiles.filter((p) => p.library?.id === library.id).map((p) => p.id))
    const history: { id: string; entries: unknown[] }[] = []
    const profiles = read.map((p) => {
      const aside = shown.has(p.id) ? undefined : kept.read(p.id)
      if (aside !== undefined && aside.history.length > 0) history.push({ id: p.id, entries: [...aside.history] })
      return { ...p, memory: { summary: aside?.summary ?? '', items: [...(aside?.items ?? [])] } }
    })
    const applied = await store.command({
      op: 'library.apply',
      library: { id: library.id, name: library.name },
      profiles,
      ...(history.length === 0 ? {} : { history }),
    })
    // The kept memory is the profiles' now.
    for (const p of store.state.profiles) if (p.library?.id === library.id) kept.remove(p.id)
    return applied
  })
  if (remote !== undefined) await repo.setRef(LAST_REF, remote)
  return { profiles: read.length, applied: r.profiles > 0 }
}

/** The clone of one library. */
export function libraryRepo(dir: string, library: LibrarySettings): Repo {
  return new Repo(dir, library.remote, library.branch)
}
