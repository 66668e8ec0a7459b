/**
 * How a large file of the user's own crosses from the import worker to the host (lib/commands/packed-items.ts, the
 * worker's side in lib/http/import-pool.ts): its memory items come as one buffer of JSON bytes per profile, handed
 * over, not copied — decoding 95 profiles × 5,200 items as objects held the host's event loop 2.2 s at once, and as
 * text 180 ms — and read back they are exactly what the file holds; a file not marked as one's own arrives as it
 * always did. The background import of such a file ends as the import of the same file read on the host does.
 */
import { MessageChannel } from 'node:worker_threads'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ImportPool, work, type WorkerAnswer } from '../../lib/http/import-pool.ts'
import { readFile, type FileRead } from '../../lib/commands/file-read.ts'
import { unpackRead } from '../../lib/commands/packed-items.ts'
import { READ_FILES } from '../../lib/shared/files.ts'
import { OwnImports } from '../../lib/store/import-batches.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { itemsEnvelope } from '../support/hostile-files.ts'
import { freshStore } from '../support/store-helpers.ts'

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})
const pool = () => {
  const p = new ImportPool({ log: { warn: () => {} } })
  cleanup.push(() => p.close())
  return p
}

let ids = 0
const ctx = { now: 0, newId: (prefix: string) => `${prefix}-${++ids}` }
const own = { name: 'mine.json', format: 'envelope', text: itemsEnvelope(3, 400), own: true }

/** Each profile of a read: its name and its items' texts (what the user sees of it). */
const seen = (read: FileRead) => read.incoming?.profiles.map((p) => [p.name, p.memory.items.map((it) => it.text)])

/** The profiles of a store after an import: names and item texts, the factory profiles left out. */
const profilesOf = (store: ProfileStore) =>
  store.state.profiles
    .filter((p) => p.name.startsWith('Profile'))
    .map((p) => [p.name, p.memory.items.map((it) => it.text)])

async function importedFrom(read: FileRead): Promise<unknown> {
  const s = await freshStore()
  cleanup.push(() => s.dispose())
  const imports = new OwnImports(s.store)
  imports.start({ read, choice: { conflicts: 'keep-both', replace: new Set() } })
  expect((await imports.settled()).state).toBe('done')
  return profilesOf(s.store)
}

describe("a large file of one's own, read in the import worker", () => {
  it('arrives with its items in one buffer for all its profiles, in a body and as a file, and reads back as the file holds them', async () => {
    const p = pool()
    const parsed = await p.parseJson(Buffer.from(JSON.stringify({ op: 'profiles.importFiles', files: [own] })))
    const fromBody = (parsed as { value: Record<symbol, FileRead[]> }).value[READ_FILES]![0]!
    const [asFile] = await p.readFiles([own])
    const onHost = readFile(own, 0, ctx)
    for (const read of [fromBody, asFile!]) {
      // No item object and no text crosses: the host's loop receives bytes, not 1,200 objects.
      expect(read.incoming!.profiles.map((q) => q.memory.items.length)).toEqual([0, 0, 0])
      expect(read.packed!.map((x) => [x.count, x.bytes instanceof Uint8Array])).toEqual([
        [400, true],
        [400, true],
        [400, true],
      ])
      // One buffer, mapped on its own and given back whole: one per profile stayed in the worker's allocator.
      expect(new Set(read.packed!.map((x) => x.bytes.buffer)).size).toBe(1)
      expect(seen(unpackRead(read))).toEqual(seen(onHost))
    }
  })

  it('hands its items over: the worker keeps no copy of them and the host receives them without decoding', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ op: 'profiles.importFiles', files: [own] }))
    const { port1, port2 } = new MessageChannel()
    cleanup.push(async () => {
      port1.close()
      port2.close()
    })
    const received: WorkerAnswer[] = []
    port2.on('message', (a: WorkerAnswer) => received.push(a))
    const sent: FileRead[] = []
    work({ id: 1, kind: 'json', bytes: body }, (answer, transfer) => {
      if (answer.kind === 'read') sent.push(answer.read)
      port1.postMessage(answer, transfer)
    })
    await vi.waitFor(() => expect(received.map((a) => a.kind)).toEqual(['head', 'read', 'json']))
    // Handed over: the worker's buffers are emptied by the message, so nothing of the items was copied.
    expect(sent[0]!.packed!.map((x) => x.bytes.byteLength)).toEqual([0, 0, 0])
    const read = (received[1] as Extract<WorkerAnswer, { kind: 'read' }>).read
    expect(seen(unpackRead(read))).toEqual(seen(readFile(own, 0, ctx)))
  })

  it('that is not marked as one’s own arrives as it always did', async () => {
    const [shared] = await pool().readFiles([{ ...own, own: undefined, text: itemsEnvelope(2, 30) }])
    expect(shared!.packed).toBeUndefined()
    expect(shared!.incoming!.profiles.map((q) => q.memory.items.length)).toEqual([30, 30])
  })

  it('is imported in the background to the same profiles as the file read on the host', async () => {
    const [packed] = await pool().readFiles([own])
    expect(packed!.packed).toBeDefined()
    const written = await importedFrom(packed!)
    // The import let go of each profile's bytes once it had parsed them: nothing of the file stays for its end.
    expect(packed!.packed!.map((x) => [x.count, x.bytes.byteLength])).toEqual([
      [400, 0],
      [400, 0],
      [400, 0],
    ])
    expect(written).toHaveLength(3)
    expect(written).toEqual(await importedFrom(readFile(own, 0, ctx)))
  })
})
