/**
 * The data is the user's alone: the data directory, the database with its -wal and -shm, avatars and backups are
 * 0700 folders and 0600 files however the process's umask would make them, and the 0755 / 0644 an older version
 * left are narrowed when the store opens the data for writing.
 */
import { chmodSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { pngAvatar } from '../support/store-fixtures.ts'
import { backedUp, perTest } from '../support/store-helpers.ts'

const { start, dir: tempFolder, closed } = perTest()
let umask: number
beforeEach(() => {
  // The usual umask, which makes files 0644 and folders 0755 unless the code says otherwise.
  umask = process.umask(0o022)
})
afterEach(() => {
  process.umask(umask)
})

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)
const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

/** Every folder and file under `dir` (itself included) with its mode. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { '.': modeOf(dir) }
  for (const rel of readdirSync(dir, { recursive: true }) as string[]) out[rel] = modeOf(join(dir, rel))
  return out
}

it('a new data directory: every folder 0700, every file 0600 (database, -wal, -shm, avatars, backups)', async () => {
  const data = join(await tempFolder('ap-modes'), 'agent-profiles')
  const store = await start(join(data, 'profiles.sqlite'))
  await store.command({ op: 'profile.update', id: 'general', patch: { rules: '私密', avatar: pngAvatar(300) } })
  await store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户的私事' }] })
  await backedUp(store)
  await store.restoreBackup(store.backups()[0]!.name)
  const all = modes(data)
  expect(Object.keys(all)).toEqual(
    expect.arrayContaining([
      'profiles.sqlite',
      'profiles.sqlite-wal',
      'profiles.sqlite-shm',
      'profiles.avatars',
      'profiles.backups',
    ]),
  )
  expect(Object.keys(all).filter((f) => f.startsWith('profiles.backups/')).length).toBeGreaterThanOrEqual(6)
  for (const [path, mode] of Object.entries(all)) {
    const folder = statSync(join(data, path)).isDirectory()
    expect(`${path} ${mode}`).toBe(`${path} ${folder ? '700' : '600'}`)
  }
})

it('data an older version left 0755 / 0644 is narrowed when the store opens it', async () => {
  const data = join(await tempFolder('ap-modes-old'), 'agent-profiles')
  const first = await start(join(data, 'profiles.sqlite'))
  await first.command({ op: 'profile.update', id: 'general', patch: { avatar: pngAvatar(300) } })
  await settle()
  await first.close()
  closed(first)
  for (const [path] of Object.entries(modes(data)))
    chmodSync(join(data, path), statSync(join(data, path)).isDirectory() ? 0o755 : 0o644)
  const store = await start(join(data, 'profiles.sqlite'))
  await store.command({ op: 'profile.update', id: 'general', patch: { rules: '再写一次' } })
  const after = modes(data)
  for (const path of ['.', 'profiles.avatars', 'profiles.backups']) expect(`${path} ${after[path]}`).toBe(`${path} 700`)
  for (const path of ['profiles.sqlite', 'profiles.sqlite-wal', 'profiles.sqlite-shm'])
    expect(`${path} ${after[path]}`).toBe(`${path} 600`)
})
