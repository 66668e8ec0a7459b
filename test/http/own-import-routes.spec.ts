/**
 * `/__ap/import-own` on the real handler, store and import worker: a large own file is taken at once (202) and
 * written in the background, its progress rising to the end while `/state` answers; a second one meanwhile is
 * refused 409 with rule `import.running` and changes nothing; the status at the end carries the import's report.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHandler } from '../../lib/http/routes.ts'
import { ITEMS_PER_BATCH } from '../../lib/store/import-batches.ts'
import type { OwnImportStatus } from '../../lib/shared/own-import.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { ownImportBody } from '../support/hostile-files.ts'
import { httpClient, routeMeta, type HttpClient } from '../support/http.ts'
import { freshStore } from '../support/store-helpers.ts'

let store: ProfileStore
let dispose: () => Promise<void>
let handler: ReturnType<typeof createHandler>
let server: Server
let api: HttpClient

beforeEach(async () => {
  ;({ store, dispose } = await freshStore())
  const log = { warn: () => undefined, error: () => undefined }
  handler = createHandler({
    store,
    preview: (p, s) => renderProfile(p, s),
    meta: () => routeMeta(store),
    trustedHosts: () => [],
    log,
  })
  server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  api = httpClient((server.address() as AddressInfo).port)
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await handler.own.close()
  await handler.imports.close()
  await dispose()
})

/** An own envelope of `profiles` × `items`, as the page sends it once the user said it is theirs. */
const ownBody = (profiles: number, items: number) =>
  ownImportBody('big', 'Big', profiles, items, (p, i) => `f${p}.${i}`)

describe('the background import of a large own file', () => {
  it('answers 202 at once, shows progress rising to the end while /state answers, and ends with the report', async () => {
    const started = await api.post('/__ap/import-own', ownBody(6, 8 * ITEMS_PER_BATCH))
    expect(started.status).toBe(202)
    const first = started.json.status as OwnImportStatus
    expect(first).toMatchObject({ state: 'running', file: 'mine.json', total: 6 * (1 + 8 * ITEMS_PER_BATCH) })
    const seen: number[] = []
    let status = first
    while (status.state === 'running') {
      expect((await api.get('/__ap/state')).status).toBe(200)
      status = (await api.get('/__ap/import-own')).json.status
      seen.push(status.done)
    }
    expect(status.state).toBe('done')
    // It was seen part-way: the state answered between batches, not once the whole file was in.
    expect(seen.some((d) => d > 0 && d < first.total)).toBe(true)
    expect(seen).toEqual([...seen].sort((a, b) => a - b))
    expect(status.done).toBe(first.total)
    expect(status.result).toMatchObject({ imported: 6, notice: { key: 'files.imported' } })
    expect(status.result!.files[0]!.profileIds).toEqual(['big0', 'big1', 'big2', 'big3', 'big4', 'big5'])
    expect(store.state.profiles.find((p) => p.id === 'big5')?.memory.items).toHaveLength(8 * ITEMS_PER_BATCH)
  })

  it('refuses a second one while one runs, 409 with rule import.running, and changes nothing for it', async () => {
    expect((await api.post('/__ap/import-own', ownBody(3, 6 * ITEMS_PER_BATCH))).status).toBe(202)
    const other = ownBody(1, 10)
    other.files[0]!.name = 'other.json'
    const second = await api.post('/__ap/import-own', other)
    expect(second.status).toBe(409)
    expect(second.json.error).toMatchObject({ code: 'conflict', rule: 'import.running', field: 'files' })
    expect((await api.get('/__ap/import-own')).json.status.file).toBe('mine.json')
    await handler.own.settled()
    expect(store.state.profiles.filter((p) => p.id.startsWith('big')).map((p) => p.id)).toEqual([
      'big0',
      'big1',
      'big2',
    ])
  })

  it('answers idle before any import, and refuses a body that is not one import of one file, naming the field', async () => {
    expect((await api.get('/__ap/import-own')).json.status).toMatchObject({ state: 'idle' })
    const two = ownBody(1, 1)
    two.files.push(two.files[0]!)
    const r = await api.post('/__ap/import-own', two)
    expect(r.status).toBe(400)
    expect(r.json.error).toMatchObject({ code: 'invalid', field: 'files' })
  })
})
