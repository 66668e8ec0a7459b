/**
 * The browser half's language: the lookup over the Chinese and English copy (copy-zh.ts, copy-en.ts), and the hook
 * that follows the host language. It never talks to /__ap.
 * Lookup picks a text's plural form for its count (`Intl.PluralRules`) and falls back to the built-in Chinese text,
 * never to an empty string (an empty fallback once made hints vanish silently when the locale registration failed).
 */
import { useCallback, useSyncExternalStore } from 'react'
import { en } from './copy-en.ts'
import { zh, type ApKey } from './copy-zh.ts'

export { en, zh, type ApKey }

/** Namespace under which the dictionaries are registered with the host's locale service. */
export const LOCALE_NS = 'agent-profiles'

/**
 * A dictionary: a key's text, or for a text that names a count its plural forms as `<key>.one`, `<key>.other` (and
 * any other category `Intl.PluralRules` names for the language). Chinese has no plural forms.
 */
export type Dict = Readonly<Record<string, string>>

/** Template values: `{name}` in a template is replaced by `params.name`; a list is said as the language lists. */
export type Params = Readonly<Record<string, string | number | readonly string[]>>

/** A bound translate function. */
export type T = (key: ApKey, params?: Params) => string

const DICTS: Readonly<Record<string, Dict>> = { zh, en }

const pluralRules = new Map<string, Intl.PluralRules>()
const listFormats = new Map<string, Intl.ListFormat>()

function cached<V>(cache: Map<string, V>, locale: string, make: (locale: string) => V): V {
  let v = cache.get(locale)
  if (v === undefined) {
    try {
      v = make(locale)
    } catch {
      // A language id the engine does not know still gets its root rules rather than a thrown render.
      v = make('und')
    }
    cache.set(locale, v)
  }
  return v
}

/**
 * The text of `key` in `dict`: with a numeric `count`, the plural form the language's rules pick for it (then the
 * `other` form, then the plain key); without one, the plain key (then `other`). Empty texts count as missing.
 */
function pick(dict: Dict | undefined, locale: string, key: string, count: unknown): string | undefined {
  if (dict === undefined) return undefined
  const forms =
    typeof count === 'number'
      ? [`${key}.${cached(pluralRules, locale, (l) => new Intl.PluralRules(l)).select(count)}`, `${key}.other`, key]
      : [key, `${key}.other`]
  for (const form of forms) {
    const text = dict[form]
    if (text !== undefined && text !== '') return text
  }
  return undefined
}

/**
 * Look `key` up in the `locale` dictionary (its plural form for `params.count`), then in the built-in Chinese, and
 * fill its placeholders. Never an empty string: the key itself is the last resort.
 */
export function translate(
  locale: string,
  key: ApKey,
  params?: Params,
  dicts: Readonly<Record<string, Dict>> = DICTS,
): string {
  const own = pick(dicts[locale], locale, key, params?.count)
  const template = own ?? pick(zh, 'zh', key, params?.count) ?? key
  if (params === undefined) return template
  const lang = own === undefined ? 'zh' : locale
  return template.replace(/\{(\w+)\}/g, (match, name: string) => {
    const value = params[name]
    if (value === undefined) return match
    return typeof value === 'object'
      ? cached(listFormats, lang, (l) => new Intl.ListFormat(l, { type: 'conjunction' })).format(value)
      : String(value)
  })
}

/** The slice of the host's locale service the copy follows. */
export interface LocaleSource {
  getLocale(): { active: string }
  subscribe(fn: () => void): () => void
}

const CHINESE: LocaleSource = { getLocale: () => ({ active: 'zh' }), subscribe: () => () => {} }
let source: LocaleSource = CHINESE

/** Follow `next` (the host's `ctx.locale`) from now on; the returned disposer goes back to Chinese. */
export function bindLocale(next: LocaleSource): () => void {
  source = next
  return () => {
    if (source === next) source = CHINESE
  }
}

/** The active host language id ('zh' | 'en'), read now. */
export function activeLocale(): string {
  return source.getLocale().active
}

const subscribeLocale = (fn: () => void): (() => void) => source.subscribe(fn)

/** React hook: a translate function for the active host language; re-renders when the user switches it. */
export function useT(): T {
  const active = useSyncExternalStore(subscribeLocale, activeLocale, activeLocale)
  return useCallback<T>((key, params) => translate(active, key, params), [active])
}
