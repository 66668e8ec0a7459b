/**
 * A database SQLite cannot use (bytes that are no database, cut short, another program's, damaged pages, a directory
 * in its place): the store starts from factory defaults or what is still readable, says so, and keeps the file aside,
 * never overwritten; and a failing change subscriber leaves the others and the write alone.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DatabaseSync } from 'node:sqlite'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { childReport, freshStore } from '../support/store-helpers.ts'
import { memoryLog, tempDir } from '../support/store-fixtures.ts'
import { StoreError } from '../../lib/shared/errors.ts'

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
const extra: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  vi.useRealTimers()
  await ctx?.dispose()
  ctx = undefined
  for (const d of extra.splice(0)) await d.dispose()
})

describe('a database SQLite cannot use: factory defaults, lastError, the file kept aside and never overwritten', () => {
  /** A database of ours holding what the store wrote, its bytes then changed by `spoil`. */
  async function spoiled(spoil: (b: Buffer) => Buffer): Promise<Buffer> {
    const t = await tempDir('ap-spoil')
    extra.push(t)
    const seed = await openStore({ file: t.file })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '会被弄坏'.repeat(500) } })
    for (let i = 0; i < 50; i++)
      await seed.command({ op: 'session.set', sessionId: `s${i}`, patch: { note: `备注 ${i}`.repeat(50) } })
    await seed.close()
    return spoil(await readFile(seed.file))
  }
  const bad: [string, () => Promise<Buffer>][] = [
    ['bytes that are no database', async () => Buffer.from('{"version":1,"activeId":"gen')],
    ['a database cut short', () => spoiled((b) => b.subarray(0, Math.floor(b.length / 2) + 100))],
    [
      "another program's database",
      async () => {
        const t = await tempDir('ap-other')
        extra.push(t)
        const db = new DatabaseSync(join(t.dir, 'x.db'))
        db.exec('CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES (1)')
        db.close()
        return readFile(join(t.dir, 'x.db'))
      },
    ],
  ]
  it.each(bad)('%s', async (_label, make) => {
    const content = await make()
    const t = await tempDir('ap-bad')
    extra.push(t)
    const file = join(t.dir, 'profiles.sqlite')
    await writeFile(file, content)
    const store = await openStore({ file })
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder', 'writer'])
    expect(store.lastError?.message).toMatch(/started on the factory profiles/)
    // The page's words: the file is no database of ours (SQLite's own text, when it gave one), and what the store did.
    expect(store.lastError?.why).toMatchObject({
      key: 'not-a-database',
      params: { file: 'profiles.sqlite' },
      outcome: 'factory-kept',
    })
    const keptAs = store.lastError!.keptAs!
    expect(keptAs).toMatch(/profiles\.sqlite\.bad-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/)
    expect((await readFile(keptAs)).equals(content)).toBe(true)
    await store.command({ op: 'profile.create', profile: { name: '重新开始' } })
    expect((await readFile(keptAs)).equals(content)).toBe(true)
    await store.close()
    const again = await openStore({ file })
    expect(again.lastError).toBeNull()
    expect(again.state.profiles).toHaveLength(4)
    await again.close()
  })

  it('damaged pages: the file is kept aside, and every row still readable is copied into the new database first', async () => {
    const t = await tempDir('ap-damaged')
    extra.push(t)
    const seed = await openStore({ file: t.file })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '会被弄坏'.repeat(500) } })
    await seed.command({
      op: 'memory.add',
      target: { profileId: 'coder' },
      items: [{ text: '用户写 Rust' }, { text: '用户用 Vim' }],
    })
    for (let i = 0; i < 50; i++)
      await seed.command({ op: 'session.set', sessionId: `s${i}`, patch: { note: `备注 ${i}`.repeat(50) } })
    const original = new Map([...seed.state.sessions.keys()].map((k) => [k, seed.state.sessions.get(k)]))
    await seed.close()
    const db = new DatabaseSync(seed.file, { readOnly: true })
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (r) => r.name,
    )
    // Every row of every table, but the schema number (the new database has its own).
    const rows =
      tables.reduce((n, name) => n + (db.prepare(`SELECT count(*) AS n FROM ${name}`).get() as { n: number }).n, 0) - 1
    // The conversations' root page is spared, so that some conversations stay readable whatever page it lands on.
    const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").get() as {
      rootpage: number
    }
    db.close()
    const content = Buffer.from(await readFile(seed.file))
    // So are the schema's own pages: page 1, and its children when the schema outgrew it (an interior page, type 5):
    // with them damaged no table's definition can be read, and nothing is left that a salvage could copy.
    const spared = new Set([1, rootpage])
    if (content[100] === 0x05) {
      spared.add(content.readUInt32BE(108))
      for (let c = 0; c < content.readUInt16BE(103); c++)
        spared.add(content.readUInt32BE(content.readUInt16BE(112 + 2 * c)))
    }
    for (let at = 4096; at < content.length; at += 4096 * 2)
      if (!spared.has(at / 4096 + 1)) content.fill(0x5a, at, at + 16)
    await writeFile(seed.file, content)

    const store = await openStore({ file: seed.file })
    expect(store.lastError?.message).toMatch(/failed its integrity check|not a usable database/)
    expect(store.lastError?.message).toMatch(/rows that could still be read were copied into a new one/)
    expect(store.lastError?.why).toMatchObject({
      key: expect.stringMatching(/^(damaged|not-a-database)$/),
      outcome: 'salvaged',
    })
    const keptAs = store.lastError!.keptAs!
    expect(keptAs).toMatch(/profiles\.sqlite\.bad-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/)
    expect((await readFile(keptAs)).equals(content)).toBe(true)
    const salvage = store.health.salvage!
    expect(salvage.keptAs).toBe(keptAs)
    expect(salvage.saved).toBeGreaterThan(0)
    // Half the pages are damaged, the first pages of whole tables among them: those cannot even be counted.
    expect(salvage.lostUncounted).toBe(true)
    expect(salvage.saved + salvage.lost).toBeLessThanOrEqual(rows)
    // What came back is what was saved, not defaults: each conversation salvaged is exactly as it was.
    expect(store.state.sessions.size).toBeGreaterThan(0)
    for (const key of store.state.sessions.keys()) expect(store.state.sessions.get(key)).toEqual(original.get(key))
    console.info(
      `damaged pages: ${salvage.saved} of ${rows} rows saved (${store.state.profiles.length} profiles, ${store.state.sessions.size} of 50 conversations)`,
    )
    await store.command({ op: 'profile.create', profile: { name: '重新开始' } })
    await store.close()
    expect((await readFile(keptAs)).equals(content)).toBe(true)
    const again = await openStore({ file: seed.file })
    expect(again.lastError).toBeNull()
    expect(again.state.sessions.size).toBe(store.state.sessions.size)
    await again.close()
  })

  it('one damaged page of the conversations: only the rows on it are lost, counted exactly', async () => {
    const t = await tempDir('ap-one-page')
    extra.push(t)
    const seed = await openStore({ file: t.file })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '完好' } })
    const sessions = Array.from({ length: 2_000 }, (_, i) => ({
      op: 'session.set',
      sessionId: `s${i}`,
      patch: { note: `备注 ${i}` },
    }))
    await Promise.all(sessions.map((c) => seed.command(c as never)))
    await seed.close()
    const db = new DatabaseSync(seed.file, { readOnly: true })
    const page = db
      .prepare(
        "SELECT pageno, ncell FROM dbstat WHERE name = 'sessions' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 3",
      )
      .get() as { pageno: number; ncell: number }
    db.close()
    const content = Buffer.from(await readFile(seed.file))
    content.fill(0x5a, (page.pageno - 1) * 4096, (page.pageno - 1) * 4096 + 16)
    await writeFile(seed.file, content)
    const store = await openStore({ file: seed.file })
    const salvage = store.health.salvage!
    expect(salvage.lostUncounted).toBeUndefined()
    expect(salvage.lost).toBe(page.ncell)
    expect(store.state.sessions.size).toBe(2_000 - page.ncell)
    expect(store.state.profiles[0]!.rules).toBe('完好')
    console.info(`one damaged page: ${salvage.saved} of ${salvage.saved + salvage.lost} rows saved`)
    await store.close()
  })

  it('an unreadable database (a directory in its place) is moved aside too', async () => {
    ctx = await freshStore()
    await ctx.store.close()
    await mkdir(ctx.store.file)
    await writeFile(join(ctx.store.file, 'inside'), 'keep me')
    const store = await openStore({ file: ctx.store.file })
    expect(store.lastError?.message).toMatch(/could not be read/)
    expect(await readFile(join(store.lastError!.keptAs!, 'inside'), 'utf8')).toBe('keep me')
    await store.close()
  })

  it('a second bad file at the same instant does not overwrite the first one kept aside', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2025-01-02T03:04:05.678Z'))
    const t = await tempDir('ap-twice')
    extra.push(t)
    const file = join(t.dir, 'profiles.sqlite')
    await writeFile(file, 'first bad')
    ctx = { ...(await freshStore()), store: await openStore({ file }) }
    await ctx.store.close()
    await writeFile(file, 'second bad')
    const store = await openStore({ file })
    expect(store.lastError!.keptAs).not.toBe(ctx.store.lastError!.keptAs)
    expect(await readFile(ctx.store.lastError!.keptAs!, 'utf8')).toBe('first bad')
    expect(await readFile(store.lastError!.keptAs!, 'utf8')).toBe('second bad')
    await store.close()
  })

  it('when the bad file cannot be moved aside, nothing is ever written over it', async () => {
    const t = await tempDir('ap-ro-bad')
    extra.push({
      dispose: async () => {
        await chmod(t.dir, 0o755).catch(() => {})
        await t.dispose()
      },
    })
    const file = join(t.dir, 'profiles.sqlite')
    await writeFile(file, 'garbage that must survive', { mode: 0o644 })
    await chmod(t.dir, 0o555)
    const out = await childReport(file)
    expect(out.opened?.message).toMatch(/not a usable database.*could not be moved aside/)
    expect(out.opened?.why).toMatchObject({ key: 'not-a-database', outcome: 'stuck' })
    expect(out.error?.code).toBe('io')
    expect(await readFile(file, 'utf8')).toBe('garbage that must survive')
  })

  it('openStore never throws, even when the data path cannot exist', async () => {
    const t = await tempDir('ap-notdir')
    extra.push(t)
    await writeFile(join(t.dir, 'plain-file'), 'x')
    const store = await openStore({ file: join(t.dir, 'plain-file', 'profiles.sqlite') })
    expect(store.state.profiles).toHaveLength(3)
    await expect(store.command({ op: 'profile.create' })).rejects.toBeInstanceOf(StoreError)
    await store.close()
    const unconfigured = await openStore({ file: undefined as unknown as string })
    expect(unconfigured.lastError?.message).toMatch(/no data file was configured/)
    expect(unconfigured.lastError?.why).toEqual({ key: 'no-data-file', outcome: 'factory-unsaved' })
    await expect(
      unconfigured.command({ op: 'turn.record', sessionId: 's', turn: 1, profileId: 'general' }),
    ).rejects.toMatchObject({ code: 'io' })
    await unconfigured.close()
  })
})

describe('change notification', () => {
  it('a failing subscriber does not affect the others or the write', async () => {
    const t = await tempDir()
    extra.push(t)
    const log = memoryLog()
    const store: ProfileStore = await openStore({ file: t.file, log })
    const heard: string[] = []
    store.onChange(() => {
      throw new Error('subscriber A broke')
    })
    store.onChange((async () => {
      throw new Error('subscriber B rejected')
    }) as () => void)
    const off = store.onChange((s) => heard.push(s.activeId))
    await store.command({ op: 'profile.activate', id: 'coder' })
    off()
    await store.command({ op: 'profile.activate', id: 'writer' })
    // The two failing subscribers have been told of the second write (their four lines are logged), so the one
    // unsubscribed before it would have been told by now too.
    await vi.waitFor(() => expect(log.lines.filter((l) => l.includes('subscriber'))).toHaveLength(4))
    expect(heard).toEqual(['coder'])
    expect(store.state.activeId).toBe('writer')
    await store.close()
  })
})
