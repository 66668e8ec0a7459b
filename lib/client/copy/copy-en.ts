/**
 * The browser half's English copy, merged from one file per area of the page (copy-en-<area>.ts) and checked complete against the
 * Chinese key set: a text that names a count has its plural forms as `<key>.one` and `<key>.other` instead of the
 * plain key. Data only; the lookup lives in locales.ts.
 */
import type { ApKey } from './copy-zh.ts'
import { conversation } from './copy-en-conversation.ts'
import { files } from './copy-en-files.ts'
import { host } from './copy-en-host.ts'
import { memory } from './copy-en-memory.ts'
import { page } from './copy-en-page.ts'

/** The Chinese keys `D` has neither as a text nor as an `other` form. */
type Missing<D> = Exclude<
  ApKey,
  keyof D | (keyof D extends infer K ? (K extends `${infer Base}.other` ? Base : never) : never)
>

const copy = { ...page, ...memory, ...conversation, ...files, ...host }

/** English; a Chinese key it has no text for turns this type into `{ missing }` and fails the build. */
export const en: [Missing<typeof copy>] extends [never] ? typeof copy : { missing: Missing<typeof copy> } = copy
