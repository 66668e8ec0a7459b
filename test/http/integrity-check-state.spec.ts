/**
 * The state reply tells the page what the background integrity check of the data file found (lib/store/db/
 * background-check.ts, `meta.data.check`): the route over a real store whose check runs for real on its thread.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createHandler } from '../../lib/http/routes.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { httpClient, routeMeta } from '../support/http.ts'
import { tempDir } from '../support/store-fixtures.ts'

const done: { dispose(): Promise<void> }[] = []
let server: Server | undefined
let store: ProfileStore | undefined

afterEach(async () => {
  server?.closeAllConnections()
  server?.close()
  await store?.close()
  for (const d of done.splice(0)) await d.dispose()
})

/** Serve the routes over `open` with the plugin's meta of the data's health. */
async function serve(open: ProfileStore) {
  server = createServer(
    createHandler({
      store: open,
      preview: (p, s) => renderProfile(p, s),
      meta: () => ({ ...routeMeta(open), data: open.health }),
      trustedHosts: () => [],
      log: { warn: () => {}, error: () => {} },
    }),
  )
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return httpClient((server.address() as AddressInfo).port)
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
