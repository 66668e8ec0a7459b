/**
 * One sync of the store with its repository: fetch, refuse a rewritten remote, commit what this machine changed,
 * take in what the remote has (fast-forward, or a three-way merge by merge.ts over the files of the merge base and
 * both sides), apply that to the store as one `sync.apply` command, push. Local work is committed to the clone before
 * anything can fail on the network, so it is never lost; the store changes only through its command, after the
 * merge is complete. It reads only the folders that changed, so its cost follows the change.
 */
import type { ProfileStore } from '../store/store.ts'
import {
  folderOf,
  folderOfPath,
  memoryLines,
  profileFiles,
  readProfile,
  readUser,
  PROFILE_FILES,
  USER_FILE,
  type SyncedProfile,
  type SyncedUser,
} from './layout.ts'
import { mergeProfile, mergeUser, type MergeContext, type MergeNote } from './merge.ts'
import { commitMessage } from './message.ts'
import { profileDelta, userDelta, type ProfileDelta } from './pull.ts'
import { HEAD_REF, LAST_REF, REMOTE_REF, type Repo, type TreeEntry } from './repo.ts'
import type { FileText } from './file-text.ts'
import type { StateFiles } from './state-files.ts'
import { pullByLines } from './pull-lines.ts'
import {
  mergeTeamMemory,
  teamIdOfPath,
  teamMemoryPath,
  teamMemoryText,
  type TeamMemoryChange,
} from './library-memory.ts'
import { StoreError } from '../shared/errors.ts'
import { SyncStop } from './errors.ts'

/** What one run did. */
export interface RunOutcome {
  /** A commit of this machine's changes was made. */
  committed: boolean
  /** Profiles (and the user layer) the store took in from the remote. */
  pulled: number
  /** The commit pushed to the remote (undefined: nothing was pushed). */
  pushed: string | undefined
  notes: MergeNote[]
}

/** The files of one folder a tree holds, read. */
async function folderFiles(repo: Repo, tree: Map<string, TreeEntry>, folder: string) {
  const names = Object.values(PROFILE_FILES).map((n) => `${folder}/${n}`)
  const t = await repo.read(tree, names)
  return { md: t.get(names[0]!), json: t.get(names[1]!), memory: t.get(names[2]!) }
}

/** One side's version of a profile folder (undefined: not there), refused naming the file when it breaks a rule. */
async function versionOf(
  repo: Repo,
  tree: Map<string, TreeEntry>,
  folder: string,
  updatedAt: number,
): Promise<SyncedProfile | undefined> {
  const files = await folderFiles(repo, tree, folder)
  if (files.json === undefined && files.md === undefined && files.memory === undefined) return undefined
  try {
    return readProfile(folder, files, updatedAt)
  } catch (e) {
    throw new SyncStop('bad-file', (e as Error).message)
  }
}

/** The profile folders and whether the user file are among paths. */
function groups(paths: Iterable<string>): { folders: Set<string>; user: boolean } {
  const folders = new Set<string>()
  let user = false
  for (const p of paths) {
    const f = folderOfPath(p)
    if (f !== undefined) folders.add(f)
    else if (p === USER_FILE) user = true
  }
  return { folders, user }
}

/** Whether a path is one a sync writes (a file elsewhere in the repository is left as it is). */
const synced = (path: string) =>
  folderOfPath(path) !== undefined || path === USER_FILE || teamIdOfPath(path) !== undefined

/**
 * Commit what this machine changed (its files against our last commit `head`) and answer the commit and its files.
 * The message counts what changed from the texts at `head`: those this process committed are still in `files`, so
 * only a file it did not write (a pull's) is read back from the clone. The host's own work here (each changed
 * profile's files written and hashed, then the message's comparison of the changed texts) goes in steps, `step`
 * awaited before each: the longest thing a run does on the host's thread, a turn arriving during it waits for one step.
 */
