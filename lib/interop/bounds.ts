/**
 * The bounds every reader of outside files shares: how deep a JSON text or YAML front matter may nest, measured by
 * one linear scan before any parser sees the text (parsers and the walkers after them recurse, and a file 400,000
 * brackets deep would overflow the stack or take seconds), and the warnings one file may give (a file can be made
 * to give a warning per line; the reply keeps the first ones and says how many more there were). Pure.
 */
import { ImportError } from '../shared/card-text.ts'

/** Levels of nesting a card's JSON may have; real cards stay under 8 (lorebook entries' extensions). */
export const JSON_DEPTH_LIMIT = 20
/** Levels of flow nesting (`[`, `{`) front matter may have; agent files use one. */
export const YAML_DEPTH_LIMIT = 16
/** Warnings one file's outcome carries. */
export const WARNING_LIMIT = 50

/** The deepest nesting of arrays and objects in JSON text (strings skipped), stopping as soon as it passes `limit`. */
function jsonDepth(text: string, limit: number): number {
  let depth = 0
  let max = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string: skip to its closing quote, past escapes.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max && (max = depth) > limit) return max
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return max
}

/** Refuse (naming `field`) JSON text nested deeper than `limit`, before it is parsed. */
export function checkJsonDepth(text: string, field: string, limit = JSON_DEPTH_LIMIT): void {
  if (jsonDepth(text, limit) > limit) throw new ImportError(field, `is nested more than ${limit} levels deep, over the limit of ${limit}`, limit)
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
  if (yamlDepth(text, limit) > limit) throw new ImportError(field, `is nested more than ${limit} levels deep, over the limit of ${limit}`, limit)
}

/**
 * A file's warnings: an array that keeps the first {@link WARNING_LIMIT} and counts the rest, so a file made to warn
 * on every line costs a count, not a list. {@link Warnings.list} gives them with the count as a last line.
 */
export class Warnings extends Array<string> {
  /** Warnings given past the limit and not kept. */
  omitted = 0

  // map/filter/slice give plain arrays: only pushes are counted.
  static override get [Symbol.species](): ArrayConstructor {
    return Array
  }

  override push(...items: string[]): number {
    for (const item of items) {
      if (this.length < WARNING_LIMIT) super.push(item)
      else this.omitted++
    }
    return this.length
  }

  /** Add every warning of `other`, one by one (spreading a long list into push() overflows the stack). */
  addAll(other: readonly string[]): void {
    for (const item of other) this.push(item)
  }

  /** The kept warnings, with "N more not shown" last when some were left out. */
  list(): string[] {
    const out = Array.from(this)
    if (this.omitted > 0) out.push(`${this.omitted} more warning${this.omitted === 1 ? '' : 's'} not shown`)
    return out
  }
}
