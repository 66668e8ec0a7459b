/**
 * The browser half's Chinese copy: every user-visible string of lib/client, and the key set the English copy must
 * match, merged from one file per area of the page (copy-zh-<area>.ts). Data only; the lookup lives in locales.ts.
 */
import { conversation } from './copy-zh-conversation.ts'
import { files } from './copy-zh-files.ts'
import { host } from './copy-zh-host.ts'
import { memory } from './copy-zh-memory.ts'
import { page } from './copy-zh-page.ts'

/**
 * Simplified Chinese: the source of truth for the key set and the last-resort text of every key. No key is in two
 * areas: each area holds the keys of its prefixes (a prefix such as `memory.` or `import.` lives in one file).
 */
export const zh = { ...page, ...memory, ...conversation, ...files, ...host } satisfies Record<string, string>

/** Every key of the browser half's copy. */
export type ApKey = keyof typeof zh

/** A key of the English copy: a Chinese key, or one of its plural forms. */
export type EnKey = ApKey | `${ApKey}.${'one' | 'other'}`
