/**
 * The reload of what other processes committed: the state this process holds brought up to what the database holds,
 * reading only the rows written since the revision it holds (each checked as at load; another process may be a
 * newer version). It never writes a row and never looks at the schema (the database does, before it asks).
 */
import { LIMITS, type Memory, type MemoryWrite, type Profile, type State } from '../../state/model.ts'
import { put, sessionsOf } from '../../state/sessions.ts'
import { bareRecord } from '../../validate/state.ts'
import type { LoadParts } from './load.ts'
import type { StoredValues, StoredValuesAt } from './stored-values.ts'
import { COLUMNS, byId, byProfile, rowsOf, rowsSetAside, type Row } from './row-read.ts'
import { USER_OWNER } from './rows.ts'

/**
 * `current` (the state this process holds) brought up to what the database holds; undefined when the state is the
 * same; each row read is made a value of the state by `values` (lib/store's provenance). Throws on a database fault.
 */
export function reload(
  parts: LoadParts,
  current: State,
  values: StoredValuesAt,
): { state: State; revision: number } | undefined {
  const { connection: conn, rows: read, held } = parts
  const revision = conn.revision()
  if (revision === held.revision) return undefined
  const seen = held.revision
  const d = values(Date.now())
  const { profiles, rows } = profilesSince(parts, current, d)
  const live = new Set(profiles.map((p) => p.id))
  const sessions = sessionsSince(parts, current.sessions, seen, live, d)
  const { memoryUndo, undoRows } = undoSince(parts, current.memoryUndo, live, d)
  const state: State = { version: 1, activeId: read.activeId(live, profiles), profiles, sessions }
  if (memoryUndo !== undefined && Object.keys(memoryUndo).length > 0) state.memoryUndo = memoryUndo
  if (Number(conn.meta('userRev') ?? 0) > seen) {
    const items = read.items(USER_OWNER, d).get(USER_OWNER) ?? []
    if (items.length > 0) state.user = { items }
  } else if (current.user !== undefined) state.user = current.user
  const history = historySince(parts, current.history, seen, live, d)
  if (history !== undefined) state.history = history
  held.adopt(
    revision,
    rows.filter((r) => live.has(r.id)),
    undoRows,
  )
  return { state, revision }
}

/**
 * The profiles the rows hold: those whose row this process holds at its revision kept as they are (their memory
 * with them), the others read again, their items left on disk until a reader looks (see lazy-list.ts).
 */
function profilesSince(
  parts: LoadParts,
  current: State,
  d: StoredValues,
): { profiles: Profile[]; rows: { id: string; rev: number }[] } {
  const { connection: conn, rows: read, aside, held } = parts
  const raw = conn.statement('SELECT id, rev FROM profiles ORDER BY pos').all()
  const have = new Map(current.profiles.map((p) => [p.id, p]))
  const unreadable: string[] = []
  const stored = new Set(raw.map(byId))
  for (const key of aside.keys('profiles')) if (!stored.has(key)) aside.forget('profiles', key)
  const rows = [...rowsSetAside('profiles', COLUMNS.profileRev, raw, aside, byId)]
  const profiles: Profile[] = []
  for (const { id, rev } of rows) {
    const known = have.get(id)
    if (known !== undefined && held.profiles.get(id) === rev) {
      profiles.push(known)
      continue
    }
    if (profiles.length >= LIMITS.profiles) {
      aside.overLimit('profiles', id, LIMITS.profiles, 'profiles')
      continue
    }
    const [row] = rowsSetAside(
      'profiles',
      COLUMNS.profile,
      conn.statement('SELECT id, rev, data FROM profiles WHERE id = ?').all(id),
      aside,
      byId,
    )
    const p = row === undefined ? undefined : read.profile(row, read.lazyItems(id, d), unreadable, d)
    if (p !== undefined) profiles.push(p)
  }
  return { profiles, rows }
}

