import { appendFile, readFile, readdir, stat, unlink, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { factoryState } from '../../lib/store/defaults.ts'
import type { Profile } from '../../lib/shared/model.ts'
import { WAL_LIMIT } from '../../lib/store/persist.ts'
import { profileChanges } from '../../lib/store/wal.ts'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { canonicalJson, stateDigest, webpAvatar } from '../support/store-fixtures.ts'

// A log append that runs out of space half way: half the line reaches the file, then ENOSPC.
const log = vi.hoisted(() => ({ fullAfterHalf: false }))
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  const open: typeof real.open = async (path, ...rest) => {
    const handle = await real.open(path, ...rest)
    if (!String(path).endsWith('.wal')) return handle
    const write = handle.write.bind(handle) as (data: Buffer) => Promise<{ bytesWritten: number; buffer: Buffer }>
    handle.write = (async (data: Buffer) => {
      if (!log.fullAfterHalf) return write(data)
      await write(data.subarray(0, data.length >> 1))
      throw Object.assign(new Error(`ENOSPC: no space left on device, write '${String(path)}'`), { code: 'ENOSPC' })
    }) as typeof handle.write
    return handle
  }
  return { ...real, open, default: { ...real, open } }
})

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => {
  log.fullAfterHalf = false
  await ctx?.dispose()
})
const reopen = (): Promise<ProfileStore> => ctx.open()
const walFile = () => ctx.file.replace(/\.json$/, '.wal')
const walLines = async () => (await readFile(walFile(), 'utf8')).split('\n').filter((l) => l !== '')
const snapshotRevision = async () => (JSON.parse(await readFile(ctx.file, 'utf8')) as { revision: number }).revision
/** Reopened from disk, the store holds exactly what `store` acknowledged. */
async function expectReloads(store: ProfileStore): Promise<ProfileStore> {
  const again = await reopen()
  expect(again.lastError).toBeNull()
  expect(again.revision).toBe(store.revision)
  expect(canonicalJson(again.state)).toBe(canonicalJson(store.state))
  expect(stateDigest(again)).toBe(stateDigest(store))
  return again
}
const longNote = (i: number) => `第 ${i} 条备注：${'长文本'.repeat(1_300)}`

