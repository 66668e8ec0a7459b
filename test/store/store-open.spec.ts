// Every way the store opens keeps what its caller asked for: here, leaving memory writes out of the history
// (`recordHistory: false`, bench/history.bench.ts measures with it). A store started after its damaged database was
// kept aside used to drop the choice and record them all the same.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { factoryState } from '../../lib/state/defaults.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { tempDir } from '../support/store-fixtures.ts'

const dirs: { dispose(): Promise<void> }[] = []
const stores: ProfileStore[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await d.dispose()
})

/** The ways the data can be found when the store opens, each made on a fresh `<dir>/profiles.sqlite`. */
const found: [string, (file: string) => Promise<void>][] = [
  ['no data yet', async () => {}],
  [
    'a database this version wrote',
    async (file) => {
      const seed = await openStore({ file })
      await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '先有的数据' } })
      await seed.close()
    },
  ],
  [
    'the JSON data file of the layout before the database (imported)',
    async (file) => {
      await writeFile(
        file.replace(/\.sqlite$/, '.json'),
        JSON.stringify({ ...factoryState(1), revision: 0, sessions: {} }),
      )
    },
  ],
  [
    'bytes that are no database (kept aside, started afresh)',
    async (file) => writeFile(file, '{"version":1,"activeId":"gen'),
  ],
]

async function opened(make: (file: string) => Promise<void>, recordHistory?: boolean): Promise<ProfileStore> {
  const t = await tempDir('ap-open')
  dirs.push(t)
  const file = join(t.dir, 'profiles.sqlite')
  await make(file)
  const store = await openStore(recordHistory === undefined ? { file } : { file, recordHistory })
  stores.push(store)
  return store
}

const remember = (store: ProfileStore) =>
  store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户叫小林' }] })

describe("every way the store opens keeps the caller's choice about the memory history", () => {
  it.each(found)('%s: recordHistory false leaves memory writes out of the history', async (label, make) => {
    const store = await opened(make, false)
    if (label.startsWith('bytes')) expect(store.lastError?.keptAs).toMatch(/profiles\.sqlite\.bad-/)
    await remember(store)
    expect(store.state.profiles.find((p) => p.id === 'general')!.memory.items.map((it) => it.text)).toContain(
      '用户叫小林',
    )
    expect(store.state.history).toBeUndefined()
  })

  it.each(found)('%s: by default each memory write is in the history', async (_label, make) => {
    const store = await opened(make)
    await remember(store)
    expect(Object.keys(store.state.history ?? {})).toEqual(['general'])
  })
})
