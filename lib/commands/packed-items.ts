/**
 * The memory items of a large file of the user's own, carried from the import worker to the host as text: one JSON
 * string per profile instead of the items as objects. A message from a worker is decoded whole on the host's event
 * loop, and decoding 95 profiles × 5,200 items as objects held it 2.2 s (95 × 1,000: 0.4 s) at load 23 on 2 cores; a
 * string is copied, not decoded, and each profile's items are parsed when its own batch is written
 * (lib/store/import-batches.ts), a few milliseconds each. Owns the packing and unpacking only; it never reads a file.
 */
import type { MemoryItem, Profile } from '../state/model.ts'
import type { FileRead } from './file-read.ts'

/** `read` with the memory items of each profile it brings moved into `packed` (as JSON text); as it is when it has none. */
export function packRead(read: FileRead): FileRead {
  const incoming = read.incoming
  if (incoming === undefined || read.packed !== undefined) return read
  return {
    ...read,
    incoming: { ...incoming, profiles: incoming.profiles.map((p) => ({ ...p, memory: { ...p.memory, items: [] } })) },
    packed: incoming.profiles.map((p) => ({ count: p.memory.items.length, json: JSON.stringify(p.memory.items) })),
  }
}

/** How many memory items profile `i` of `read` brings, packed or not, without parsing them. */
export function itemCount(read: FileRead, i: number): number {
  return read.packed?.[i]?.count ?? read.incoming?.profiles[i]?.memory.items.length ?? 0
}

/** Profile `i` of `read` with its memory items, parsed now when they came packed. */
function profileAt(read: FileRead, i: number): Profile {
  const p = read.incoming!.profiles[i]!
  const packed = read.packed?.[i]
  if (packed === undefined) return p
  return { ...p, memory: { ...p.memory, items: JSON.parse(packed.json) as MemoryItem[] } }
}

/**
 * Profile `i` of `read` with its memory items, as {@link profileAt}, its packed items then dropped from `read` (their
 * count stays). The background import takes each profile once, in order, and held the whole read to its end: every
 * profile's text (36 MB for 95 profiles x 5,200 items) stayed live through every collection of the import and died
 * only after it. Dropped as they are parsed, the import's live heap shrinks as it goes, and a collection during the
 * import takes the texts of the profiles already written.
 */
export function takeProfileAt(read: FileRead, i: number): Profile {
  const p = profileAt(read, i)
  const packed = read.packed?.[i]
  if (packed !== undefined) read.packed![i] = { count: packed.count, json: '' }
  return p
}

/** `read` with every profile's memory items back in place (for an import written in one command). */
export function unpackRead(read: FileRead): FileRead {
  if (read.packed === undefined || read.incoming === undefined) return read
  const { packed: _packed, ...rest } = read
  return { ...rest, incoming: { ...read.incoming, profiles: read.incoming.profiles.map((_, i) => profileAt(read, i)) } }
}