async function commitLocal(
  repo: Repo,
  state: ProfileStore['state'],
  files: StateFiles,
  head: string | undefined,
  step: () => Promise<void>,
): Promise<{ head: string | undefined; tree: Map<string, TreeEntry>; committed: boolean }> {
  const tree = await repo.tree(head)
  const mine = await files.ofStepwise(state, step)
  const changes = new Map<string, FileText | undefined>()
  for (const [path, f] of mine) if (tree.get(path)?.id !== f.id) changes.set(path, f.text)
  for (const path of tree.keys()) if (!mine.has(path) && synced(path)) changes.set(path, undefined)
  if (changes.size === 0) return { head, tree, committed: false }
  const was = new Map<string, FileText | undefined>()
  const unknown: string[] = []
  for (const p of changes.keys()) {
    const known = files.committedText(p, tree.get(p)?.id)
    if (known === undefined && tree.has(p)) unknown.push(p)
    else was.set(p, known)
  }
  for (const [p, text] of await repo.read(tree, unknown)) was.set(p, text)
  await step()
  const names = new Map(
    state.profiles.map((p) => [p.library === undefined ? folderOf(p.id) : teamMemoryPath(p.id), p.name]),
  )
  const message = commitMessage(was, changes, (f) => names.get(f))
  const next = await repo.commit(head, changes, head === undefined ? [] : [head], message)
  await repo.setRef(HEAD_REF, next, head)
  files.committed(changes, mine)
  return { head: next, tree: await repo.tree(next), committed: true }
}

/** What one pull reads and merges with: the clone, the store's state, the three trees, the merge's context. */
interface Pull {
  repo: Repo
  state: ProfileStore['state']
  /** Our commit is an ancestor of the remote's: theirs is taken as it is. */
  fastForward: boolean
  trees: { base: Map<string, TreeEntry>; ours: Map<string, TreeEntry>; theirs: Map<string, TreeEntry> }
  ctx: MergeContext
  /** The files a merge commit writes (undefined: removed), filled by each step. */
  mergedFiles: Map<string, string | undefined>
  notes: MergeNote[]
}

/**
 * The changed profile folders pulled: `quick` the deltas of line pulls, `ours` and `merged` each profile's version
 * before and after (a merge's files go in `pull.mergedFiles`, its notes in `pull.notes`).
 */
async function pullFolders(pull: Pull, folders: Iterable<string>) {
  const { repo, state, fastForward, trees } = pull
  const ours = new Map<string, SyncedProfile | undefined>()
  const merged = new Map<string, SyncedProfile | undefined>()
  const quick: ProfileDelta[] = []
  const byFolder = new Map(state.profiles.map((p) => [folderOf(p.id), p]))
  for (const folder of folders) {
    // A fast-forward of a profile the store holds reads only the lines that changed.
    const current = fastForward ? byFolder.get(folder) : undefined
    if (current !== undefined) {
      const history = state.history?.[current.id] ?? []
      const pulled = await pullByLines(repo, trees.ours, trees.theirs, folder, current, history)
      if (pulled !== 'whole') {
        if (pulled.delta !== undefined) quick.push(pulled.delta)
        continue
      }
    }
    const o = await versionOf(repo, trees.ours, folder, 0)
    const t = await versionOf(repo, trees.theirs, folder, 0)
    const id = o?.profile.id ?? t?.profile.id
    if (id === undefined) continue
    if (o?.profile.library !== undefined || t?.profile.library !== undefined) {
      // A team profile's folder written by an older version: never taken in (the team's text is not the user's),
      // and gone from the merge as it is from our side.
      if (!fastForward) for (const n of Object.values(PROFILE_FILES)) pull.mergedFiles.set(`${folder}/${n}`, undefined)
      continue
    }
    ours.set(id, o)
    if (fastForward) {
      merged.set(id, t)
      continue
    }
    const m = mergeProfile(await versionOf(repo, trees.base, folder, 0), o, t, pull.ctx)
    pull.notes.push(...m.notes)
    merged.set(id, m.merged)
    const written = m.merged === undefined ? undefined : profileFiles(m.merged.profile, m.merged.history)
    for (const n of Object.values(PROFILE_FILES)) pull.mergedFiles.set(`${folder}/${n}`, written?.[n])
  }
  return { quick, ours, merged }
}

/** About you pulled: our version and the one to hold now (a merge's file goes in `pull.mergedFiles`). */
async function pullUser(pull: Pull): Promise<{ before: SyncedUser; after: SyncedUser }> {
  const readSide = async (tree: Map<string, TreeEntry>) => {
    try {
      return readUser((await pull.repo.read(tree, [USER_FILE])).get(USER_FILE))
    } catch (e) {
      throw new SyncStop('bad-file', (e as Error).message)
    }
  }
  const o = await readSide(pull.trees.ours)
  const t = await readSide(pull.trees.theirs)
  if (pull.fastForward) return { before: o, after: t }
  const m = mergeUser(await readSide(pull.trees.base), o, t, pull.ctx)
  const text = memoryLines(m.merged.items, m.merged.history)
  pull.mergedFiles.set(USER_FILE, text === '' ? undefined : text)
  return { before: o, after: m.merged }
}

