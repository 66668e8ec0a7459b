import { afterEach, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { Command, CommandResult } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { canonicalJson, pngAvatar } from '../support/store-fixtures.ts'
import { StoreError } from '../../lib/shared/errors.ts'

// The store's commits, seen from node:sqlite (one COMMIT per batch), which can be made to fail once, and its avatar
// writes, seen from write-file-atomic, which can be held open so that commands pile up behind the first one's commit
// (as they do behind a slow disk).
const disk = vi.hoisted(() => ({
  writes: 0,
  hold: null as null | Promise<void>,
  /** The number of the commit that fails the way SQLite reports a full disk. */
  failWrite: 0,
}))
vi.mock('write-file-atomic', async (importOriginal) => {
  const real = (await importOriginal<{ default: (...args: unknown[]) => Promise<void> }>()).default
  return {
    default: async (file: string, ...rest: unknown[]) => {
      if (disk.hold !== null) await disk.hold
      return real(file, ...rest)
    },
  }
})
vi.mock('../../lib/store/db/sqlite.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lib/store/db/sqlite.ts')>()
  class DatabaseSync extends real.DatabaseSync {
    override exec(sql: string): void {
      if (sql === 'COMMIT' && String(this.location()).endsWith('profiles.sqlite')) {
        if (++disk.writes === disk.failWrite)
          throw Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13 })
      }
      return super.exec(sql)
    }
  }
  return { ...real, DatabaseSync }
})

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => {
  disk.hold = null
  disk.failWrite = 0
  await ctx?.dispose()
  ctx = undefined
})

/** Hold avatar writes that start from now on open until `release()`. */
function holdWrites(): { release(): void } {
  let release!: () => void
  disk.hold = new Promise<void>((r) => (release = r))
  return {
    release: () => {
      disk.hold = null
      release()
    },
  }
}

/** Let the queue move until the store is waiting on the held write. */
const avatar = pngAvatar(300)
const settle = () => new Promise((r) => setTimeout(r, 20))

const rulesOf = (r: CommandResult) => r.state.profiles.find((p) => p.id === 'general')!.rules

it('commands that wait behind a write are written together once, each caller getting its own notice and extras', async () => {
  ctx = await freshStore()
  const { store } = ctx
  // The first save creates the database (a commit of its own): made before counting.
  await store.command({ op: 'session.set', sessionId: 'first-save', patch: { note: '建库' } })
  const heard: number[] = []
  store.onChange((s) => heard.push(s.profiles.length))
  const before = { writes: disk.writes, revision: store.revision }
  const gate = holdWrites()
  const first = store.command({ op: 'profile.update', id: 'general', patch: { rules: '第一条', avatar } })
  await settle()
  const waiting = [
    store.command({ op: 'profile.create', profile: { name: '甲' } }),
    store.command({ op: 'profile.create', profile: { name: '乙' } }),
    store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '喜欢 Rust' }] }),
    store.command({
      op: 'memory.add',
      target: { profileId: 'general' },
      items: [{ text: '喜欢 rust。' }, { text: '住在上海' }],
    }),
    store.command({ op: 'profile.update', id: 'general', patch: { rules: '第二条' } }),
    store.command({ op: 'profile.update', id: 'general', patch: { rules: '第三条' } }),
  ] as const
  gate.release()
  const [a, b, m1, m2, u2, u3] = await Promise.all(waiting)
  // The first command's own write made its own state durable; the batch's callers see the later one.
  expect(rulesOf(await first)).toBe('第一条')
  expect(rulesOf(u3!)).toBe('第三条')

  // One write for the first command, one for the six that waited behind it.
  expect(disk.writes - before.writes).toBe(2)
  expect(heard).toEqual([3, 5])
  expect(store.revision).toBe(before.revision + 7)
  // Each caller's own answer, applied in arrival order.
  expect((a!.profile as { name: string }).name).toBe('甲')
  expect((b!.profile as { name: string }).name).toBe('乙')
  expect(a!.notice.params).toEqual({ name: '甲' })
  expect((m1!.added as { text: string }[]).map((x) => x.text)).toEqual(['喜欢 Rust'])
  expect((m2!.added as { text: string }[]).map((x) => x.text)).toEqual(['住在上海'])
  expect(m2!.duplicates).toEqual(['喜欢 rust。'])
  expect(store.state.activeId).toBe((b!.profile as { id: string }).id)
  // Every caller of the batch sees the state that write made durable.
  for (const r of [a, b, m1, m2, u2, u3]) expect(r!.state).toBe(store.state)
  expect(u2!.notice.key).toBe('profile.updated')

  const again = await openStore({ file: ctx.file })
  expect(canonicalJson(again.state)).toBe(canonicalJson(store.state))
  expect(again.revision).toBe(store.revision)
  await again.close()
})

