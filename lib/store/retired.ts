/**
 * Deleted profiles as old turns still show them: for each profile deleted (here or, once this process has seen it,
 * in another dsh process), its id, name, emoji and avatar at the moment it went, so a turn head of a turn it answered
 * keeps its face instead of borrowing another profile's. Owns that small record and its file beside the data
 * (`<stem>.retired.json`, rewritten atomically). Nothing else of the profile is kept (no role, no memory: deleting a profile
 * deletes what it knew), and it is bounded, oldest first.
 */
import { readFileSync } from 'node:fs'
import { basename, dirname, extname, join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import type { RetiredProfile } from '../shared/contract.ts'
import type { State } from '../shared/model.ts'
import { errorText } from '../errors.ts'

/** Deleted profiles remembered at most, and their avatars' characters at most together; the oldest go first. */
export const RETIRED_KEPT = 200
export const RETIRED_CHARS = 8_000_000

/** The deleted profiles a store has seen go. */
export interface RetiredProfiles {
  get(id: string): RetiredProfile | undefined
  /** Wait for the last write (tests, shutdown). */
  flush(): Promise<void>
}

function isRetired(v: unknown): v is RetiredProfile {
  const r = v as RetiredProfile
  return typeof r === 'object' && r !== null && typeof r.id === 'string' && typeof r.name === 'string'
    && typeof r.emoji === 'string' && typeof r.avatar === 'string' && typeof r.at === 'number'
}

/** The file of the deleted profiles of the data at `dataFile`. */
export function retiredFile(dataFile: string): string {
  return join(dirname(dataFile), `${basename(dataFile, extname(dataFile))}.retired.json`)
}

/**
 * Remember the profiles each change of `store` removes. Reads the file once; a missing or unreadable file starts
 * empty (what it held only ever decorates old turns), and a failed write is logged, never thrown.
 */
export function trackRetired(
  store: { readonly state: State; onChange(fn: (state: State) => void): () => void },
  file: string,
  log: { warn(msg: string): void },
): RetiredProfiles & { stop(): void } {
  const kept = new Map<string, RetiredProfile>()
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'))
    if (Array.isArray(parsed)) for (const r of parsed) if (isRetired(r)) kept.set(r.id, r)
  } catch {
    // No file yet, or one damaged: no deleted profile to show beyond this run.
  }
  let seen = store.state
  let writing: Promise<void> = Promise.resolve()
  const stop = store.onChange((state) => {
    const ids = new Set(state.profiles.map((p) => p.id))
    const gone = seen.profiles.filter((p) => !ids.has(p.id))
    seen = state
    if (gone.length === 0) return
    const at = Date.now()
    for (const p of gone) {
      kept.delete(p.id)
      kept.set(p.id, { id: p.id, name: p.name, emoji: p.emoji, avatar: p.avatar, at })
    }
    let chars = 0
    for (const r of kept.values()) chars += r.avatar.length
    for (const [id, r] of kept) {
      if (kept.size <= RETIRED_KEPT && chars <= RETIRED_CHARS) break
      kept.delete(id)
      chars -= r.avatar.length
    }
    const text = JSON.stringify([...kept.values()])
    writing = writing.then(() => writeFileAtomic(file, text)).catch((e: unknown) => {
      log.warn(`agent-profiles: could not keep the look of deleted profiles for old turns: ${errorText(e)}`)
    })
  })
  return {
    get: (id) => kept.get(id),
    flush: () => writing,
    stop,
  }
}
