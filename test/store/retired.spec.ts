import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RETIRED_KEPT, retiredFile, trackRetired } from '../../lib/store/retired.ts'
import { openStore, type ProfileStore } from '../../lib/store/store.ts'
import { pngDataUrl } from '../support/png.ts'

let dir: string
let store: ProfileStore
const quiet = { warn() {} }

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ap-retired-'))
  store = await openStore({ file: join(dir, 'profiles.json') })
})

afterEach(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('deleted profiles keep their look for old turns', () => {
  it('keeps name, emoji and avatar of a deleted profile, across a restart, and nothing it knew', async () => {
    const file = retiredFile(store.file)
    expect(file).toBe(join(dir, 'profiles.retired.json'))
    const retired = trackRetired(store, file, quiet)
    const avatar = pngDataUrl(8, 8, 3)
    const { profile } = await store.command({ op: 'profile.create', profile: { name: 'Old friend', emoji: '🦉', avatar, memory: { summary: 'secret summary', items: [] } } }) as unknown as { profile: { id: string } }
    expect(retired.get(profile.id)).toBeUndefined()
    await store.command({ op: 'profile.delete', id: profile.id })
    expect(retired.get(profile.id)).toMatchObject({ id: profile.id, name: 'Old friend', emoji: '🦉', avatar })
    await retired.flush()
    retired.stop()
    expect(readFileSync(file, 'utf8')).not.toContain('secret summary')
    const again = trackRetired(store, file, quiet)
    expect(again.get(profile.id)?.name).toBe('Old friend')
    again.stop()
  })

  it('is bounded, dropping the profiles deleted longest ago', async () => {
    const retired = trackRetired(store, retiredFile(store.file), quiet)
    const ids: string[] = []
    for (let i = 0; i < RETIRED_KEPT + 2; i++) {
      const { profile } = await store.command({ op: 'profile.create', profile: { name: `P${i}` } }) as unknown as { profile: { id: string } }
      await store.command({ op: 'profile.delete', id: profile.id })
      ids.push(profile.id)
    }
    await retired.flush()
    expect(retired.get(ids[0]!)).toBeUndefined()
    expect(retired.get(ids[1]!)).toBeUndefined()
    expect(retired.get(ids.at(-1)!)?.name).toBe(`P${RETIRED_KEPT + 1}`)
    retired.stop()
  })

  it('a damaged file starts empty instead of failing', async () => {
    const file = retiredFile(store.file)
    writeFileSync(file, '{not json')
    const retired = trackRetired(store, file, quiet)
    expect(retired.get('x')).toBeUndefined()
    retired.stop()
  })
})
