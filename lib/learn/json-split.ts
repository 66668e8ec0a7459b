/**
 * The elements of a top-level JSON array, found in one linear scan of its UTF-8 bytes: where each starts and ends,
 * with the nesting and the count of values checked as it goes, so an export is parsed one conversation at a time
 * (each JSON.parse small, the whole never held as one string) and a file nested 100,000 deep or holding 10 million
 * values is refused after reading no further than where it passes the limit. Pure; what the elements mean is not
 * its concern.
 */
import { ImportError } from '../shared/card-text.ts'

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

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/**
 * Call `each(start, end)` for every element of the top-level array in `bytes`, in order. Refuses (naming `field`) a
 * text that is not an array (`exportNotExport`), one nested past `limits.depth`, holding more than `limits.values`
 * values, an element of more than `limits.elementValues` or more than `limits.elements` elements; a text cut short
 * is `notJson`. Strings are skipped to their closing quote in one tight loop.
 */
export function splitArray(
  bytes: Uint8Array,
  field: string,
  limits: SplitLimits,
  each: (start: number, end: number) => void,
): void {
  let i = 0
  while (i < bytes.length && isSpace(bytes[i]!)) i++
  // A UTF-8 byte order mark before the array.
  if (bytes[i] === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf) i += 3
  while (i < bytes.length && isSpace(bytes[i]!)) i++
  if (bytes[i] !== OPEN_ARRAY) throw new ImportError(field, 'exportNotExport')
  let depth = 1
  let values = 1
  let elements = 0
  let start = -1
  let startValues = 0
  const close = (end: number) => {
    if (start < 0) return
    if (++elements > limits.elements)
      throw new ImportError(field, 'exportTooManyConversations', { limit: limits.elements })
    each(start, end)
    start = -1
  }
  for (i++; i < bytes.length; i++) {
    const c = bytes[i]!
    if (depth === 1 && start < 0 && !isSpace(c) && c !== COMMA && c !== CLOSE_ARRAY) {
      start = i
      startValues = values
    }
    if (c === QUOTE) {
      // To the closing quote, stepping over each escaped character: a tight loop, far faster than indexOf per string.
      let d = bytes[++i]
      while (d !== QUOTE) {
        if (d === undefined) throw new ImportError(field, 'notJson')
        if (d === SLASH) i++
        d = bytes[++i]
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++values > limits.values) throw new ImportError(field, 'exportTooManyValues', { limit: limits.values })
      if (values - startValues > limits.elementValues)
        throw new ImportError(field, 'exportConversationTooBig', { limit: limits.elementValues })
      if (++depth > limits.depth) throw new ImportError(field, 'exportTooDeep', { limit: limits.depth })
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (--depth === 0) {
        close(i)
        return
      }
    } else if (c === COMMA) {
      if (++values > limits.values) throw new ImportError(field, 'exportTooManyValues', { limit: limits.values })
      if (depth === 1) close(i)
      else if (values - startValues > limits.elementValues)
        throw new ImportError(field, 'exportConversationTooBig', { limit: limits.elementValues })
    }
  }
  throw new ImportError(field, 'notJson')
}
