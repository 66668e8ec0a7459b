/**
 * What the Character Card specs (test/interop/card*.spec.ts) share: a fresh store per test, importing card files into
 * it through `profiles.importFiles` (always merged, as the settings page sends them), exporting a profile as a file,
 * and reading back what a reply added. `store` is the current test's (ES module exports are live).
 */
import { afterEach, beforeEach } from 'vitest'
import { findProfile } from '../../lib/commands/kit.ts'
import { exportFile } from '../../lib/interop/file-export.ts'
import type { Profile } from '../../lib/state/model.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore, importFilesInto, type ImportReply } from './store-helpers.ts'

/** The current test's store. */
export let store: ProfileStore
let dispose: () => Promise<void>

/** Open a fresh store before each test of the calling spec file, and dispose of it after. */
export function cardStoreEachTest(): void {
  beforeEach(async () => {
    ;({ store, dispose } = await freshStore())
  })
  afterEach(async () => {
    await dispose()
  })
}

/** Import `files` into the current store. */
export const importFiles = (...files: Record<string, unknown>[]): Promise<ImportReply> =>
  importFilesInto(store, ...files)

/** A PNG card file as the page sends it (base64 bytes). */
export const pngFile = (name: string, bytes: Buffer, extra: Record<string, unknown> = {}) => ({
  name,
  format: 'card',
  data: bytes.toString('base64'),
  ...extra,
})

/** A JSON card file as the page sends it (its text). */
export const jsonFile = (name: string, card: unknown) => ({
  name,
  format: 'card',
  text: typeof card === 'string' ? card : JSON.stringify(card),
})

/** The current store's profile `id`. */
export const byId = (id: string): Profile => store.state.profiles.find((p) => p.id === id)!

/** The profile the `i`-th file of an import reply added. */
export const added = (r: ImportReply, i = 0): Profile => byId(r.files[i]!.profileIds[0]!)

/** Profile `id` exported in `format`, as the export route would send it. */
export const exported = (id: string, format: 'card-png' | 'card-json' | 'markdown') =>
  exportFile(findProfile(store.state, id, 'id'), format, null).body

/** A card's data without our own extension, the part that must survive a round trip unchanged. */
export function foreign(data: Record<string, any>): Record<string, any> {
  const { dsh_agent_profiles: _ours, ...ext } = data.extensions
  return { ...data, extensions: ext }
}
