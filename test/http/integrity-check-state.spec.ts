/**
 * The data file's soundness in the routes' replies, over a real store whose check runs for real on its thread: the
 * state reply tells what the background integrity check found (lib/store/db/background-check.ts, `meta.data.check`),
 * and a route that reads a damaged page of the archive answers with the damage named, as the page words it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { damageLeafPage } from '../support/damaged-page.ts'
import { serveHealth } from '../support/health-server.ts'
import { tempDir } from '../support/store-fixtures.ts'

const done: { dispose(): Promise<void> }[] = []
let stop: (() => void) | undefined
let store: ProfileStore | undefined

afterEach(async () => {
  stop?.()
  stop = undefined
  await store?.close()
  store = undefined
  for (const d of done.splice(0)) await d.dispose()
})

/** Serve the routes over `open` with the plugin's meta of the data's health. */
async function serve(open: ProfileStore) {
  const served = await serveHealth(open)
  stop = served.close
  return served.api
}

describe('the integrity check in the state reply', () => {
  it('says the check has not ended while it runs, then that it found the data file sound and when', async () => {
    const t = await tempDir('ap-check-state')
    done.push(t)
    const seed = await openStore({ file: t.file })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '完好' } })
    await seed.close()
    const started = Date.now()
    store = await openStore({ file: t.file })
    const api = await serve(store)
    expect(store.health.check).toEqual({ state: 'pending' })
    await vi.waitFor(async () => expect((await api.get('/__ap/state')).json.meta.data.check.state).toBe('sound'), {
      timeout: 20_000,
    })
    const { check } = (await api.get('/__ap/state')).json.meta.data
    expect(check.at).toBeGreaterThanOrEqual(started)
    expect(check.at).toBeLessThanOrEqual(Date.now())
  })

  it('says nothing of a check where there is no data file to check yet', async () => {
    const t = await tempDir('ap-check-state')
    done.push(t)
    store = await openStore({ file: t.file })
    const api = await serve(store)
    expect((await api.get('/__ap/state')).json.meta.data).not.toHaveProperty('check')
  })
})

describe('a damaged page in a route reply', () => {
  it('a memory list that reads a damaged page is refused with the damage named, and the other lists still answer', async () => {
    const t = await tempDir('ap-check-state')
    done.push(t)
    const seed = await openStore({ file: t.file })
    const items = Array.from({ length: 3_000 }, (_, i) => ({
      id: `m${i}`,
      text: `第${i}条事实`,
      source: 'auto' as const,
    }))
    await seed.command({ op: 'profile.update', id: 'general', patch: { memory: { summary: '', items } } })
    await seed.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户写 Rust' }] })
    await seed.close()
    await damageLeafPage(seed.file, 'memory_items')
    store = await openStore({ file: seed.file })
    const api = await serve(store)
    const refused = await api.get('/__ap/memory/search?layer=profile&owner=general&limit=200')
    expect(refused.status).toBe(500)
    expect(refused.json.error).toMatchObject({ code: 'io', rule: 'data.damaged' })
    expect(refused.json.error.message).toMatch(/profiles\.sqlite is damaged .*nothing was changed/)
    expect(refused.text).not.toContain(t.dir)
    const other = await api.get('/__ap/memory/search?layer=profile&owner=coder')
    expect(other.status).toBe(200)
    expect(other.text).toContain('用户写 Rust')
  })
})
