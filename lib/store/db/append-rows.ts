/**
 * One batch of an own import's memory items appended on a connection of its own, on the store's kept thread
 * (store-thread.ts): the items arrive as the JSON bytes the import worker packed, each already checked and given its
 * provenance there as the store's `sync.apply` would (lib/commands/packed-items.ts), and are placed after the list's
 * last row, indexed and committed here as that command's write would, so that the host's event loop never makes a
 * string or an object of them. The host then takes the commit in as it takes another process's (reload.ts): the profile's row has a new
 * revision, so its list is read again from the rows when a reader looks, not before.
 *
 * It writes only when the append is the plain one (the profile there, none of the ids in its list, the list within
 * its limit, the search index at the rows' revision); anything else it leaves untouched and says
 * so, and the host writes that batch itself through `sync.apply`, which refuses or places it as any command would.
 * It never decides what is imported or in which batches (lib/store/import-batches.ts does).
 */
import { LIMITS, type MemoryItem } from '../../state/model.ts'
import { BUSY_TIMEOUT_MS, Connection } from './connection.ts'
import { UPSERT_ITEM } from './item-kinds.ts'
import { textKeyOf } from './text-keys.ts'
import { normalizeMemory } from '../../shared/memory-text.ts'
import { MemoryIndex } from './memory-index.ts'
import { COLUMNS, rowOf } from './row-read.ts'
import { DatabaseSync } from './sqlite.ts'

/** The gap between rows appended at a list's end, as the store's own writes leave it (positions.ts). */
const POSITION_STEP = 1024

/** A batch to append: the comma-separated JSON of its items (`items`), for profile `owner` of the database `file`. */
export interface AppendJob {
  kind: 'append'
  file: string
  owner: string
  items: Uint8Array
  /** The time the profile is changed at (its `updatedAt`), as the command's would be. */
  now: number
  /** The profile's `updatedAt` as the import last wrote it: another one says someone else changed it meanwhile. */
  seenAt: number
}

/**
 * What became of the batch: `written` (committed; `ms` the time the write transaction was open, `touched` when the
 * profile was changed by another write since the import's last, whose items are then appended to what it saved), `gone` (the
 * profile is not there: nothing written), `host` (not the plain append: nothing written, the host writes it).
 */
export type AppendAnswer =
  { done: 'written'; ms: number; touched: boolean } | { done: 'gone' } | { done: 'host'; why: string }

/** Run `job` (on the kept store thread). Throws what SQLite threw; nothing is then committed. */
export function appendRows(job: AppendJob): AppendAnswer {
  const db = new DatabaseSync(job.file, { timeout: BUSY_TIMEOUT_MS })
  try {
    // As the store's own import batches: committed without a sync here; the import syncs and checkpoints the WAL
    // before the next batch (durable-later.ts), so a power cut loses at most this batch.
    db.exec('PRAGMA synchronous = OFF; PRAGMA wal_autocheckpoint = 0')
    const conn = new Connection(job.file, db)
    const raw = JSON.parse(`[${new TextDecoder().decode(job.items)}]`) as unknown
    const started = performance.now()
    conn.begin()
    try {
      const answer = append(conn, job, raw)
      if (answer.done === 'written') {
        conn.commit()
        return { ...answer, ms: performance.now() - started }
      }
      conn.rollback()
      return answer
    } catch (e) {
      conn.rollback()
      throw e
    }
  } finally {
    db.close()
  }
}

/** The append inside the open transaction; anything but `written` leaves it to be rolled back. */
function append(conn: Connection, { owner, now, seenAt }: AppendJob, raw: unknown): AppendAnswer {
  const row = conn.statement('SELECT id, rev, data FROM profiles WHERE id = ?').get(owner)
  if (row === undefined) return { done: 'gone' }
  // Each as the import worker made it: as the store's command appends it (lib/commands/packed-items.ts).
  if (!Array.isArray(raw) || !raw.every(isItem)) return { done: 'host', why: 'not items' }
  const items = raw
  const has = conn.statement('SELECT 1 FROM memory_items WHERE profile_id = ? AND id = ?')
  if (new Set(items.map((it) => it.id)).size !== items.length || items.some((it) => has.get(owner, it.id)))
    return { done: 'host', why: 'an id the list holds' }
  const count = rowOf(
    'memory_items',
    COLUMNS.count,
    conn.statement('SELECT count(*) AS n FROM memory_items WHERE profile_id = ?').get(owner),
  ).n
  if (count + items.length > LIMITS.memoryItems) return { done: 'host', why: 'past the limit' }
  const revision = conn.revision()
  const index = MemoryIndex.onDisk(conn.sql)
  if (index.behind(revision)) return { done: 'host', why: 'the index is behind the rows' }
  index.writing(revision)
  const last = conn.statement('SELECT pos FROM memory_items WHERE profile_id = ? ORDER BY pos DESC LIMIT 1').get(owner)
  let pos = last === undefined ? -POSITION_STEP : rowOf('memory_items', COLUMNS.pos, last).pos
  const upsert = conn.statement(UPSERT_ITEM)
  for (const it of items)
    upsert.run(owner, it.id, (pos += POSITION_STEP), JSON.stringify(it), textKeyOf(normalizeMemory(it.text)))
  index.apply(
    owner,
    items.map((it) => ({ now: it })),
    [],
  )
  const next = revision + 1
  const { data } = rowOf('profiles', COLUMNS.profile, row)
  const fields = JSON.parse(data) as Record<string, unknown>
  conn
    .statement('UPDATE profiles SET rev = ?, data = ? WHERE id = ?')
    .run(next, JSON.stringify({ ...fields, updatedAt: now }), owner)
  conn.setMeta('revision', next)
  index.at(next)
  return { done: 'written', ms: 0, touched: fields.updatedAt !== seenAt }
}

/** A parsed value with what a row and the index need of an item (the import worker checked the rest). */
function isItem(v: unknown): v is MemoryItem {
  const o = v as Partial<MemoryItem> | null
  return typeof o === 'object' && o !== null && typeof o.id === 'string' && typeof o.text === 'string'
}
