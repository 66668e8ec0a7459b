/**
 * The full load: the whole state a database holds, read row by row (read-rows.ts), with avatars read from their
 * files. Used when the store opens, when another process created the database, and after a restore. It never writes
 * a row and never decides what a store does with a state it cannot use (one with no profile left).
 */
import type { Salvage } from '../../shared/meta.ts'
import type { LoadWhy } from '../../shared/reasons.ts'
import { LIMITS, type MemoryItem, type Profile, type State } from '../../state/model.ts'
import { sessionsOf } from '../../state/sessions.ts'
import type { Connection } from './connection.ts'
import type { HeldRevisions } from './held-revisions.ts'
import type { IndexUpkeep } from './index-upkeep.ts'
import type { RowReader } from './read-rows.ts'
import { COLUMNS, byId, byProfile, rowOf, rowsSetAside } from './row-read.ts'
import { USER_OWNER } from './rows.ts'
import type { SetAside } from './set-aside.ts'
import type { StoredValuesAt } from './stored-values.ts'

/** A problem for `lastError`: the host's English for its log, why as the page words it, and where a bad file went. */
export interface Problem {
  message: string
  why: LoadWhy
  keptAs?: string
}

/** What loading found. `problem` is for `lastError`; `blocked` means nothing may be written. */
export interface Loaded {
  state: State
  revision: number
  problem?: Problem
  blocked?: string
  /** What a salvage of the damaged database this one replaced saved and lost. */
  salvage?: Salvage
}

/** What the full load reads with and tells: the rows, their reads, the rows set aside, the revisions held, the index. */
export interface LoadParts {
  connection: Connection
  rows: RowReader
  aside: SetAside
  held: HeldRevisions
  index: IndexUpkeep
}

/**
 * Profile `owner`'s memory items as {@link loadAll} gives them: read from the rows when a reader first looks at them
 * (see lazy-list.ts), checked then as at load.
 */
export function itemsOnDisk(parts: LoadParts, owner: string, now: number, values: StoredValuesAt): MemoryItem[] {
  return parts.rows.lazyItems(owner, values(now))
}

/**
 * The whole state the database holds; undefined when nothing was ever saved. Each row is checked by this version's
 * rules alone: one that breaks them is set aside (see set-aside.ts) and every other row loads, made a value of the
 * state by `values` (lib/store's provenance, read at `now`). A state with no
 * profile left (every row set aside) comes back with none; the store decides.
 */
export function loadAll(parts: LoadParts, now: number, values: StoredValuesAt): Loaded | undefined {
  const { connection: conn, rows: read, aside } = parts
  const revision = conn.revision()
  const raw = conn.statement('SELECT id, rev, data FROM profiles ORDER BY pos').all()
  if (revision === 0 && raw.length === 0) return undefined
  aside.clear()
  // A row holding a value of another kind (a revision that is text) is set aside alone, as a row breaking the rules.
  const rows = [...rowsSetAside('profiles', COLUMNS.profile, raw, aside, byId)]
  const d = values(now)
  const unreadable: string[] = []
  const profiles: Profile[] = []
  for (const row of rows) {
    if (profiles.length >= LIMITS.profiles) aside.overLimit('profiles', row.id, LIMITS.profiles, 'profiles')
    else {
      // Each profile's items stay on disk until a reader looks at them (see lazy-list.ts).
      const p = read.profile(row, read.lazyItems(row.id, d), unreadable, d)
      if (p !== undefined) profiles.push(p)
    }
  }
  const stored = new Set(raw.map(byId))
  for (const owner of read.owners()) {
    if (owner === USER_OWNER || stored.has(owner)) continue
    for (const id of read.itemIds(owner))
      aside.add('memory_items', `${owner}/${id}`, `names no profile ("${owner}")`, {
        key: 'no-profile',
        params: { id: owner },
      })
  }
  const known = new Set(profiles.map((p) => p.id))
  const count = rowOf('sessions', COLUMNS.count, conn.statement('SELECT count(*) AS n FROM sessions').get()).n
  const sessions = read.sessions(
    rowsSetAside('sessions', COLUMNS.session, conn.statement('SELECT id, data FROM sessions').iterate(), aside, (r) =>
      String(r.id),
    ),
    count,
    known,
    d,
  )
  const undo = read.undo(
    [
      ...rowsSetAside(
        'memory_undo',
        COLUMNS.undo,
        conn.statement('SELECT profile_id, rev, at, memory FROM memory_undo').all(),
        aside,
        byProfile,
      ),
    ],
    known,
    d,
  )
  const history = read.historyLists(known, d, undefined, true)
  const user = read.items(USER_OWNER, d).get(USER_OWNER)
  const state: State = {
    version: 1,
    activeId: read.activeId(known, profiles),
    profiles,
    sessions: sessionsOf(sessions),
    ...(Object.keys(undo).length > 0 ? { memoryUndo: undo } : {}),
    ...(Object.keys(history).length > 0 ? { history } : {}),
    ...(user === undefined || user.length === 0 ? {} : { user: { items: user } }),
  }
  parts.held.adopt(revision, rows, read.undoRevisions())
  parts.index.loaded(state, revision, now)
  if (unreadable.length === 0) return { state, revision }
  return { state, revision, problem: avatarsProblem(unreadable) }
}

/** The problem of avatar files that could not be read (`unreadable`: their names): those profiles show their emoji. */
export function avatarsProblem(unreadable: readonly string[]): Problem {
  return {
    message: `${unreadable.length} avatar file(s) could not be read (${unreadable.join(', ')}); those profiles show their emoji until a new avatar is saved`,
    why: { key: 'avatars', params: { count: unreadable.length, files: unreadable } },
  }
}