/** The merge commit of `parents` (ours, the remote's): the remote's tree with the merged files written over it. */
async function mergeCommit(
  pull: Pull,
  merged: ReadonlyMap<string, SyncedProfile | undefined>,
  team: readonly TeamMemoryChange[],
  parents: [string, string],
): Promise<string> {
  const files = pull.mergedFiles
  for (const t of team) {
    const text = teamMemoryText(t.merged)
    files.set(teamMemoryPath(t.id), text === '' ? undefined : text)
  }
  const theirs = await pull.repo.read(pull.trees.theirs, files.keys())
  for (const [p, text] of [...files]) if (theirs.get(p) === text) files.delete(p)
  const was = new Map([...files.keys()].map((p) => [p, theirs.get(p)]))
  const byId = new Map(pull.state.profiles.map((p) => [p.id, p]))
  const names = new Map([
    ...[...merged.values()].flatMap((m) =>
      m === undefined ? [] : [[folderOf(m.profile.id), m.profile.name] as const],
    ),
    ...team.map((t) => [teamMemoryPath(t.id), byId.get(t.id)?.name ?? t.id] as const),
  ])
  const message = `merge: ${commitMessage(was, files, (f) => names.get(f)).split('\n')[0]}`
  return pull.repo.commit(parents[1], files, parents, message)
}

/**
 * Fetch and read our refs: the remote's commit (undefined: the fetch failed, kept as `fetchError`, or the branch is
 * not there yet); refused as `rewritten` when the remote no longer holds the commit this machine last synced.
 */
async function fetchChecked(repo: Repo) {
  await repo.ensure()
  let fetchError: unknown
  try {
    await repo.fetch()
  } catch (e) {
    fetchError = e
  }
  const refs = await repo.refs()
  const remote = fetchError === undefined ? refs.get(REMOTE_REF) : undefined
  const last = refs.get(LAST_REF)
  if (
    fetchError === undefined &&
    last !== undefined &&
    (remote === undefined || !(await repo.isAncestor(last, remote)))
  )
    throw new SyncStop('rewritten', `the remote branch no longer holds commit ${last.slice(0, 12)} this machine synced`)
  return { refs, remote, fetchError }
}

/**
 * Run one sync; `between` is awaited before each step of the host's own that no git call precedes (each changed
 * profile's files hashed for the local commit, its message, the store's command), so that a turn that began meanwhile goes first — the clone's
 * git calls wait for it themselves (Repo.waitBetween). Throws GitError, RepoRefusal, SyncStop or StoreError; the clone
 * and the store stay consistent.
 */
