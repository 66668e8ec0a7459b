/**
 * The bytes of one request body, gathered as its chunks arrive. A body that declares its length is copied chunk by
 * chunk into one buffer of that length, so no single step copies the whole body: joining a 27 MB body (a 20 MB PNG
 * card as base64) in one `Buffer.concat` when its last chunk came held the host's event loop 50–120 ms at rest and
 * 470–550 ms on a loaded machine (a host profile of `npm run bench -- import-hostile`), a copy and a first touch of
 * every page of a fresh 27 MB in one go. That buffer is its own memory, so the import worker takes it over without a
 * copy. A chunked body (no declared length) is joined at its end as before: only a local program sends one, and it
 * is bounded by the same byte limit. Pure; it never reads a request or decides what a body may hold.
 */

import { isMarkedAsUntransferable } from 'node:worker_threads'

/**
 * Free a chunk's memory now that its bytes are copied: detached, not left for a collection. Why: Node's HTTP parser
 * copies each chunk of a body into memory of its own on the host's thread (64 KB at a time), and those copies,
 * freed only when V8 next collects them, grew the host's malloc heap by the body's size (9 MB for the own file of 95
 * × 5,200 items) under allocations that came after them, where glibc keeps it (malloc_info through gdb: 10.5 MB of the
 * host's main heap free but not given back 5 s after that import). Freed at once, each copy's memory takes the next.
 * Only a chunk that is its memory's whole and may be moved is detached (a pooled buffer is shared).
 */
function giveBack(chunk: Buffer): void {
  const buffer = chunk.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer }
  if (typeof buffer.transfer !== 'function' || isMarkedAsUntransferable(buffer)) return
  if (chunk.byteOffset === 0 && chunk.byteLength === buffer.byteLength && chunk.byteLength > 0) buffer.transfer(0)
}

/** One body's bytes so far. */
export class BodyBytes {
  readonly #declared: number | undefined
  #whole: Buffer | undefined
  #chunks: Buffer[] = []
  #size = 0

  /** `declared`: the Content-Length the request gave (already checked against the body's limit), if any. */
  constructor(declared: number | undefined) {
    this.#declared = declared
  }

  /** Bytes gathered so far. */
  get size(): number {
    return this.#size
  }

  /**
   * Keep the next chunk. `only`: the caller is the chunk's only reader, so a chunk copied into the body's buffer may be
   * given back at once (see {@link giveBack}).
   */
  add(chunk: Buffer, only = false): void {
    const declared = this.#declared
    if (declared !== undefined && this.#size + chunk.length <= declared) {
      // Made at the first chunk, not at the headers: a client that declares a size and sends nothing gets nothing.
      this.#whole ??= Buffer.allocUnsafeSlow(declared)
      this.#whole.set(chunk, this.#size)
      this.#size += chunk.length
      if (only) giveBack(chunk)
      return
    }
    if (this.#whole !== undefined) this.#chunks.push(this.#whole.subarray(0, this.#size))
    this.#whole = undefined
    this.#chunks.push(chunk)
    this.#size += chunk.length
  }

  /** The whole body, once it has ended. */
  bytes(): Buffer {
    if (this.#whole !== undefined)
      return this.#size === this.#whole.length ? this.#whole : this.#whole.subarray(0, this.#size)
    return Buffer.concat(this.#chunks, this.#size)
  }
}
