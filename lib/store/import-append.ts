/**
 * The memory items of an own import's profile after its first batch, appended without the host's event loop making
 * a string or an object of them: the bytes the import worker packed (lib/commands/packed-items.ts) are cut per batch
 * and handed to the store's kept thread, which checks and writes them on a connection of its own (db/append-rows.ts);
 * the store takes each commit in as another process's (db/reload.ts), its list then read from the rows when a reader
 * looks. Why: decoded on the host, the 95 × 5,200 items of a large own file passed through the host's heap as text,
 * objects, rows and index terms, and what V8 had not collected of that when the import ended stayed in the process's
 * resident memory (about 40 of the 60–90 MB it grew by).
 *
 * It owns the hand-over and what the host must know after it (the contents the profile answers to, for the next
 * comparison of an import); it never sizes a batch and never decides whether a batch is written on the host instead
 * (lib/store/import-batches.ts does both).
 */
import { contentsOf, knownContents } from '../commands/transfer.ts'
import { itemBytes, itemSize, parseItems, type PackedItems } from '../commands/packed-items.ts'
import type { MemoryItem, Profile, State } from '../state/model.ts'
import type { AppendAnswer } from './db/append-rows.ts'
import type { KeptThread } from './db/store-thread.ts'
import type { ProfileStore } from './store.ts'

/** A profile's items from the first batch on, as objects or as the bytes they came in. */
export interface ImportItems {
  length: number
  /** Item k's size for a batch's bound: its text's length, or its JSON's bytes. */
  size(k: number): number
  /** Items `from` to `to` (not included) as objects (parsed now when they came as bytes). */
  parse(from: number, to: number): MemoryItem[]
  /** The bytes of items `from` to `to`, in a buffer of their own; undefined when they came as objects. */
  bytes(from: number, to: number): Uint8Array | undefined
}

/** The items of a profile as its import took it (packed-items.ts `takeProfile`), held as bytes when they came so. */
export function itemsOf(taken: { profile: Profile; packed?: PackedItems }): ImportItems {
  const { packed } = taken
  if (packed?.ends !== undefined)
    return {
      length: packed.count,
      size: (k) => itemSize(packed, k),
      parse: (from, to) => parseItems(packed, from, to),
      bytes: (from, to) => itemBytes(packed, from, to),
    }
  const items = taken.profile.memory.items
  return {
    length: items.length,
    size: (k) => items[k]!.text.length,
    parse: (from, to) => items.slice(from, to),
    bytes: () => undefined,
  }
}

/**
 * What the import knows of a profile it appends to: when it last changed it (`seenAt`), the contents it answers to
 * once whole (see {@link firstContents}), and whether another write changed it meanwhile (then those contents are not
 * its own: they are left to be worked out from its list).
 */
export interface Appending {
  id: string
  seenAt: number
  contents: string[]
  touched: boolean
}

/**
 * Append items `from` to `to` of `items` to the profile of `to` on `thread`, and take the commit into the store's
 * state. `host` (nothing written) when they came as objects, when the data may not be written here (read-only, say:
 * the store's own command refuses it as it should), or when the thread leaves the batch to the store's command.
 */
export async function appendOff(
  store: ProfileStore,
  thread: KeptThread,
  target: Appending,
  items: ImportItems,
  from: number,
  to: number,
): Promise<AppendAnswer> {
  const bytes = store.readOnly === undefined ? items.bytes(from, to) : undefined
  if (bytes === undefined) return { done: 'host', why: 'not as bytes' }
  const now = Date.now()
  const { id: owner, seenAt } = target
  const answer = await thread.run({ kind: 'append', file: store.file, owner, items: bytes, now, seenAt }, [
    bytes.buffer as ArrayBuffer,
  ])
  if (answer.done === 'written') {
    target.seenAt = now
    target.touched ||= answer.touched
    // Read now, so that the store (and the pages it tells) holds the batch before the next one.
    void store.state
  } else target.touched = true
  return answer
}

/**
 * The profile `id` of `state` as its first batch wrote it, to append the rest to: with what it answers to once it
 * holds `whole`'s items, worked out while the host holds them, which it never does again.
 */
export function appending(state: State, id: string, whole: Profile): Appending {
  const written = state.profiles.find((p) => p.id === id)
  if (written === undefined) return { id, seenAt: 0, contents: [], touched: true }
  const contents = contentsOf({ ...written, memory: { ...written.memory, items: whole.memory.items } })
  return { id, seenAt: written.updatedAt, contents, touched: false }
}

/** Have the profile `target` appended to, as the store holds it now, answer to its contents when no one else changed it. */
export function knownWhole(store: ProfileStore, target: Appending): void {
  const p = store.state.profiles.find((q) => q.id === target.id)
  if (p !== undefined && !target.touched) knownContents(p, target.contents)
}
