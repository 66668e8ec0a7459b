/**
 * A damaged page of the archive met by a read or a command before the background check has found it: that read alone
 * is refused with the damage named (a StoreError the page words, not SQLite's "malformed"), the file is marked for
 * the next open's full check at once and checked now, the rest of the store goes on working, and the next start
 * keeps the file aside and salvages every readable row, what was saved meanwhile included. A write that meets a
 * damaged page it read nothing of first (#44: the page a new row goes onto) is refused, marked and checked the same way.
 */
import { existsSync } from 'node:fs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import type { Log } from '../../lib/shared/log.ts'
import { damageLeafPage } from '../support/damaged-page.ts'
import { tempDir } from '../support/store-fixtures.ts'

const dirs: { dispose(): Promise<void> }[] = []
const open: ProfileStore[] = []
afterEach(async () => {
  for (const s of open.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await d.dispose()
})

/** A closed database whose profile `general` holds 3,000 memory items, half of them archived. */
async function seeded(): Promise<string> {
  const t = await tempDir('ap-damaged-read')
  dirs.push(t)
  const seed = await openStore({ file: t.file })
  const items = Array.from({ length: 3_000 }, (_, i) => ({
    id: `m${i}`,
    text: `第${i}条事实：用户提到的项目进展`,
    source: 'auto' as const,
    at: 1_700_000_000_000 + i * 60_000,
    ...(i % 2 === 0 ? { archived: true } : {}),
  }))
  await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '完好', memory: { summary: '', items } } })
  await seed.close()
  return seed.file
}

async function opened(file: string, log?: Log): Promise<ProfileStore> {
  const store = await openStore({ file, ...(log && { log }) })
  open.push(store)
  return store
}

/** The refusal a read of the damaged archive answers with. */
const damagedRefusal = {
  name: 'StoreError',
  code: 'io',
  rule: 'data.damaged',
  message: expect.stringMatching(/^the memory items of "general" could not be read: profiles\.sqlite is damaged/),
}

describe('a damaged page met before the background check', () => {
  it('refuses that read and command alone with the damage named, marks the file, and the rest of the store works', async () => {
    const file = await seeded()
    // A page amid the profile's rows: a write beside the first pages (another profile's first item) may have to
    // read its neighbours to make room, which is the write-path case, not this one.
    await damageLeafPage(file, 'memory_items', 20)
    const store = await opened(file)
    expect(store.lastError).toBeNull()
    const general = store.state.profiles.find((p) => p.id === 'general')!
    expect(() => general.memory.items.length).toThrow(expect.objectContaining(damagedRefusal))
    // Marked by the read itself: the next open checks the file whole even if this process stops now.
    expect(existsSync(`${file}.check-due`)).toBe(true)
    // A save whose text an item says reads the list to tell (a new fact is looked up by its key alone, in the index,
    // and is saved: lib/store/db/text-keys.ts).
    await expect(
      store.command({
        op: 'memory.add',
        target: { profileId: 'general' },
        items: [{ text: '第7条事实：用户提到的项目进展' }],
      }),
    ).rejects.toMatchObject(damagedRefusal)

    await store.command({ op: 'session.set', sessionId: 'meanwhile', patch: { note: '损坏之后' } })
    await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户写 Rust' }] })
    expect(store.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((i) => i.text)).toEqual(['用户写 Rust'])
    await vi.waitFor(() => expect(store.health.check).toMatchObject({ state: 'damaged' }), { timeout: 20_000 })
    expect(store.lastError?.why.key).toBe('damaged')
    await store.close()
    open.splice(0)

    const next = await opened(file)
    expect(next.lastError?.why).toMatchObject({ outcome: 'salvaged' })
    expect(next.state.profiles.find((p) => p.id === 'general')!.rules).toBe('完好')
    expect(next.state.sessions.get('meanwhile')?.note).toBe('损坏之后')
    expect(next.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((i) => i.text)).toEqual(['用户写 Rust'])
    // Every row on the pages that were not damaged is there.
    expect(next.state.profiles.find((p) => p.id === 'general')!.memory.items.length).toBeGreaterThan(2_900)
  })

  it('starts the check again when a read meets damage after a check that found the file sound', async () => {
    const file = await seeded()
    const store = await opened(file)
    await vi.waitFor(() => expect(store.health.check).toMatchObject({ state: 'sound' }), { timeout: 20_000 })
    // The page goes bad while dsh runs (a failing disk): this connection has not read it yet.
    await damageLeafPage(file, 'memory_items')
    const general = store.state.profiles.find((p) => p.id === 'general')!
    expect(() => general.memory.items.length).toThrow(expect.objectContaining(damagedRefusal))
    expect(store.health.check).toEqual({ state: 'pending' })
    await vi.waitFor(() => expect(store.health.check).toMatchObject({ state: 'damaged' }), { timeout: 20_000 })
    expect(existsSync(`${file}.check-due`)).toBe(true)
  })

  it("keeps the check's finding as the store's last error when the day's backup then meets the damaged page", async () => {
    const file = await seeded()
    await damageLeafPage(file, 'memory_items')
    const lines: string[] = []
    const store = await opened(file, { warn: (m) => lines.push(m), error: (m) => lines.push(m) })
    const general = store.state.profiles.find((p) => p.id === 'general')!
    expect(() => general.memory.items.length).toThrow(expect.objectContaining(damagedRefusal))
    await vi.waitFor(() => expect(store.health.check).toMatchObject({ state: 'damaged' }), { timeout: 20_000 })
    // A save after the check: today has no backup yet, so it asks for one, and that copy reads the damaged page.
    await store.command({ op: 'session.set', sessionId: 'after', patch: { note: '检查之后' } })
    await vi.waitFor(() => expect(lines.join('\n')).toMatch(/daily backup of \d{4}-\d{2}-\d{2} failed/), {
      timeout: 20_000,
    })
    expect(store.lastError?.why.key).toBe('damaged')
  })

  it('a turn ledger read that meets a damaged page answers as before and marks the file for the check', async () => {
    const t = await tempDir('ap-damaged-read')
    dirs.push(t)
    const seed = await openStore({ file: t.file })
    const sessions = Array.from({ length: 200 }, (_, i) => `s${i}`)
    const used = [{ id: 'm1', text: '用户在学日语，每天练习半小时的听力和口语', layer: 'profile' as const }]
    await Promise.all(
      sessions.flatMap((sessionId) =>
        [1, 2, 3, 4, 5].map((turn) =>
          seed.command({ op: 'turn.record', sessionId, turn, profileId: 'general', memories: used }),
        ),
      ),
    )
    await seed.close()
    await damageLeafPage(seed.file, 'turns')
    const store = await opened(seed.file)
    const read = sessions.map((s) => Object.keys(store.turnsOf(s)).length)
    // The sessions whose rows sat on the damaged page read as none, as a failed ledger read always did.
    expect(read.filter((n) => n === 0).length).toBeGreaterThan(0)
    expect(read.filter((n) => n === 5).length).toBeGreaterThan(100)
    expect(existsSync(`${seed.file}.check-due`)).toBe(true)
    await vi.waitFor(() => expect(store.health.check).toMatchObject({ state: 'damaged' }), { timeout: 20_000 })
  })
})

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