it('a refused command in a batch is refused alone and changes nothing; the others are written', async () => {
  ctx = await freshStore()
  const { store } = ctx
  const gate = holdWrites()
  await store.command({ op: 'profile.activate', id: 'coder' })
  const first = store.command({ op: 'profile.update', id: 'coder', patch: { avatar } })
  await settle()
  const writes = disk.writes
  const results = await (async () => {
    const pending = [
      store.command({ op: 'profile.update', id: 'general', patch: { rules: '保留' } }),
      store.command({ op: 'profile.update', id: 'general', patch: { name: 'x'.repeat(41) } }),
      store.command({ op: 'profile.delete', id: 'nobody' }),
      store.command({ op: 'profile.update', id: 'general', patch: { personality: '也保留' } }),
    ].map((p) =>
      p.then(
        (r) => r,
        (e: unknown) => e,
      ),
    )
    gate.release()
    return Promise.all(pending)
  })()
  await first
  expect(results[1]).toBeInstanceOf(StoreError)
  expect(results[1]).toMatchObject({ code: 'invalid', field: 'patch.name', limit: 40 })
  expect(results[2]).toMatchObject({ code: 'not-found', field: 'id' })
  // The held one's commit and one for the batch.
  expect(disk.writes - writes).toBe(2)
  const general = store.state.profiles.find((p) => p.id === 'general')!
  expect(general).toMatchObject({ rules: '保留', personality: '也保留' })
  expect(general.name).not.toBe('x'.repeat(41))
  const onDisk = await openStore({ file: ctx.file })
  expect(onDisk.revision).toBe(store.revision)
  expect(onDisk.state.profiles.find((p) => p.id === 'general')).toMatchObject({ name: general.name, rules: '保留' })
  await onDisk.close()
})

it('a failed write fails every command of its batch and leaves memory and disk at the previous state', async () => {
  ctx = await freshStore()
  const { store } = ctx
  const heard: string[] = []
  store.onChange((s) => heard.push(s.activeId))
  const gate = holdWrites()
  await store.command({ op: 'profile.activate', id: 'coder' })
  const first = store.command({ op: 'profile.update', id: 'coder', patch: { avatar } })
  await settle()
  const batch: Command[] = [
    { op: 'profile.update', id: 'general', patch: { rules: '丢失也不能半存' } },
    { op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '写不进去' }] },
    { op: 'profile.activate', id: 'writer' },
    // Changes nothing on its own, but its answer ("writer is current") hangs on the batch before it.
    { op: 'profile.activate', id: 'writer' },
    { op: 'turn.record', sessionId: 's1', turn: 1, profileId: 'writer' },
  ]
  const pending = batch.map((cmd) =>
    store.command(cmd).then(
      (r) => r,
      (e: unknown) => e,
    ),
  )
  // The held commit succeeds; the next one (the whole batch) hits a full disk.
  disk.failWrite = disk.writes + 2
  gate.release()
  await first
  const results = await Promise.all(pending)
  for (const r of results) expect(r).toMatchObject({ code: 'io', message: expect.stringMatching(/disk is full/) })
  expect(store.state.activeId).toBe('coder')
  expect(store.state.profiles.find((p) => p.id === 'general')!.rules).not.toBe('丢失也不能半存')
  expect(store.turnsOf('s1')).toEqual({})
  expect(heard).toEqual(['coder', 'coder'])
  const after = await openStore({ file: ctx.file })
  expect(canonicalJson(after.state)).toBe(canonicalJson(store.state))
  expect(after.revision).toBe(store.revision)
  await after.close()
  // The next batch writes normally.
  await store.command({ op: 'profile.activate', id: 'writer' })
  expect(heard).toEqual(['coder', 'coder', 'writer'])
})
