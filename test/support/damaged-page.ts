/**
 * A damaged page on disk for the store's fault specs: the first bytes of one leaf page of a table overwritten, as a
 * bad sector or a torn write leaves them. SQLite then answers "database disk image is malformed" to any read of that
 * page, and `quick_check` reports it. It asserts nothing.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'

/** Overwrite the head of the `nth` leaf page (in file order) of `table` in the database `file`; returns its number. */
export async function damageLeafPage(file: string, table: string, nth = 2): Promise<number> {
  const db = new DatabaseSync(file, { readOnly: true })
  const found = db
    .prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET ?")
    .get(table, nth) as { pageno: number } | undefined
  const size = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size
  db.close()
  if (found === undefined) throw new Error(`${table} has no leaf page ${nth}`)
  const content = Buffer.from(await readFile(file))
  content.fill(0x5a, (found.pageno - 1) * size, (found.pageno - 1) * size + 16)
  await writeFile(file, content)
  return found.pageno
}
