/**
 * A damaged page on disk for the store's fault specs: the first bytes of one leaf page of a table overwritten, as a
 * bad sector or a torn write leaves them. SQLite then answers "database disk image is malformed" to any read of that
 * page, and `quick_check` reports it. It asserts nothing.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'

/**
 * Overwrite the head of the `nth` leaf page of `table` in the database `file`; returns its number. In file order, or
 * with `last` the tree's rightmost leaf, where a new row of a table keyed by a growing number is written: a write
 * meets it without any read of the rows before it.
 */
export async function damageLeafPage(file: string, table: string, nth = 2, last = false): Promise<number> {
  const db = new DatabaseSync(file, { readOnly: true })
  // dbstat's paths name a page by the child indexes from the root in fixed-width hex: sorted, they are tree order.
  const order = last ? 'path DESC' : 'pageno'
  const found = db
    .prepare(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY ${order} LIMIT 1 OFFSET ?`)
    .get(table, last ? 0 : nth) as { pageno: number } | undefined
  const size = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size
  db.close()
  if (found === undefined) throw new Error(`${table} has no leaf page ${nth}`)
  const content = Buffer.from(await readFile(file))
  content.fill(0x5a, (found.pageno - 1) * size, (found.pageno - 1) * size + 16)
  await writeFile(file, content)
  return found.pageno
}
