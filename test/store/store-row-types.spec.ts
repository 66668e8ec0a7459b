/**
 * A row is read by the column kinds its reader relies on (lib/store/db/row-read.ts): SQLite keeps whatever another
 * program wrote into a column, so a revision that is text is refused with an error
 * naming the table and the column, instead of flowing on as the number or text it was cast to.
 */
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import { StoreError } from '../../lib/validate/core.ts'
import { perTest } from '../support/store-helpers.ts'

const { start, dir } = perTest()

/** A database with one memory item in `coder` and an undo copy; closed. */
async function seeded(): Promise<string> {
  const store = await openStore({ file: join(await dir('ap-row-types'), 'profiles.sqlite') })
  await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户写 Rust' }] })
  await store.close()
  return store.file
}

function sql(file: string, statement: string): void {
  const db = new DatabaseSync(file)
  db.exec(statement)
  db.close()
}

/** What opening `file` ends in: the error it was refused with, else what the store reports as its last error. */
async function openError(file: string): Promise<unknown> {
  try {
    const store = await start(file)
    return store.lastError
  } catch (e) {
    return e
  }
}

describe('a column holding a value of another kind is refused by name', () => {
  it('good rows read as before', async () => {
    const file = await seeded()
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(store.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((i) => i.text)).toEqual(['用户写 Rust'])
  })

  it('a profile revision that is text names profiles.rev', async () => {
    const file = await seeded()
    sql(file, "UPDATE profiles SET rev = 'abc' WHERE id = 'coder'")
    const error = await openError(file)
    expect(error).not.toBeNull()
    if (error instanceof StoreError) expect(error.field).toBe('profiles.rev')
    expect((error as { message: string }).message).toContain("the database's profiles.rev holds string")
  })
})
