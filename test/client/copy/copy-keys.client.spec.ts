/**
 * Every text the user can be shown exists in both languages: each notice key the host's commands can send (the list
 * lib/shared/notices.ts types `notice()` with) and each of its clauses, each reason a background run, a profile's
 * model, a row set aside, a degradation or a load error can give (lib/shared/reasons.ts) — every family of keyed
 * messages lib/shared exports, found by its shape, so a new family fails here until both languages word it — each
 * refusal code and rule the host can send (lib/shared/refusals.ts) and the page's own error codes, and each copy key
 * the page's code names. English has the plural forms a count needs: no text reads "1 memories".
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { en, translate, zh, type ApKey } from '../../../lib/client/copy/locales.ts'
import { CLIENT_ERROR_CODES } from '../../../lib/client/common/feedback.ts'
import { NOTICE_KEYS, type MessageShape } from '../../../lib/shared/notices.ts'
import { REFUSAL_CODES, REFUSAL_RULES } from '../../../lib/shared/refusals.ts'

const EN: Readonly<Record<string, string>> = en
const ZH: Readonly<Record<string, string>> = zh

/** The English texts of `key`: the plain one, or its plural forms. */
function enForms(key: string): string[] {
  return [EN[key], EN[`${key}.one`], EN[`${key}.other`]].filter((s): s is string => s !== undefined)
}

/** Keys that lack a non-empty text in Chinese or in English (as a text or an `other` form). */
function missing(keys: readonly string[]): string[] {
  return keys.filter(
    (k) => (ZH[k] ?? '').trim() === '' || ((EN[k] ?? '').trim() === '' && (EN[`${k}.other`] ?? '').trim() === ''),
  )
}

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)

/**
 * The prefix of the copy keys of each family of keyed messages the host sends, by the name lib/shared exports it
 * under: the notices, why a background run was skipped or failed, why a profile's model was not used, why a row was
 * set aside, why the data directory cannot be written, what a part could not do as usual, why the data could not be
 * loaded and what the store did about it.
 */
const PREFIXES: Readonly<Record<string, string>> = {
  NOTICES: 'notice',
  SKIP_REASONS: 'diag.skip',
  FAIL_REASONS: 'diag.fail',
  MODEL_REASONS: 'model.why',
  SET_ASIDE_REASONS: 'data.why',
  UNWRITABLE_CAUSES: 'data.unwritable',
  WARNINGS: 'diag.degraded',
  LOAD_PROBLEMS: 'diag.load',
  LOAD_OUTCOMES: 'diag.loadOutcome',
}

/** Whether `v` is a family of keyed messages: an object of keys, each a message shape (`params`, `clauses`). */
function isFamily(v: unknown): v is Readonly<Record<string, MessageShape>> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const shapes = Object.values(v)
  return (
    shapes.length > 0 &&
    shapes.every(
      (s: unknown) =>
        typeof s === 'object' &&
        s !== null &&
        !Array.isArray(s) &&
        Object.entries(s).every(([k, list]) => (k === 'params' || k === 'clauses') && Array.isArray(list)),
    )
  )
}

/** Every family of keyed messages any module of lib/shared exports, by its exported name. */
const SHARED = await Promise.all(
  readdirSync('lib/shared')
    .filter((f) => f.endsWith('.ts'))
    .map((f) => import(/* @vite-ignore */ `../../../lib/shared/${f}`) as Promise<Record<string, unknown>>),
)
const EXPORTED = SHARED.flatMap((m) =>
  Object.entries(m).filter((e): e is [string, Record<string, MessageShape>] => isFamily(e[1])),
)

/** Each family with the prefix of its copy keys. */
const FAMILIES = EXPORTED.map(([name, shapes]) => [PREFIXES[name] ?? `<no prefix for ${name}>`, shapes] as const)

describe('the copy of what the host sends', () => {
  it('knows the copy prefix of every family of keyed messages lib/shared exports', () => {
    const names = EXPORTED.map(([name]) => name)
    expect(names).toEqual(expect.arrayContaining(Object.keys(PREFIXES)))
    expect(names.filter((name) => PREFIXES[name] === undefined)).toEqual([])
  })

  it('has a Chinese and an English text for every key the host can send (notices and reasons), and for each clause', () => {
    expect(NOTICE_KEYS.length).toBeGreaterThan(30)
    for (const [family, shapes] of FAMILIES) {
      const keys = Object.entries(shapes).flatMap(([k, shape]) => [
        `${family}.${k}`,
        ...(shape.clauses ?? []).map((c) => `${family}.${k}.${c}`),
      ])
      expect(missing(keys), family).toEqual([])
    }
  })

  it('uses in each text only the values the host sends for it', () => {
    for (const [family, shapes] of FAMILIES) {
      for (const [key, shape] of Object.entries(shapes)) {
        const allowed = new Set([...(shape.params ?? []), ...(shape.clauses ?? []), 'count'])
        const texts = [`${family}.${key}`, ...(shape.clauses ?? []).map((c) => `${family}.${key}.${c}`)].flatMap(
          (k) => [ZH[k] ?? '', ...enForms(k)],
        )
        for (const text of texts)
          for (const name of placeholders(text)) expect(allowed.has(name), `${family}.${key}: {${name}}`).toBe(true)
      }
    }
  })

  it("has words in both languages for every refusal code the host can send, the page's own codes, and every rule", () => {
    const codes = [...REFUSAL_CODES, ...CLIENT_ERROR_CODES].map((c) => `error.code.${c}`)
    expect(missing(codes)).toEqual([])
    expect(missing(REFUSAL_RULES.map((r) => `error.rule.${r}`))).toEqual([])
  })
})

