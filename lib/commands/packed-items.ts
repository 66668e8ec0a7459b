/**
 * The memory items of a large file of the user's own, carried from the import worker to the host as bytes: one
 * JSON text per profile, encoded as UTF-8 into a buffer of its own that the worker hands over instead of copying.
 * A message from a worker is decoded whole on the host's event loop, in one step no request can cut into: the items
 * as objects held it 2.2 s for 95 profiles × 5,200 items (load 23, 2 cores), and even as strings the decoder copies
 * them at about 5 ms per MB — 180 ms for that file's 36 MB, the import's longest wait. A handed-over buffer costs the
 * host nothing to receive whatever its size; each profile's items are decoded and parsed when its own batch is
 * written (lib/store/import-batches.ts), a few milliseconds each. Owns the packing and unpacking only; it never reads
 * a file.
 */
import type { MemoryItem, Profile } from '../state/model.ts'
import type { FileRead } from './file-read.ts'

/** `read` with the memory items of each profile it brings moved into `packed` (as JSON bytes); as it is when it has none. */
export function packRead(read: FileRead): FileRead {
  const incoming = read.incoming
  if (incoming === undefined || read.packed !== undefined) return read
  const encoder = new TextEncoder()
  return {
    ...read,
    incoming: { ...incoming, profiles: incoming.profiles.map((p) => ({ ...p, memory: { ...p.memory, items: [] } })) },
    packed: incoming.profiles.map((p) => ({
      count: p.memory.items.length,
      bytes: encoder.encode(JSON.stringify(p.memory.items)),
    })),
  }
}

/** The buffers of `read`'s packed items, to hand over with the message that carries it (each is its own). */
export function packedBuffers(read: FileRead): ArrayBuffer[] {
  return (read.packed ?? []).map((x) => x.bytes.buffer as ArrayBuffer)
}

/** How many memory items profile `i` of `read` brings, packed or not, without parsing them. */
export function itemCount(read: FileRead, i: number): number {
  return read.packed?.[i]?.count ?? read.incoming?.profiles[i]?.memory.items.length ?? 0
}

/** Profile `i` of `read` with its memory items, decoded and parsed now when they came packed. */
function profileAt(read: FileRead, i: number): Profile {
  const p = read.incoming!.profiles[i]!
  const packed = read.packed?.[i]
  if (packed === undefined) return p
  return { ...p, memory: { ...p.memory, items: JSON.parse(new TextDecoder().decode(packed.bytes)) as MemoryItem[] } }
}

/**
 * Profile `i` of `read` as {@link profileAt} gives it, its bytes let go once parsed: a background import parses each
 * profile once, and the bytes of those it has written need not stay (36 MB for 95 profiles × 5,200 items) until the
 * whole file is in, so most are freed by the collections during the import instead of lingering after it.
 */
export function takeProfile(read: FileRead, i: number): Profile {
  const p = profileAt(read, i)
  const packed = read.packed?.[i]
  if (packed !== undefined) read.packed![i] = { count: packed.count, bytes: new Uint8Array(0) }
  return p
}

/** `read` with every profile's memory items back in place (for an import written in one command). */
export function unpackRead(read: FileRead): FileRead {
  if (read.packed === undefined || read.incoming === undefined) return read
  const { packed: _packed, ...rest } = read
  return { ...rest, incoming: { ...read.incoming, profiles: read.incoming.profiles.map((_, i) => profileAt(read, i)) } }
}