/**
 * The conversation settings brought up to the rows: all read again after they were all cleared (`sessionsReset`
 * past `seen`), else only those written or removed since revision `seen`.
 */
function sessionsSince(
  parts: LoadParts,
  current: State['sessions'],
  seen: number,
  live: ReadonlySet<string>,
  d: StoredValues,
): State['sessions'] {
  const { connection: conn, rows: read, aside } = parts
  const reset = Number(conn.meta('sessionsReset') ?? 0)
  if (reset > seen) {
    aside.forgetPrefix('sessions', '')
    const all = [
      ...rowsSetAside('sessions', COLUMNS.session, conn.statement('SELECT id, data FROM sessions').all(), aside, byId),
    ]
    return sessionsOf(read.sessions(all, all.length, live, d))
  }
  let sessions = current
  const fresh = [
    ...rowsSetAside(
      'sessions',
      COLUMNS.session,
      conn.statement('SELECT id, data FROM sessions WHERE rev > ?').all(seen),
      aside,
      byId,
    ),
  ]
  const got = new Map(read.sessions(fresh, 0, live, d))
  for (const r of fresh) sessions = put(sessions, r.id, got.get(r.id))
  for (const r of rowsOf(
    'sessions_gone',
    COLUMNS.key,
    conn.statement('SELECT id FROM sessions_gone WHERE rev > ?').all(seen),
  )) {
    aside.forget('sessions', r.id)
    sessions = put(sessions, r.id, undefined)
  }
  return sessions
}

/** The undo copies brought up to the rows: those whose row changed (or whose profile went) read again. */
function undoSince(
  parts: LoadParts,
  current: State['memoryUndo'],
  live: ReadonlySet<string>,
  d: StoredValues,
): { memoryUndo: State['memoryUndo']; undoRows: { profile_id: string; rev: number }[] } {
  const { connection: conn, rows: read, held, aside } = parts
  const undoRows = read.undoRevisions()
  const undoChanged = undoRows.length !== held.undo.size || undoRows.some((u) => held.undo.get(u.profile_id) !== u.rev)
  if (!undoChanged) return { memoryUndo: current, undoRows }
  const next = bareRecord<{ memory: Memory; at: number }>()
  const reread: Row<'undo'>[] = []
  for (const u of undoRows) {
    const known = current?.[u.profile_id]
    if (known !== undefined && held.undo.get(u.profile_id) === u.rev && live.has(u.profile_id))
      next[u.profile_id] = known
    else
      reread.push(
        ...rowsSetAside(
          'memory_undo',
          COLUMNS.undo,
          conn.statement('SELECT profile_id, rev, at, memory FROM memory_undo WHERE profile_id = ?').all(u.profile_id),
          aside,
          byProfile,
        ),
      )
  }
  Object.assign(next, read.undo(reread, live, d))
  return { memoryUndo: next, undoRows }
}

/**
 * `current` history brought up to the rows: the lists written since revision `seen` read again, lists of profiles
 * that are gone dropped (a conversation list another process evicted stays here until this process restarts).
 */
function historySince(
  parts: LoadParts,
  current: State['history'],
  seen: number,
  profiles: ReadonlySet<string>,
  d: StoredValues,
): State['history'] {
  const changed = new Set(
    rowsOf(
      'memory_history',
      COLUMNS.list,
      parts.connection.statement('SELECT DISTINCT list FROM memory_history WHERE rev > ?').all(seen),
    ).map((r) => r.list),
  )
  const fresh = changed.size === 0 ? {} : parts.rows.historyLists(profiles, d, changed)
  const out = bareRecord<MemoryWrite[]>()
  for (const [key, list] of Object.entries(current ?? {}))
    if (!changed.has(key) && (key.startsWith('s:') || profiles.has(key))) out[key] = list
  for (const [key, list] of Object.entries(fresh)) out[key] = list
  return Object.keys(out).length > 0 ? out : undefined
}
