/**
 * The bounds every reader of outside files shares: how deep a JSON text or YAML front matter may nest, measured by
 * one linear scan before any parser sees the text (parsers and the walkers after them recurse, and a file 400,000
 * brackets deep would overflow the stack or take seconds), and the warnings one file may give (a file can be made
 * to give a warning per line; the reply keeps the first ones and says how many more there were). Pure.
 */
import { note, type ImportNote } from '../shared/import-notes.ts'
import { ImportError } from '../shared/errors.ts'

/** Levels of nesting a card's JSON may have; real cards stay under 8 (lorebook entries' extensions). */
export const JSON_DEPTH_LIMIT = 20
/**
 * JSON values a card may hold: a lorebook of 2,000 entries of 20 fields each is 40,000. Parsing 100,000 small values
 * takes about 60 ms on a 2-core machine; a card past it would hold the host (every page and conversation) longer.
 */
export const JSON_VALUE_LIMIT = 100_000
/** Levels of flow nesting (`[`, `{`) front matter may have; agent files use one. */
const YAML_DEPTH_LIMIT = 16
/** Warnings one file's outcome carries. */
export const WARNING_LIMIT = 50

/**
 * The deepest nesting and the number of values (each array or object, and each comma, outside strings) of JSON text,
 * stopping as soon as either passes its limit. Strings are skipped with indexOf, so a card of long texts costs little.
 */
function jsonShape(text: string, depthLimit: number, valueLimit: number): { depth: number; values: number } {
  let depth = 0
  let max = 0
  let values = 0
  for (let i = 0; i < text.length && max <= depthLimit && values <= valueLimit; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string: to the next quote not escaped by an odd run of backslashes.
      for (;;) {
        i = text.indexOf('"', i + 1)
        if (i < 0) return { depth: max, values }
        let slashes = 0
        while (text.charCodeAt(i - 1 - slashes) === 0x5c) slashes++
        if (slashes % 2 === 0) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      values++
      if (++depth > max) max = depth
    } else if (c === 0x5d || c === 0x7d) depth--
    else if (c === 0x2c) values++
  }
  return { depth: max, values }
}

/**
 * Refuse (naming `field`) JSON text nested deeper than `depth` or holding more than `values` values, before it is
 * parsed: parsing is the one step of an import whose cost grows with the count of values, not the bytes. Gives the
 * depth and count it measured.
 */
export function checkJson(
  text: string,
  field: string,
  limits: { depth: number; values: number },
): { depth: number; values: number } {
  const shape = jsonShape(text, limits.depth, limits.values)
  if (shape.depth > limits.depth) throw new ImportError(field, 'tooDeep', { limit: limits.depth })
  if (shape.values > limits.values) throw new ImportError(field, 'tooManyValues', { limit: limits.values })
  return shape
}

/**
 * The deepest flow nesting (`[`/`{`) in YAML text, quoted scalars and comments skipped, stopping once past `limit`.
 * Block nesting needs more indentation per level, so a file within its size limit cannot nest that way deeply.
 */
function yamlDepth(text: string, limit: number): number {
  let depth = 0
  let max = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++
    } else if (c === "'") {
      for (i++; i < text.length; i++) {
        if (text[i] === "'") {
          if (text[i + 1] !== "'") break
          i++
        }
      }
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < text.length && text[i] !== '\n') i++
    } else if (c === '[' || c === '{') {
      if (++depth > max && (max = depth) > limit) return max
    } else if ((c === ']' || c === '}') && depth > 0) depth--
  }
  return max
}

/** Refuse (naming `field`) YAML text nested deeper than `limit`, before it is parsed. */
export function checkYamlDepth(text: string, field: string, limit = YAML_DEPTH_LIMIT): void {
  if (yamlDepth(text, limit) > limit) throw new ImportError(field, 'tooDeep', { limit })
}

/**
 * A file's warnings: an array that keeps the first {@link WARNING_LIMIT} and counts the rest, so a file made to warn
 * on every line costs a count, not a list. {@link Warnings.list} gives them with the count as a last line.
 */
export class Warnings extends Array<ImportNote> {
  // Private, so that the list compares equal to a plain array of the same warnings.
  #omitted = 0

  // map/filter/slice give plain arrays: only pushes are counted.
  static override get [Symbol.species](): ArrayConstructor {
    return Array
  }

  override push(...items: ImportNote[]): number {
    for (const item of items) {
      if (this.length < WARNING_LIMIT) super.push(item)
      else this.#omitted++
    }
    return this.length
  }

  /** Warnings given past the limit and not kept. */
  get omitted(): number {
    return this.#omitted
  }

  /** Add every warning of `other` (and what it left out), one by one: spreading a long list into push() overflows the stack. */
  addAll(other: readonly ImportNote[]): void {
    for (const item of other) this.push(item)
    if (other instanceof Warnings) this.#omitted += other.omitted
  }

  /** The kept warnings, with "N more not shown" last when some were left out. */
  list(): ImportNote[] {
    const out = Array.from(this)
    if (this.#omitted > 0) out.push(note('more', { count: this.#omitted }))
    return out
  }
}
