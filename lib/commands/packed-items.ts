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
import { parseCommand } from '../validate/command.ts'
import { asStored, itemOf } from '../provenance/provenance.ts'
import type { FileRead } from './file-read.ts'

/**
 * One profile's memory items as the worker packs them: the JSON array of the items in UTF-8 (`[a,b,…]`), and where
 * each item's JSON ends in it (the next one starts one byte later, past the comma), so that a run of items can be
 * cut out as bytes and written without the host ever decoding it (lib/store/import-append.ts).
 */
export type PackedItems = NonNullable<FileRead['packed']>[number]

/**
 * `items` as the store's `sync.apply` keeps the items it appends (its schema, then their provenance: what its write
 * puts in each row), worked out here, on the import worker's thread; undefined when the command would refuse one.
 */
function asAppended(items: readonly MemoryItem[]): MemoryItem[] | undefined {
  try {
    const cmd = parseCommand({ op: 'sync.apply', profiles: [{ id: 'packed', memory: { put: items } }] })
    const put = cmd.op === 'sync.apply' ? (cmd.profiles[0]?.memory?.put ?? []) : []
    const stored = asStored(0)
    return put.every((o) => o.id !== undefined) ? put.map((o) => itemOf(o, stored)) : undefined
  } catch {
    return undefined
  }
}

/** The bytes `s` takes in UTF-8, as TextEncoder writes it (a lone surrogate as the 3 bytes of U+FFFD). */
function utf8Length(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/**
 * `read` with the memory items of each profile it brings moved into `packed`: each profile's JSON bytes, as the store
 * appends them with the end of each item's JSON (see {@link PackedItems}), or, when it would refuse one, as they are
 * and without the ends (its own command then refuses them, as it would); as it is when it has none.
 *
 * Every profile's bytes are a view of one buffer, and its ends of one other. Why one: a buffer is allocated by the
 * thread that makes it (this one, the import worker) and goes back, once freed, to that thread's allocator, which
 * glibc keeps after the thread ends; buffers of one profile each (~0.4 MB for 5,200 items) stayed in the process's
 * memory that way after the import, while one buffer of the whole file is mapped on its own and given back to the
 * system when the host lets it go (past glibc's mmap threshold: a file large enough to matter).
 */
export function packRead(read: FileRead): FileRead {
  const incoming = read.incoming
  if (incoming === undefined || read.packed !== undefined) return read
  const lists = incoming.profiles.map((p) => {
    const appended = asAppended(p.memory.items)
    return { appended: appended !== undefined, texts: (appended ?? p.memory.items).map((it) => JSON.stringify(it)) }
  })
  const size = lists.reduce((n, l) => l.texts.reduce((m, t) => m + utf8Length(t) + 1, n + 2), 0)
  const all = new Uint8Array(size)
  const allEnds = new Uint32Array(lists.reduce((n, l) => n + l.texts.length, 0))
  const encoder = new TextEncoder()
  let at = 0
  let k = 0
  const packed = lists.map(({ appended, texts }) => {
    const start = at
    const first = k
    all[at++] = 0x5b // [
    texts.forEach((t, i) => {
      if (i > 0) all[at++] = 0x2c // ,
      at += encoder.encodeInto(t, all.subarray(at)).written
      allEnds[k++] = at - start
    })
    all[at++] = 0x5d // ]
    const bytes = all.subarray(start, at)
    return appended ? { count: texts.length, bytes, ends: allEnds.subarray(first, k) } : { count: texts.length, bytes }
  })
  return {
    ...read,
    incoming: { ...incoming, profiles: incoming.profiles.map((p) => ({ ...p, memory: { ...p.memory, items: [] } })) },
    packed,
  }
}

/** The buffers of `read`'s packed items, to hand over with the message that carries it (each once). */
export function packedBuffers(read: FileRead): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>()
  for (const x of read.packed ?? []) {
    if (x.bytes.byteLength > 0) buffers.add(x.bytes.buffer as ArrayBuffer)
    if (x.ends !== undefined && x.ends.byteLength > 0) buffers.add(x.ends.buffer as ArrayBuffer)
  }
  return [...buffers]
}

/**
 * Free `buffers` (a read's packed items, {@link packedBuffers}) now, once nothing reads them: a buffer the collector
 * frees goes only at its next full collection, which after an import may not come for minutes, and the file's buffer
 * (36 MB for 95 × 5,200 items) stayed in the process's memory until then. Detaching it (`transfer(0)`) frees it at once.
 */
export function freePacked(buffers: readonly ArrayBuffer[]): void {
  for (const b of buffers) (b as ArrayBuffer & { transfer?(length: number): ArrayBuffer }).transfer?.(0)
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
 * Profile `i` of `read` as {@link profileAt} gives it, its bytes no longer held by `read` (the file's buffer goes once
 * the last profile's are let go). `packed`: the profile's bytes, now the caller's (undefined when its items did not
 * come packed).
 */
export function takeProfile(read: FileRead, i: number): { profile: Profile; packed?: PackedItems } {
  const profile = profileAt(read, i)
  const packed = read.packed?.[i]
  if (packed === undefined) return { profile }
  read.packed![i] = { count: packed.count, bytes: new Uint8Array(0) }
  return { profile, packed }
}

/** Where item `k` of `packed` starts in its bytes. */
function startOf(packed: PackedItems & { ends: Uint32Array }, k: number): number {
  return k === 0 ? 1 : packed.ends[k - 1]! + 1
}

/**
 * The JSON of items `from` to `to` (not included) of `packed`, comma-separated, as bytes in a buffer of their own (to
 * hand over to another thread: a view would carry its whole buffer); undefined when it came without item ends.
 */
export function itemBytes(packed: PackedItems, from: number, to: number): Uint8Array | undefined {
  if (packed.ends === undefined || to <= from) return undefined
  return packed.bytes.slice(startOf(packed as PackedItems & { ends: Uint32Array }, from), packed.ends[to - 1])
}

/** Items `from` to `to` (not included) of `packed`, decoded and parsed now. */
export function parseItems(packed: PackedItems, from: number, to: number): MemoryItem[] {
  const bytes = itemBytes(packed, from, to)
  return bytes === undefined ? [] : (JSON.parse(`[${new TextDecoder().decode(bytes)}]`) as MemoryItem[])
}

/** The size in bytes of item `k`'s JSON in `packed` (0 when it came without item ends). */
export function itemSize(packed: PackedItems, k: number): number {
  return packed.ends === undefined ? 0 : packed.ends[k]! - startOf(packed as PackedItems & { ends: Uint32Array }, k)
}

/** `read` with every profile's memory items back in place (for an import written in one command). */
export function unpackRead(read: FileRead): FileRead {
  if (read.packed === undefined || read.incoming === undefined) return read
  const { packed: _packed, ...rest } = read
  return { ...rest, incoming: { ...read.incoming, profiles: read.incoming.profiles.map((_, i) => profileAt(read, i)) } }
}