export async function syncOnce(
  repo: Repo,
  store: ProfileStore,
  files: StateFiles,
  between: () => Promise<void> = async () => {},
): Promise<RunOutcome> {
  const { refs, remote, fetchError } = await fetchChecked(repo)
  // This machine's changes, as a commit in the clone: from here on nothing can lose them.
  await between()
  const state = store.state
  const revision = store.revision
  const local = await commitLocal(repo, state, files, refs.get(HEAD_REF), async () => {
    // Hand the thread back first: what arrived meanwhile (a turn's request) is taken up before the step, and the step
    // then waits for a turn that has begun.
    await new Promise<void>((resolve) => setImmediate(resolve))
    await between()
  })
  const head = local.head
  const headTree = local.tree
  const committed = local.committed
  if (fetchError !== undefined) throw fetchError

  let target = head
  let pulled = 0
  const notes: MergeNote[] = []
  const takeIn =
    remote !== undefined && remote !== head && !(head !== undefined && (await repo.isAncestor(remote, head)))
  if (remote !== undefined && takeIn) {
    const fastForward = head === undefined || (await repo.isAncestor(head, remote))
    const base = fastForward ? head : await repo.mergeBase(head!, remote)
    const pull: Pull = {
      repo,
      state,
      fastForward,
      trees: {
        base: fastForward ? headTree : await repo.tree(base),
        ours: headTree,
        theirs: await repo.tree(remote),
      },
      ctx: {
        oursNewer: fastForward ? false : (await repo.timeOf(head!)) >= (await repo.timeOf(remote)),
        now: Date.now(),
        newId: (p: string) => `${p}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
      },
      mergedFiles: new Map(),
      notes,
    }
    const paths = fastForward
      ? await repo.changed(head, remote)
      : [...(await repo.changed(base, head)), ...(await repo.changed(base, remote))]
    const { folders, user } = groups(paths)
    const profiles = await pullFolders(pull, folders)
    const userPair = user ? await pullUser(pull) : undefined
    const team = await mergeTeamMemory(repo, pull.trees, paths, fastForward, pull.ctx).catch((e: unknown) => {
      throw e instanceof StoreError ? new SyncStop('bad-file', e.message) : e
    })
    target = fastForward ? remote : await mergeCommit(pull, profiles.merged, team, [head!, remote])
    const byId = new Map(state.profiles.map((p) => [p.id, p]))
    const deltas = profileDeltas(profiles, byId)
    const aside = teamDeltas(team, byId, deltas)
    const u = userPair === undefined ? undefined : userDelta(userPair.before, userPair.after)
    pulled = await applyPulled(store, files, { revision, between }, deltas, u, aside)
    await repo.setRef(HEAD_REF, target, head)
    await repo.setRef(LAST_REF, remote)
  }
  let pushed: string | undefined
  if (target !== undefined && target !== remote) {
    await repo.push(target)
    await repo.setRef(LAST_REF, target)
    pushed = target
  }
  return { committed, pulled, pushed, notes }
}

type Deltas = NonNullable<ReturnType<typeof profileDelta>>[]

/** The store's part of the pulled profiles: only what differs from what it had at our commit. */
function profileDeltas(
  profiles: Awaited<ReturnType<typeof pullFolders>>,
  byId: ReadonlyMap<string, { updatedAt: number }>,
): Deltas {
  return [
    ...profiles.quick,
    ...[...profiles.merged].flatMap(([id, after]) => {
      const d = profileDelta(id, profiles.ours.get(id), after, byId.get(id)?.updatedAt)
      return d === undefined ? [] : [d]
    }),
  ]
}

/**
 * The team memory a pull changed: for a team profile the store shows, a memory and summary delta added to `deltas`; the rest
 * (team profiles this machine does not show) is answered, to be kept aside.
 */
function teamDeltas(
  team: readonly TeamMemoryChange[],
  byId: ReadonlyMap<string, { updatedAt: number }>,
  deltas: Deltas,
): TeamMemoryChange[] {
  const aside: TeamMemoryChange[] = []
  for (const t of team) {
    const shown = byId.get(t.id)
    if (shown === undefined) {
      aside.push(t)
      continue
    }
    const memory = userDelta(t.ours, t.merged)
    const summary = t.merged.summary === t.ours.summary ? undefined : t.merged.summary
    if (memory !== undefined || summary !== undefined)
      deltas.push({
        id: t.id,
        seenAt: shown.updatedAt,
        ...(memory === undefined ? {} : { memory }),
        ...(summary === undefined ? {} : { summary }),
      })
  }
  return aside
}

/**
 * Hand what a pull took in to the store (one `sync.apply`) and to the kept team memory, under the kept memory's
 * lock so that a team library's pull never hands the same profile over meanwhile, once `at.between` resolves (no turn
 * runs); refused as `store-changed` when the store moved since the sync read it at `at.revision`. Answers how many
 * profiles (and About you) changed.
 */
async function applyPulled(
  store: ProfileStore,
  files: StateFiles,
  at: { revision: number; between: () => Promise<void> },
  deltas: Deltas,
  user: ReturnType<typeof userDelta>,
  aside: readonly TeamMemoryChange[],
): Promise<number> {
  if (deltas.length === 0 && user === undefined && aside.length === 0) return 0
  const apply = async () => {
    await at.between()
    if (store.revision !== at.revision) throw new SyncStop('store-changed', 'the store changed while the sync merged')
    for (const t of aside) files.kept?.write(t.id, t.merged)
    if (deltas.length === 0 && user === undefined) return
    try {
      await store.command({ op: 'sync.apply', profiles: deltas, ...(user === undefined ? {} : { user }) })
    } catch (e) {
      if (e instanceof StoreError && e.code === 'conflict') throw new SyncStop('store-changed', e.message)
      throw e
    }
  }
  await (files.kept === undefined ? apply() : files.kept.exclusive(apply))
  return deltas.length + (user === undefined ? 0 : 1) + aside.length
}
