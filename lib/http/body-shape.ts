/**
 * The shape of a JSON request body measured while its bytes arrive: how deep it nests and how many values it holds
 * (each array or object, and each comma, outside strings), one byte at a time across chunks, so a body is refused
 * the moment it passes either bound and before any parser sees it. Why before: a parse cannot be stopped once it has
 * begun (a worker thread's `terminate()` waits for a native JSON.parse to return, measured: 4 s for 8 M objects), and
 * what it costs follows the count of values, not the bytes (a 4.5 MB body of 1.5 million `{}` held the event loop
 * 13 s). With both bounded, every parse is bounded too. Pure; it never parses, buffers or answers anything.
 */

/** How deep a body may nest and how many values it may hold. */
export interface BodyShapeLimits {
  depth: number
  values: number
}

/** Which bound a body passed, and that bound. */
export interface ShapeExcess {
  what: 'depth' | 'values'
  limit: number
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
const COMMA = 0x2c

/** A scan of one body, fed chunk by chunk in order. */
export class BodyShape {
  readonly #limits: BodyShapeLimits
  #inString = false
  #escaped = false
  #depth = 0
  #values = 0

  constructor(limits: BodyShapeLimits) {
    this.#limits = limits
  }

  /** Scan the next chunk; the bound it passed, or undefined while the body stays within both. */
  feed(chunk: Uint8Array): ShapeExcess | undefined {
    const { depth: depthLimit, values: valueLimit } = this.#limits
    let inString = this.#inString
    let escaped = this.#escaped
    let depth = this.#depth
    let values = this.#values
    let excess: ShapeExcess | undefined
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!
      if (inString) {
        if (escaped) escaped = false
        else if (c === BACKSLASH) escaped = true
        else if (c === QUOTE) inString = false
        else {
          // The rest of a long string up to its next quote or backslash, skipped by the native search.
          const quote = chunk.indexOf(QUOTE, i + 1)
          const slash = chunk.indexOf(BACKSLASH, i + 1)
          const next = quote < 0 ? slash : slash < 0 ? quote : Math.min(quote, slash)
          i = (next < 0 ? chunk.length : next) - 1
        }
      } else if (c === QUOTE) inString = true
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        values++
        if (++depth > depthLimit) {
          excess = { what: 'depth', limit: depthLimit }
          break
        }
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--
      else if (c === COMMA) values++
      if (values > valueLimit) {
        excess = { what: 'values', limit: valueLimit }
        break
      }
    }
    this.#inString = inString
    this.#escaped = escaped
    this.#depth = depth
    this.#values = values
    return excess
  }
}