/** Every source file of the browser half. */
function clientSources(dir = 'lib/client'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return path.endsWith('copy') ? [] : clientSources(path)
    return /\.tsx?$/.test(e.name) ? [path] : []
  })
}

describe('the copy the page uses', () => {
  const sources = clientSources().map((p) => readFileSync(p, 'utf8'))

  it('has both languages for every key the page names, and a key for every prefix it builds keys from', () => {
    const named = new Set<string>()
    const prefixes = new Set<string>()
    for (const src of sources) {
      // t('key'…), translate(locale, 'key'…), and keys given as typed values ('memorySave.refused', as ApKey).
      for (const m of src.matchAll(/'([a-zA-Z]+(?:\.[a-zA-Z-]+)+)'/g))
        if (m[1]! in ZH || `${m[1]}.other` in EN) named.add(m[1]!)
      for (const m of src.matchAll(/\bt\('([^']+)'/g)) named.add(m[1]!)
      for (const m of src.matchAll(/`([a-zA-Z]+(?:\.[a-zA-Z-]+)*\.)\$\{/g)) prefixes.add(m[1]!)
    }
    expect(named.size).toBeGreaterThan(300)
    expect(missing([...named])).toEqual([])
    for (const prefix of prefixes)
      expect(
        Object.keys(ZH).some((k) => k.startsWith(prefix)),
        prefix,
      ).toBe(true)
  })

  it('has English for every Chinese key, nothing English only, and both forms of every plural', () => {
    expect(missing(Object.keys(ZH))).toEqual([])
    for (const key of Object.keys(EN)) {
      const base = key.replace(/\.(one|other)$/, '')
      expect(base in ZH, key).toBe(true)
      if (base !== key) {
        expect(EN[`${base}.one`] !== undefined && EN[`${base}.other`] !== undefined, `${base} has both forms`).toBe(
          true,
        )
        expect(EN[base], `${base} has no plain text beside its forms`).toBeUndefined()
      }
    }
  })

  /**
   * Texts whose number is never 1: a limit or budget of the configuration (hundreds or thousands of characters, tens
   * of items), a length over such a limit, or a name that matches several profiles.
   */
  const NEVER_ONE = new Set([
    'about.share',
    'editor.tooLong',
    'avatar.encodedTooLarge',
    'memory.meter',
    'memory.itemTooLong',
    'memory.tooMany',
    'diag.recallOn',
    'diag.compressOn',
    // compression runs only on a memory past its threshold (500 characters at the least)
    'diag.fail.not-shorter',
    'tools.nameTooLong',
    // the bounds of search keys are fixed: 40 characters a key, 300 in all
    'error.rule.keys.length',
    'error.rule.keys.total',
    'tools.tooMany',
    'mention.ambiguous',
    // several profiles of one name: two at the least
    'mention.same',
    // an imported file's length or count over one of the import limits, and the limit itself
    'import.pictureTooBig',
    'import.iconTooBig',
    'import.cut',
    'import.cutKept',
    'import.bookKeys',
    'import.memoryItems',
    'import.bookEntriesCut',
    'import.bookSplit',
    'import.toolsCut',
    'import.headingsCut',
    'import.tooDeep',
    'import.tooManyValues',
    'import.charxEntryTooBig',
    'import.jsonTooLong',
    'import.frontTooLong',
    'import.tooLong',
    'import.tooManyLines',
    'import.zipTooManyEntries',
    'import.zipBomb',
    'import.exportTooLarge',
    'import.exportTooDeep',
    'import.exportTooManyValues',
    'import.exportTooManyConversations',
    'import.exportTooManyMessages',
    'import.exportConversationTooBig',
  ])

  it('never reads "1 memories": with every number 1, no English text puts a plural noun right after it', () => {
    const wrong: string[] = []
    for (const key of Object.keys(ZH) as ApKey[]) {
      if (NEVER_ONE.has(key)) continue
      const params = Object.fromEntries(
        placeholders(ZH[key]!)
          .concat(enForms(key).flatMap(placeholders))
          .map((n) => [n, 1]),
      )
      const text = translate('en', key, params)
      if (/\b1 (?:"[^"]*" |possible |over-long |memory )?(?!is\b|has\b|was\b|ms\b)[a-z]+s\b/.test(text))
        wrong.push(`${key}: ${text}`)
    }
    expect(wrong).toEqual([])
  })
})
