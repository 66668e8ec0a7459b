/**
 * What the search index holds beside what the rows hold, read straight from a database file: the specs of the index
 * compare the two (equal when the index is current) and its revision with the data's.
 */
import { DatabaseSync } from 'node:sqlite'
import type { MemoryItem } from '../../lib/state/model.ts'

/** The index's rows as (owner, id, text), sorted, and the item rows as the same: equal when the index is current. */
export function indexAndRows(database: string): {
  index: string[]
  rows: string[]
  indexRev: number
  revision: number
} {
  const db = new DatabaseSync(database, { readOnly: true })
  try {
    const index = (
      db
        .prepare(
          'SELECT d.owner AS owner, d.item AS item, f.text AS text FROM memory_docs d JOIN memory_fts f ON f.rowid = d.doc',
        )
        .all() as { owner: string; item: string; text: string }[]
    )
      .map((r) => `${r.owner}\u0000${r.item}\u0000${r.text}`)
      .sort()
    const rows: string[] = []
    for (const r of db.prepare('SELECT profile_id, data FROM memory_items').all() as {
      profile_id: string
      data: string
    }[]) {
      const it = JSON.parse(r.data) as MemoryItem
      rows.push(`${r.profile_id}\u0000${it.id}\u0000${it.text}`)
    }
    for (const r of db.prepare('SELECT id, data FROM sessions').all() as { id: string; data: string }[]) {
      for (const it of (JSON.parse(r.data) as { memories: MemoryItem[] }).memories)
        rows.push(`s:${r.id}\u0000${it.id}\u0000${it.text}`)
    }
    const indexRev = Number(
      (db.prepare('SELECT rev FROM memory_index_rev').get() as { rev: number } | undefined)?.rev ?? 0,
    )
    const revision = Number(
      (db.prepare("SELECT value FROM meta WHERE key = 'revision'").get() as { value: number } | undefined)?.value ?? 0,
    )
    return { index, rows: rows.sort(), indexRev, revision }
  } finally {
    db.close()
  }
}
