/**
 * The bytes of one request body, gathered as its chunks arrive. A body that declares its length is copied chunk by
 * chunk into one buffer of that length, so no single step copies the whole body: joining a 27 MB body (a 20 MB PNG
 * card as base64) in one `Buffer.concat` when its last chunk came held the host's event loop 50–120 ms at rest and
 * 470–550 ms on a loaded machine (a host profile of `npm run bench -- import-hostile`), a copy and a first touch of
 * every page of a fresh 27 MB in one go. That buffer is its own memory, so the import worker takes it over without a
 * copy. A chunked body (no declared length) is joined at its end as before: only a local program sends one, and it
 * is bounded by the same byte limit. Pure; it never reads a request or decides what a body may hold.
 */

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

  /** Keep the next chunk. */
  add(chunk: Buffer): void {
    const declared = this.#declared
    if (declared !== undefined && this.#size + chunk.length <= declared) {
      // Made at the first chunk, not at the headers: a client that declares a size and sends nothing gets nothing.
      this.#whole ??= Buffer.allocUnsafeSlow(declared)
      this.#whole.set(chunk, this.#size)
    } else {
      if (this.#whole !== undefined) this.#chunks.push(this.#whole.subarray(0, this.#size))
      this.#whole = undefined
      this.#chunks.push(chunk)
    }
    this.#size += chunk.length
  }

  /** The whole body, once it has ended. */
  bytes(): Buffer {
    if (this.#whole !== undefined)
      return this.#size === this.#whole.length ? this.#whole : this.#whole.subarray(0, this.#size)
    return Buffer.concat(this.#chunks, this.#size)
  }
}
