import { ImportError } from '../shared/errors.ts'
/**
 * The elements of a top-level JSON array, found in one linear scan of its UTF-8 bytes as they arrive (the chunks an
 * inflater gives): where each starts and ends, with the nesting and the count of values checked as it goes, so an
 * export is parsed one conversation at a time (each JSON.parse small) and neither the whole text nor the whole
 * expanded file is ever held: only the element under way. A file nested 100,000 deep or holding 10 million values is
 * refused after reading no further than where it passes the limit. Pure; what the elements mean is not its concern.
 */

/** Limits of the scan. */
export interface SplitLimits {
  depth: number
  values: number
  /** Values of one element: what one JSON.parse of it builds. */
  elementValues: number
  elements: number
}

const QUOTE = 0x22
const SLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
const COMMA = 0x2c

/** Bytes the scan holds at first; it doubles when an element under way needs more. */
const FIRST_CAPACITY = 1 << 20

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/**
 * A scan of a top-level array fed in chunks: `each(element)` is called for every element, in order, with its bytes
 * (valid during the call only). Refuses (naming `field`) a text that is not an array (`exportNotExport`), one nested
 * past `limits.depth`, holding more than `limits.values` values, an element of more than `limits.elementValues` or
 * more than `limits.elements` elements; a text cut short is `notJson` at `end()`. Bytes after the array's end are
 * not read.
 */
export class ArraySplitter {
  readonly #field: string
  readonly #limits: SplitLimits
  readonly #each: (element: Uint8Array) => void
  /** The bytes not yet let go: from the element under way (or the scan) to the last byte pushed. */
  #buf = new Uint8Array(0)
  #len = 0
  /** Where the scan goes on in #buf (past #len when an escape's second byte has not arrived yet). */
  #at = 0
  /** Where the element under way starts in #buf, -1 between elements. */
  #start = -1
  #inString = false
  /** 0 before the array opens; 0 again once it has closed. */
  #depth = 0
  #opened = false
  #closed = false
  #values = 0
  #startValues = 0
  #elements = 0

  constructor(field: string, limits: SplitLimits, each: (element: Uint8Array) => void) {
    this.#field = field
    this.#limits = limits
    this.#each = each
  }

  /** Scan the next bytes of the text. */
  push(chunk: Uint8Array): void {
    if (this.#closed || chunk.length === 0) return
    this.#append(chunk)
    if (!this.#opened && !this.#open()) return
    this.#scan()
  }

  /** The text has ended: refuses one whose array never opened or never closed. */
  end(): void {
    if (!this.#opened && !this.#open(true)) throw new ImportError(this.#field, 'exportNotExport')
    if (!this.#closed) throw new ImportError(this.#field, 'notJson')
  }

  /** Add `chunk` after the bytes held, first letting go of those no longer needed (amortized: only when full). */
  #append(chunk: Uint8Array): void {
    if (this.#len + chunk.length > this.#buf.length) {
      const keep = this.#start >= 0 ? this.#start : Math.min(this.#at, this.#len)
      const live = this.#len - keep
      const need = live + chunk.length
      if (need > this.#buf.length) {
        const grown = new Uint8Array(Math.max(FIRST_CAPACITY, need, this.#buf.length * 2))
        grown.set(this.#buf.subarray(keep, this.#len))
        this.#buf = grown
      } else this.#buf.copyWithin(0, keep, this.#len)
      this.#len = live
      this.#at -= keep
      if (this.#start >= 0) this.#start -= keep
    }
    this.#buf.set(chunk, this.#len)
    this.#len += chunk.length
  }

  /** Find the array's opening bracket past spaces and a byte order mark; false while the bytes so far cannot tell. */
  #open(ended = false): boolean {
    const b = this.#buf
    let i = this.#at
    while (i < this.#len && isSpace(b[i]!)) i++
    // A UTF-8 byte order mark before the array.
    if (b[i] === 0xef) {
      if (i + 3 > this.#len && !ended) return false
      if (b[i + 1] === 0xbb && b[i + 2] === 0xbf) i += 3
    }
    while (i < this.#len && isSpace(b[i]!)) i++
    if (i >= this.#len && !ended) {
      this.#at = i
      return false
    }
    if (b[i] !== OPEN_ARRAY) throw new ImportError(this.#field, 'exportNotExport')
    this.#opened = true
    this.#depth = 1
    this.#values = 1
    this.#at = i + 1
    return true
  }

  /** The end of the element under way, at `end`: handed on, and counted. */
  #close(end: number): void {
    if (this.#start < 0) return
    if (++this.#elements > this.#limits.elements)
      throw new ImportError(this.#field, 'exportTooManyConversations', { limit: this.#limits.elements })
    this.#each(this.#buf.subarray(this.#start, end))
    this.#start = -1
  }

  /** Scan from #at to the end of the bytes held. */
  #scan(): void {
    const b = this.#buf
    const len = this.#len
    const limits = this.#limits
    const field = this.#field
    let i = this.#at
    if (this.#inString) {
      // A string the last chunk ended in: to its closing quote, then on past it.
      i = this.#skipString(i)
      if (this.#inString) return void (this.#at = i)
      i++
    }
    for (; i < len; i++) {
      const c = b[i]!
      if (this.#depth === 1 && this.#start < 0 && !isSpace(c) && c !== COMMA && c !== CLOSE_ARRAY) {
        this.#start = i
        this.#startValues = this.#values
      }
      if (c === QUOTE) {
        i = this.#skipString(i + 1)
        if (this.#inString) break
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        if (++this.#values > limits.values)
          throw new ImportError(field, 'exportTooManyValues', { limit: limits.values })
        if (this.#values - this.#startValues > limits.elementValues)
          throw new ImportError(field, 'exportConversationTooBig', { limit: limits.elementValues })
        if (++this.#depth > limits.depth) throw new ImportError(field, 'exportTooDeep', { limit: limits.depth })
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        if (--this.#depth === 0) {
          this.#close(i)
          this.#closed = true
          return
        }
      } else if (c === COMMA) {
        if (++this.#values > limits.values)
          throw new ImportError(field, 'exportTooManyValues', { limit: limits.values })
        if (this.#depth === 1) this.#close(i)
        else if (this.#values - this.#startValues > limits.elementValues)
          throw new ImportError(field, 'exportConversationTooBig', { limit: limits.elementValues })
      }
    }
    this.#at = i
  }

  /**
   * From `i` (inside a string) to its closing quote, stepping over each escaped character: a tight loop, far faster
   * than indexOf per string. Answers the quote's place, or where the bytes held end with #inString set.
   */
  #skipString(i: number): number {
    const b = this.#buf
    const len = this.#len
    while (i < len) {
      const d = b[i]!
      if (d === QUOTE) {
        this.#inString = false
        return i
      }
      i += d === SLASH ? 2 : 1
    }
    this.#inString = true
    return i
  }
}
