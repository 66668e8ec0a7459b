/**
 * The database's whole-file integrity check runs after the start, in the background, not at every open: an open reads
 * the schema alone, the check reads on a thread of its own (never holding the event loop), and damage it finds is said
 * (lastError, the log) and handled at the next start as the open-time check handled it (kept aside, readable rows
 * salvaged), losing nothing saved meanwhile.
 */
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { damageLeafPage } from '../support/damaged-page.ts'
import { memoryLog, tempDir } from '../support/store-fixtures.ts'

const extra: { dispose(): Promise<void> }[] = []
const open: ProfileStore[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const s of open.splice(0)) await s.close()
  for (const d of extra.splice(0)) await d.dispose()
})

/** A closed database of ours holding a profile's rules and `sessions` conversations. */
async function seeded(sessions: number): Promise<string> {
  const t = await tempDir('ap-check')
  extra.push(t)
  const seed = await openStore({ file: t.file })
  await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '完好' } })
  const commands = Array.from({ length: sessions }, (_, i) => ({
    op: 'session.set',
    sessionId: `s${i}`,
    patch: { note: `备注 ${i}` },
  }))
  await Promise.all(commands.map((c) => seed.command(c as never)))
  // Each add is a row of the memory history too, which nothing reads at the start.
  for (let i = 0; i < 400; i++)
    await seed.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: `事实 ${i}` }] })
  await seed.close()
  return seed.file
}

/** Every SQL text prepared on any connection from now on. */
function recordStatements(): string[] {
  const seen: string[] = []
  const prepare = DatabaseSync.prototype.prepare
  vi.spyOn(DatabaseSync.prototype, 'prepare').mockImplementation(function (this: DatabaseSync, sql: string) {
    seen.push(sql)
    return prepare.call(this, sql)
  })
  return seen
}

const isCheck = (sql: string) => /quick_check|integrity_check/i.test(sql)

describe('the integrity check in the background', () => {
  it('a store of many rows opens without a whole-file check, which then runs to its end off the host thread', async () => {
    const file = await seeded(2_000)
    const seen = recordStatements()
    const store = await openStore({ file })
    open.push(store)
    expect(seen.filter(isCheck)).toEqual([])
    expect(store.state.sessions.size).toBe(2_000)
    expect(store.health.check).toEqual({ state: 'pending' })
    await vi.waitFor(() => expect(store.health.check).toMatchObject({ state: 'sound' }), { timeout: 20_000 })
    // node:sqlite is synchronous: a check statement prepared here would have held the event loop while it read.
    expect(seen.filter(isCheck)).toEqual([])
    expect(store.lastError).toBeNull()
  })

  it('the open after a check that found damage reads the file whole, and a sound one is trusted again after', async () => {
    const file = await seeded(10)
    await writeFile(`${file}.check-due`, 'damage found\n')
    const seen = recordStatements()
    const store = await openStore({ file })
    open.push(store)
    expect(seen.filter(isCheck).some((s) => s.includes('"memory_items"'))).toBe(true)
    expect(store.lastError).toBeNull()
    expect(existsSync(`${file}.check-due`)).toBe(false)
  })

  it('finds a damaged page of the archive, says so, and the next start salvages everything, what was saved meanwhile too', async () => {
    const file = await seeded(2_000)
    await damageLeafPage(file, 'memory_items')

    const log = memoryLog()
    const seen = recordStatements()
    const store = await openStore({ file, log })
    open.push(store)
    expect(store.lastError).toBeNull()
    await store.command({ op: 'session.set', sessionId: 'before', patch: { note: '检查之前' } })
    await vi.waitFor(() => expect(store.lastError?.why.key).toBe('damaged'), { timeout: 20_000 })
    expect(store.health.check).toMatchObject({ state: 'damaged' })
    expect(existsSync(`${file}.check-due`)).toBe(true)
    expect(seen.filter(isCheck)).toEqual([])
    expect(log.lines.some((l) => /^error agent-profiles: .*failed its integrity check/.test(l))).toBe(true)
    await store.command({ op: 'session.set', sessionId: 'after', patch: { note: '检查之后' } })
    await store.close()
    open.splice(0)

    const next = await openStore({ file })
    open.push(next)
    expect(next.lastError?.why).toMatchObject({
      key: expect.stringMatching(/^(damaged|not-a-database)$/),
      outcome: 'salvaged',
    })
    expect(next.state.profiles[0]!.rules).toBe('完好')
    expect(next.state.sessions.get('before')?.note).toBe('检查之前')
    expect(next.state.sessions.size).toBe(2_002)
    expect(next.state.sessions.get('after')?.note).toBe('检查之后')
  })
})