describe('the write-ahead log', () => {
  it('after the first write, each batch appends one line instead of rewriting the data file, and reloads exactly', async () => {
    ctx = await freshStore()
    const { store } = ctx
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '第一版' } })
    const snapshot = await readFile(ctx.file, 'utf8')
    const commands: Command[] = [
      { op: 'profile.update', id: 'coder', patch: { avatar: webpAvatar(20_000), personality: '新性格' } },
      { op: 'profile.create', profile: { name: '新建' } },
      { op: 'session.set', sessionId: 's1', patch: { profileId: 'coder', note: '只在这里' } },
      { op: 'session.set', sessionId: 's2', patch: { note: '第二个' } },
      { op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '喜欢 Rust' }] },
      { op: 'memory.compress', profileId: 'general', memory: { summary: '工程师', items: [] } },
      { op: 'session.clear', sessionId: 's1' },
      { op: 'profile.delete', id: 'writer' },
      { op: 'profile.activate', id: 'coder' },
      { op: 'memory.undo', profileId: 'general' },
    ]
    for (const cmd of commands) await store.command(cmd)
    expect(await readFile(ctx.file, 'utf8')).toBe(snapshot)
    expect(await walLines()).toHaveLength(commands.length)
    expect((await stat(walFile())).size).toBeLessThan(40_000)
    const again = await expectReloads(store)
    expect(again.state.profiles.map((p) => p.name)).toContain('新建')
    expect(Object.keys(again.state.sessions)).toEqual(['s2'])
  })

  it('a torn last line (never acknowledged) is ignored, and the next write replaces it', async () => {
    ctx = await freshStore()
    const { store } = ctx
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '一' } })
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '二' } })
    const line = (await walLines())[0]!
    await appendFile(walFile(), line.slice(0, 40))
    await store.close()
    const again = await expectReloads(store)
    await again.command({ op: 'profile.update', id: 'general', patch: { rules: '三' } })
    const third = await expectReloads(again)
    expect(third.state.profiles[0]!.rules).toBe('三')
    expect(await walLines()).toHaveLength(2)
  })

  it('ENOSPC half way through an append: refused, memory and disk stay at the previous state, the next write works', async () => {
    ctx = await freshStore()
    const { store } = ctx
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '已保存' } })
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '已保存二' } })
    const before = { state: store.state, revision: store.revision }
    log.fullAfterHalf = true
    await expect(store.command({ op: 'profile.update', id: 'general', patch: { rules: '没存进去' } })).rejects.toMatchObject({ code: 'io', message: expect.stringMatching(/ENOSPC/) })
    expect(store.state).toBe(before.state)
    expect(store.revision).toBe(before.revision)
    expect(store.lastError?.message).toMatch(/ENOSPC/)
    await expectReloads(store)
    log.fullAfterHalf = false
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '之后存进去' } })
    const again = await expectReloads(store)
    expect(again.state.profiles[0]!.rules).toBe('之后存进去')
  })

  it('a damaged line in the middle: factory defaults, lastError, the data file and its log kept aside and never overwritten', async () => {
    ctx = await freshStore()
    const { store } = ctx
    for (const rules of ['一', '二', '三']) await store.command({ op: 'profile.update', id: 'general', patch: { rules } })
    await store.close()
    const lines = await walLines()
    lines[0] = lines[0]!.replace('二', '贰')
    const wal = `${lines.join('\n')}\n`
    const json = await readFile(ctx.file, 'utf8')
    await writeFile(walFile(), wal)
    const again = await reopen()
    expect(again.state.profiles.map((p) => p.id)).toEqual(['general', 'coder', 'writer'])
    expect(again.state.profiles[0]!.rules).not.toBe('三')
    expect(again.lastError?.message).toMatch(/profiles\.wal is damaged \(line 1 of 2 is damaged\).*started on the factory profiles/)
    expect(again.lastError!.keptAs).toMatch(/profiles\.json\.bad-/)
    const kept = (await readdir(ctx.dir)).filter((f) => f.includes('.bad-')).sort()
    expect(kept).toHaveLength(2)
    await again.command({ op: 'profile.create', profile: { name: '重新开始' } })
    await again.command({ op: 'profile.activate', id: 'coder' })
    expect(await readFile(again.lastError!.keptAs!, 'utf8')).toBe(json)
    expect(await readFile(`${ctx.dir}/${kept.find((f) => f.startsWith('profiles.wal'))!}`, 'utf8')).toBe(wal)
    const third = await expectReloads(again)
    expect(third.state.profiles).toHaveLength(4)
  })

  it('a log without its data file is kept aside, not applied to the factory profiles', async () => {
    ctx = await freshStore()
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { rules: '一' } })
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { rules: '二' } })
    await ctx.store.close()
    const wal = await readFile(walFile(), 'utf8')
    await unlink(ctx.file)
    const again = await reopen()
    expect(again.lastError?.message).toMatch(/profiles\.wal has no profiles\.json to apply to/)
    expect(await readFile(again.lastError!.keptAs!, 'utf8')).toBe(wal)
    await again.command({ op: 'profile.activate', id: 'coder' })
    expect((await reopen()).state.activeId).toBe('coder')
  })

  it('compaction: past the size limit, a write becomes a snapshot and the log is emptied; loads the same', async () => {
    ctx = await freshStore()
    const { store } = ctx
    await store.command({ op: 'profile.activate', id: 'coder' })
    let i = 0
    while ((await snapshotRevision()) === 1) {
      await store.command({ op: 'session.set', sessionId: `s${i % 7}`, patch: { note: longNote(i) } })
      i++
      expect((await stat(walFile())).size).toBeLessThan(WAL_LIMIT + 64_000)
    }
    expect(i).toBeGreaterThan(50)
    expect(await snapshotRevision()).toBe(store.revision)
    expect((await stat(walFile())).size).toBe(0)
    await store.command({ op: 'session.set', sessionId: 's1', patch: { note: '压缩之后' } })
    expect(await walLines()).toHaveLength(1)
    await expectReloads(store)
  })

  it('a crash during compaction (snapshot written, log not yet emptied) loads correctly, and so do later appends', async () => {
    ctx = await freshStore()
    const { store } = ctx
    await store.command({ op: 'profile.activate', id: 'coder' })
    let stale = ''
    for (let i = 0; (await snapshotRevision()) === 1; i++) {
      stale = await readFile(walFile(), 'utf8').catch(() => '')
      await store.command({ op: 'session.set', sessionId: `s${i % 7}`, patch: { note: longNote(i) } })
    }
    await store.close()
    // Put back the lines the compaction removed: every one is at or below the snapshot's revision.
    await writeFile(walFile(), stale)
    const again = await expectReloads(store)
    await again.command({ op: 'session.set', sessionId: 's1', patch: { note: '崩溃之后' } })
    const third = await expectReloads(again)
    expect(third.state.sessions.s1!.note).toBe('崩溃之后')
  })
})

describe('profileChanges: what one batch did to the profile list', () => {
  const base = factoryState(0)
  const [a, b, c] = base.profiles as [Profile, Profile, Profile]
  const edited = (p: Profile) => ({ ...p, role: `${p.role}（改）` })
  const withProfiles = (profiles: Profile[]) => ({ ...base, profiles })

  it('edits in place: only the edited profiles, each beside its previous version, order kept', () => {
    const next = withProfiles([a, edited(b), edited(c)])
    expect(profileChanges(base, next)).toEqual({ changed: [next.profiles[1], next.profiles[2]], previous: [b, c], sameOrder: true })
    expect(profileChanges(base, base)).toEqual({ changed: [], previous: [], sameOrder: true })
  })

  it('a reorder, an insertion or a deletion changes the order; new profiles have no previous version', () => {
    expect(profileChanges(base, withProfiles([b, a, c]))).toEqual({ changed: [], previous: [], sameOrder: false })
    const fresh = { ...a, id: 'fresh' }
    expect(profileChanges(base, withProfiles([a, fresh, b, c]))).toEqual({ changed: [fresh], previous: [undefined], sameOrder: false })
    const bEdited = edited(b)
    expect(profileChanges(base, withProfiles([bEdited, c]))).toEqual({ changed: [bEdited], previous: [b], sameOrder: false })
    // Same length, same ids elsewhere, two swapped: not an edit in place.
    const cEdited = edited(c)
    expect(profileChanges(base, withProfiles([a, cEdited, b]))).toEqual({ changed: [cEdited], previous: [c], sameOrder: false })
  })
})
