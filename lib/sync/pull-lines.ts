/**
 * A fast-forward pull of one profile folder the store already holds, read by what changed: `profile.md` and
 * `profile.json` (a few KB) only when their blobs differ, and of `memory.jsonl` only the lines git's diff names,
 * applied to the store's own list (memory-patch.ts). So a fact pulled into a profile of 10,000 items parses one line,
 * not 10,000, and the `sync.apply` delta it makes is the one reading both versions whole makes (pull.ts). Whatever it
 * cannot read this way (a folder added or removed, a memory file that appears or goes, a diff that does not fit
 * the store's list) it leaves to the whole read. It never writes.
 */
import { HISTORY_LIMITS, LIMITS, type MemoryWrite, type Profile } from '../state/model.ts'
import { readProfile, PROFILE_FILES } from './layout.ts'
import { patchList } from './memory-patch.ts'
import { fieldsDiffer, type ProfileDelta } from './pull.ts'
import type { Repo, TreeEntry } from './repo.ts'
import { StoreError } from '../shared/errors.ts'
import { SyncStop } from './errors.ts'

/** What a line pull gives: the delta (undefined: nothing to change), or `whole` when the folder must be read whole. */
export type LinePull = { delta: ProfileDelta | undefined } | 'whole'

/** A refused file as the sync's stop, naming the file and line; anything else as it is. */
function refused(e: unknown): never {
  if (e instanceof StoreError && e.code === 'invalid') throw new SyncStop('bad-file', e.message)
  throw e
}

/**
 * Pull `folder` from our tree to theirs by its changed lines, for the store's `current` profile and its `history`
 * (whose files are exactly our tree's: the sync committed them from this state).
 */
export async function pullByLines(
  repo: Repo,
  ours: Map<string, TreeEntry>,
  theirs: Map<string, TreeEntry>,
  folder: string,
  current: Profile,
  history: readonly MemoryWrite[],
): Promise<LinePull> {
  const path = (n: string) => `${folder}/${n}`
  const [md, json, memory] = [PROFILE_FILES.markdown, PROFILE_FILES.json, PROFILE_FILES.memory].map(path) as [
    string,
    string,
    string,
  ]
  const o = { md: ours.get(md), json: ours.get(json), memory: ours.get(memory) }
  const t = { md: theirs.get(md), json: theirs.get(json), memory: theirs.get(memory) }
  if (o.md === undefined || o.json === undefined || t.md === undefined || t.json === undefined) return 'whole'
  if ((o.memory === undefined) !== (t.memory === undefined)) return 'whole'
  const d: ProfileDelta = { id: current.id, seenAt: current.updatedAt }
  if (o.md.id !== t.md.id || o.json.id !== t.json.id) {
    const texts = await repo.read(theirs, [md, json])
    let read
    try {
      read = readProfile(folder, { md: texts.get(md), json: texts.get(json) }, 0).profile
    } catch (e) {
      refused(e)
    }
    if (read.id !== current.id) return 'whole'
    if (fieldsDiffer(current, read)) d.profile = { ...read, memory: { summary: read.memory.summary, items: [] } }
  }
  if (o.memory !== undefined && t.memory !== undefined && o.memory.id !== t.memory.id) {
    const hunks = await repo.lineDiff(o.memory, t.memory)
    if (hunks === undefined) return 'whole'
    let patched
    try {
      patched = patchList({ items: current.memory.items, history }, hunks, memory, {
        items: LIMITS.memoryItems,
        entries: HISTORY_LIMITS.entries,
      })
    } catch (e) {
      refused(e)
    }
    if (patched === undefined) return 'whole'
    if (patched.delta !== undefined) d.memory = patched.delta
  }
  return { delta: d.profile === undefined && d.memory === undefined ? undefined : d }
}
