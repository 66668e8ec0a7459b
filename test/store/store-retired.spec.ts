/**
 * How deleted profiles looked, kept for the turns they answered: name, emoji and avatar survive the delete, a restart
 * and reach another process on the same data; nothing else of the profile is kept; the record is bounded; a database
 * made before the record existed gains it when opened.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { RETIRED_KEPT } from '../../lib/store/db/write.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { pngAvatar, tempDir } from '../support/store-fixtures.ts'

const dirs: { dispose(): Promise<void> }[] = []
const stores: ProfileStore[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await d.dispose()
})

async function open(file: string): Promise<ProfileStore> {
  const store = await openStore({ file })
  stores.push(store)
  return store
}

async function created(store: ProfileStore, profile: Record<string, unknown>): Promise<string> {
  return ((await store.command({ op: 'profile.create', profile } as never)) as unknown as { profile: { id: string } })
    .profile.id
}

describe('deleted profiles keep their look', () => {
  it('keeps name, emoji and avatar, across a restart and in another process, and nothing it knew', async () => {
    const d = await tempDir('ap-retired')
    dirs.push(d)
    const store = await open(d.file)
    const other = await open(d.file)
    const avatar = pngAvatar(200)
    const id = await created(store, {
      name: 'Old friend',
      emoji: '🦉',
      avatar,
      memory: { summary: '只有它知道', items: [] },
    })
    expect(store.retired(id)).toBeUndefined()
    await store.command({ op: 'profile.delete', id })
    expect(store.retired(id)).toEqual({ id, name: 'Old friend', emoji: '🦉', avatar, at: expect.any(Number) })
    expect(other.retired(id)?.name).toBe('Old friend')
    await store.close()
    const again = await open(d.file)
    expect(again.retired(id)?.avatar).toBe(avatar)
    const db = new DatabaseSync(again.file)
    const rows = JSON.stringify(db.prepare('SELECT * FROM retired_profiles').all())
    db.close()
    expect(rows).not.toContain('只有它知道')
    expect(again.retired('never-was')).toBeUndefined()
  })

  it('is bounded, dropping the profiles deleted longest ago', async () => {
    const d = await tempDir('ap-retired')
    dirs.push(d)
    const store = await open(d.file)
    const ids: string[] = []
    for (let i = 0; i < RETIRED_KEPT + 2; i++) {
      const id = await created(store, { name: `P${i}` })
      await store.command({ op: 'profile.delete', id })
      ids.push(id)
      // Distinct deletion times, so "longest ago" is well defined.
      await new Promise((r) => setTimeout(r, 2))
    }
    expect(store.retired(ids[0]!)).toBeUndefined()
    expect(store.retired(ids[1]!)).toBeUndefined()
    expect(store.retired(ids[2]!)?.name).toBe('P2')
    expect(store.retired(ids.at(-1)!)?.name).toBe(`P${RETIRED_KEPT + 1}`)
  })

  it('a database made before the record existed gains it when opened, keeping its data', async () => {
    const d = await tempDir('ap-retired')
    dirs.push(d)
    const first = await open(d.file)
    const id = await created(first, { name: 'Kept' })
    await first.close()
    stores.splice(0)
    const db = new DatabaseSync(first.file)
    db.exec('DROP TABLE retired_profiles')
    // A database of schema 1, as the code before numbered migrations made it: migration 2 brings it up.
    db.exec("DELETE FROM meta WHERE key = 'schema'")
    db.close()
    const store = await open(d.file)
    expect(store.lastError).toBeNull()
    expect(store.state.profiles.some((p) => p.id === id)).toBe(true)
    await store.command({ op: 'profile.delete', id })
    expect(store.retired(id)?.name).toBe('Kept')
  })
})
