/**
 * A damaged page met by a write that read nothing of it first (#44): a save whose rows go onto a page that went bad
 * is refused as the read of a damaged page is — the StoreError the page words (`data.damaged`), not SQLite's
 * "malformed" — nothing of the batch is kept, the file is marked for the next open's full check at once and checked
 * now, and the next start keeps it aside and salvages every readable row.
 */
import { existsSync } from 'node:fs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { damageLeafPage } from '../support/damaged-page.ts'
import { tempDir } from '../support/store-fixtures.ts'

const dirs: { dispose(): Promise<void> }[] = []
const open: ProfileStore[] = []
afterEach(async () => {
  for (const s of open.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await d.dispose()
})

/** A closed database whose profile `general` holds 3,000 memory items (their search index spans many pages). */
async function seeded(): Promise<string> {
  const t = await tempDir('ap-damaged-write')
  dirs.push(t)
  const seed = await openStore({ file: t.file })
  const items = Array.from({ length: 3_000 }, (_, i) => ({
    id: `m${i}`,
    text: `第${i}条事实：用户提到的项目进展`,
    source: 'auto' as const,
    at: 1_700_000_000_000 + i * 60_000,
  }))
  await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '完好', memory: { summary: '', items } } })
  await seed.close()
  return seed.file
}

async function opened(file: string): Promise<ProfileStore> {
  const store = await openStore({ file })
  open.push(store)
  return store
}

describe('a damaged page met by a write', () => {
  it('refuses the save as damage, marks the file, checks it now, and the next start salvages the rest', async () => {
    const file = await seeded()
    // The search index's size of each document: a new item's row goes onto its last page, which no read touches.
    await damageLeafPage(file, 'memory_fts_docsize', 0, true)
    const store = await opened(file)
    const target = { profileId: 'coder' }
    await expect(store.command({ op: 'memory.add', target, items: [{ text: '用户写 Rust' }] })).rejects.toMatchObject({
      name: 'StoreError',
      code: 'io',
      rule: 'data.damaged',
      message: expect.stringMatching(/could not be saved: profiles\.sqlite is damaged/),
    })
    expect(store.state.profiles.find((p) => p.id === 'coder')!.memory.items).toEqual([])
    // Marked by the write itself: the next open checks the file whole even if this process stops now.
    expect(existsSync(`${file}.check-due`)).toBe(true)
    await vi.waitFor(() => expect(store.health.check).toMatchObject({ state: 'damaged' }), { timeout: 20_000 })
    // What touches no damaged page is still saved meanwhile.
    await store.command({ op: 'session.set', sessionId: 'meanwhile', patch: { note: '损坏之后' } })
    await store.close()
    open.splice(0)

    const next = await opened(file)
    expect(next.lastError?.why).toMatchObject({ outcome: 'salvaged' })
    const general = next.state.profiles.find((p) => p.id === 'general')!
    expect(general.rules).toBe('完好')
    expect(general.memory.items.length).toBe(3_000)
    expect(next.state.sessions.get('meanwhile')?.note).toBe('损坏之后')
  })
})
