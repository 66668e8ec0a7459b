/**
 * The bounds of a file whatever its format: an envelope from the internet brings at most FILE_BOUNDS (values,
 * profiles, items a profile); past them it is not read into the store but reported as large, with what it holds, for
 * the page to ask; sent again as the user's own it may bring up to OWN_FILE_BOUNDS, and past those it is refused
 * whoever made it, before it is parsed. Through the real store's `profiles.importFiles`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ImportFile } from '../../lib/shared/command-inputs.ts'
import { FILE_BOUNDS, OWN_FILE_BOUNDS } from '../../lib/shared/files.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { itemsEnvelope, textFile } from '../support/hostile-files.ts'
import { expectFileFailed, freshStore, importFilesInto } from '../support/store-helpers.ts'

let store: ProfileStore
let dispose: () => Promise<void>
beforeEach(async () => {
  ;({ store, dispose } = await freshStore())
})
afterEach(async () => {
  await dispose()
})

const importFiles = (...files: ImportFile[]) => importFilesInto(store, ...files)
const envelope = (profiles: number, items: number, own?: boolean): ImportFile => ({
  ...textFile('backup.json', itemsEnvelope(profiles, items), 'envelope'),
  ...(own === undefined ? {} : { own }),
})

describe('an envelope from a file', () => {
  it('with more profiles than a shared file brings is reported as large with what it holds, and changes nothing', async () => {
    const e = await expectFileFailed(store, [envelope(FILE_BOUNDS.profiles + 10, 3)], { key: 'largeFile' })
    expect(e).toMatchObject({ field: 'file', params: { profiles: FILE_BOUNDS.profiles + 10, items: 90 } })
  })

  it('with more items in one profile than a shared file brings is reported as large', async () => {
    const e = await expectFileFailed(store, [envelope(1, FILE_BOUNDS.items + 1)], { key: 'largeFile' })
    expect(e.params).toMatchObject({ profiles: 1, items: FILE_BOUNDS.items + 1 })
  })

  it('that is large is imported once the user says it is their own', async () => {
    const r = await importFiles(envelope(FILE_BOUNDS.profiles + 10, 3, true))
    expect(r.files[0]!.error).toBeUndefined()
    expect(r.imported).toBe(FILE_BOUNDS.profiles + 10)
  })

  it("past the bounds of one's own file (the 16 MB envelope of 95 × 10,000 items) is refused before it is parsed, own or not", async () => {
    const text = itemsEnvelope(95, 10_000)
    expect(text.length).toBeLessThan(16 * 1024 * 1024)
    for (const own of [false, true]) {
      const e = await expectFileFailed(store, [{ ...textFile('huge.json', text, 'envelope'), own }], {
        key: 'tooManyValues',
        field: 'file',
        limit: OWN_FILE_BOUNDS.values,
      })
      expect(e.params).toMatchObject({ limit: OWN_FILE_BOUNDS.values })
    }
  })

  it('within the bounds of a shared file is imported as before', async () => {
    const r = await importFiles(envelope(3, 100))
    expect(r.imported).toBe(3)
    expect(store.state.profiles.find((p) => p.id === 'p2')?.memory.items).toHaveLength(100)
  })
})
