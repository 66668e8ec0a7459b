import { createHash } from 'node:crypto'
import { readFile, readdir, stat, utimes, writeFile } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { factoryState } from '../../lib/state/defaults.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { webpAvatar } from '../support/store-fixtures.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => {
  await ctx?.dispose()
})
const reopen = (): Promise<ProfileStore> => ctx.open()
const avatarDir = () => join(ctx.dir, 'profiles.avatars')
const avatarFiles = async () => (await readdir(avatarDir()).catch(() => [] as string[])).sort()
const sha = (dataUrl: string) =>
  createHash('sha256')
    .update(Buffer.from(dataUrl.split(',')[1]!, 'base64'))
    .digest('hex')

describe('on-disk layout', () => {
  it('keeps avatars in content-addressed files and only references them from the database', async () => {
    ctx = await freshStore()
    const avatar = webpAvatar(60_000)
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { avatar } })
    const db = new DatabaseSync(ctx.store.file, { readOnly: true })
    const row = db.prepare("SELECT data FROM profiles WHERE id = 'general'").get() as { data: string }
    const bytesInDb = db.prepare('SELECT sum(length(data)) AS n FROM profiles').get() as { n: number }
    db.close()
    expect(row.data).not.toContain('base64')
    expect(JSON.parse(row.data).avatarFile).toBe(`${sha(avatar)}.webp`)
    expect(bytesInDb.n).toBeLessThan(10_000)
    expect(await avatarFiles()).toEqual([`${sha(avatar)}.webp`])
    const bytes = await readFile(join(avatarDir(), `${sha(avatar)}.webp`))
    expect(bytes.equals(Buffer.from(avatar.split(',')[1]!, 'base64'))).toBe(true)
  })

  it('a reopened store has exactly the state and revision it acknowledged, avatars included', async () => {
    ctx = await freshStore()
    await ctx.store.command({
      op: 'profile.update',
      id: 'coder',
      patch: { avatar: webpAvatar(20_000), rules: '新规则' },
    })
    await ctx.store.command({ op: 'session.set', sessionId: 's1', patch: { profileId: 'coder', note: 'n' } })
    const again = await reopen()
    expect(again.state).toEqual(ctx.store.state)
    expect(again.revision).toBe(2)
    expect(again.avatarHash('coder')).toBe(ctx.store.avatarHash('coder'))
    expect(again.avatarHash('general')).toBe('')
  })

  it('shares one file between equal avatars and removes a file once nothing references it', async () => {
    ctx = await freshStore()
    const a = webpAvatar(10_000)
    const b = webpAvatar(10_000)
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { avatar: a } })
    const hashA = ctx.store.avatarHash('general')
    const dup = await ctx.store.command({ op: 'profile.duplicate', id: 'general' })
    expect(await avatarFiles()).toEqual([`${sha(a)}.webp`])
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { avatar: b } })
    expect(ctx.store.avatarHash('general')).not.toBe(hashA)
    expect(await avatarFiles()).toEqual([`${sha(a)}.webp`, `${sha(b)}.webp`].sort())
    await ctx.store.command({ op: 'profile.delete', id: (dup.profile as { id: string }).id })
    expect(await avatarFiles()).toEqual([`${sha(b)}.webp`])
  })

  it('the first save after a crash removes the avatar files and temp files it left long ago, and nothing else; opening alone touches nothing', async () => {
    ctx = await freshStore()
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { avatar: webpAvatar(5_000) } })
    await ctx.store.close()
    const kept = await avatarFiles()
    const orphan = webpAvatar(5_000)
    const left = [`${sha(orphan)}.webp`, `${sha(orphan)}.webp.123456`]
    await writeFile(join(avatarDir(), left[0]!), Buffer.from(orphan.split(',')[1]!, 'base64'))
    await writeFile(join(avatarDir(), left[1]!), 'half')
    await writeFile(join(avatarDir(), 'notes.txt'), 'mine')
    // Written a moment ago, an unreferenced file may be another process's avatar about to be committed: it stays.
    const recent = webpAvatar(5_000)
    await writeFile(join(avatarDir(), `${sha(recent)}.webp`), Buffer.from(recent.split(',')[1]!, 'base64'))
    const longAgo = new Date(Date.now() - 3_600_000)
    for (const f of [...left, 'notes.txt']) await utimes(join(avatarDir(), f), longAgo, longAgo)
    // Opening only reads.
    const again = await reopen()
    expect(await avatarFiles()).toEqual([...kept, ...left, 'notes.txt', `${sha(recent)}.webp`].sort())
    await again.command({ op: 'profile.activate', id: 'coder' })
    expect(await avatarFiles()).toEqual([...kept, 'notes.txt', `${sha(recent)}.webp`].sort())
  })

  it('imports a data file with avatars inline (the oldest single-JSON layout), moving them out into files', async () => {
    const state = factoryState(1000)
    const avatar = webpAvatar(8_000)
    ctx = await freshStore(
      JSON.stringify({
        ...state,
        sessions: {},
        profiles: state.profiles.map((p, i) => (i === 1 ? { ...p, avatar } : p)),
      }),
    )
    expect(ctx.store.lastError).toBeNull()
    expect(ctx.store.state.profiles[1]!.avatar).toBe(avatar)
    expect(await avatarFiles()).toEqual([`${sha(avatar)}.webp`])
    expect((await reopen()).state.profiles[1]!.avatar).toBe(avatar)
  })

  it('a missing or damaged avatar file costs only that avatar: the profile shows its emoji and lastError says so', async () => {
    ctx = await freshStore()
    const a = webpAvatar(5_000)
    await ctx.store.command({ op: 'profile.update', id: 'general', patch: { avatar: a, rules: '保住' } })
    await ctx.store.command({ op: 'profile.update', id: 'coder', patch: { avatar: webpAvatar(5_000) } })
    await writeFile(join(avatarDir(), `${sha(a)}.webp`), 'tampered')
    const again = await reopen()
    expect(again.state.profiles[0]).toMatchObject({ avatar: '', rules: '保住' })
    expect(again.state.profiles[1]!.avatar).not.toBe('')
    expect(again.lastError?.message).toMatch(/avatar file/)
    expect(again.lastError?.why).toEqual({ key: 'avatars', params: { count: 1, files: [expect.any(String)] } })
    await again.command({ op: 'profile.activate', id: 'writer' })
    expect(await avatarFiles()).toContain(`${sha(a)}.webp`)
  })

  it('creates the data directory and the database on the first write, and writes nothing before it', async () => {
    ctx = await freshStore()
    const nested = join(ctx.dir, 'deep', 'er', 'profiles.sqlite')
    const s = await ctx.open(nested)
    await expect(stat(join(ctx.dir, 'deep'))).rejects.toThrow()
    await s.command({ op: 'profile.activate', id: 'coder' })
    const db = new DatabaseSync(nested, { readOnly: true })
    expect(db.prepare("SELECT value FROM meta WHERE key = 'activeId'").get()).toEqual({ value: 'coder' })
    expect(db.prepare("SELECT value FROM meta WHERE key = 'revision'").get()).toEqual({ value: 1 })
    db.close()
  })
})
