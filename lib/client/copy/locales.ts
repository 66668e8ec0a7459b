/**
 * The browser half's language: the lookup over the Chinese and English copy (copy-zh.ts, copy-en.ts), and the hook
 * that follows the host language. It never talks to /__ap.
 * Lookup falls back to the built-in Chinese text, never to an empty string (an empty
 * fallback once made hints vanish silently when the locale registration failed).
 */
import { useCallback, useSyncExternalStore } from 'react'
import { en } from './copy-en.ts'
import { zh, type ApKey } from './copy-zh.ts'

export { en, zh, type ApKey }

/** Namespace under which the dictionaries are registered with the host's locale service. */
export const LOCALE_NS = 'agent-profiles'

/** A dictionary that may lack keys (a stale or partial translation). */
export type Dict = Partial<Record<ApKey, string>>

/** Template parameters: `{name}` in a template is replaced by `params.name`. */
export type Params = Record<string, string | number>

/** A bound translate function. */
export type T = (key: ApKey, params?: Params) => string

const DICTS: Readonly<Record<string, Dict>> = { zh, en }

/**
 * Look `key` up in the `locale` dictionary, then in the built-in Chinese; an empty translation counts as missing.
 */
export function translate(locale: string, key: ApKey, params?: Params, dicts: Readonly<Record<string, Dict>> = DICTS): string {
  const own = dicts[locale]?.[key]
  const template = own !== undefined && own !== '' ? own : zh[key] ?? key
  if (params === undefined) return template
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in params ? String(params[name]) : match))
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
