/**
 * Turns what the host answers into words for the user: refusals (worded from their code, field, limit and rule),
 * keyed messages such as command notices (worded from their key and values), sizes and times, in the active
 * language. Pure functions; it never renders and never sends anything.
 */
import { ApiError } from '../data/call.ts'
import type { ApKey, T } from '../copy/locales.ts'
import { NOTICES, type Keyed, type MessageShape, type Notice } from '../../shared/notices.ts'
import { REFUSAL_CODES, REFUSAL_RULES, type RefusalCode, type RefusalRule } from '../../shared/refusals.ts'

const FIELD_KEYS: Record<string, ApKey> = {
  name: 'field.name',
  emoji: 'field.emoji',
  avatar: 'field.avatar',
  role: 'field.role',
  personality: 'field.personality',
  speakingStyle: 'field.speakingStyle',
  rules: 'field.rules',
  memoryEnabled: 'field.memoryEnabled',
  summary: 'field.summary',
  items: 'field.items',
  memories: 'field.items',
  note: 'field.note',
  text: 'field.memoryText',
  profiles: 'field.profiles',
  sessions: 'field.sessions',
  files: 'field.files',
  cast: 'field.cast',
  tools: 'field.tools',
  keys: 'field.keys',
  itemIds: 'field.items',
  remote: 'sync.remote',
  branch: 'sync.branch',
}

/** Fields whose limit counts entries (profiles, items, files…) rather than characters. */
const LIST_FIELDS = new Set([
  'items',
  'memories',
  'profiles',
  'sessions',
  'files',
  'cast',
  'tools',
  'sessionIds',
  'facts',
  'basedOn',
  'itemIds',
])

/** The names in a field path, without indexes (`patch.memory.items[3].text` → patch, memory, items, text). */
function segments(field: string): string[] {
  return field
    .replace(/\[\d+\]/g, '')
    .split('.')
    .filter((s) => s !== '' && !/^\d+$/.test(s))
}

/** The label of a data field as the user sees it in the editor ('role' → "角色设定"); an unknown field as "this value". */
export function fieldLabel(t: T, field: string): string {
  const path = segments(field)
  for (let i = path.length - 1; i >= 0; i--) {
    const key = FIELD_KEYS[path[i]!]
    if (key !== undefined) return t(key)
  }
  // A path like `patch.basedOn` is the program's name for it, not the user's.
  return t('field.unknown')
}

/** Codes the page gives a request that got no readable answer: no connection, an answer without a JSON error, not JSON. */
export const CLIENT_ERROR_CODES = ['network', 'http', 'bad-response'] as const

/** Every error code the page has words for: the host's refusals and the page's own. */
const WORDED_CODES: readonly string[] = [...REFUSAL_CODES, ...CLIENT_ERROR_CODES]

/**
 * Why a value was refused, from its rule (with the bounds or choices it names), else its limit (characters or
 * entries, by the field); undefined when the refusal names neither. A refusal from the wire, a row the store set
 * aside and a refused row config all carry these facts.
 */
export function ruleText(
  t: T,
  facts: { field?: string; limit?: number; rule?: string; min?: number; values?: readonly string[] },
): string | undefined {
  if (facts.rule !== undefined && (REFUSAL_RULES as readonly string[]).includes(facts.rule))
    return t(`error.rule.${facts.rule as RefusalRule}`, {
      min: facts.min ?? '',
      limit: facts.limit ?? '',
      // Choices, not a list of things: a slash reads as "or" in both languages.
      values: (facts.values ?? []).join(' / '),
    })
  if (facts.limit !== undefined && facts.field !== undefined) {
    const last = segments(facts.field).at(-1) ?? ''
    const entries = LIST_FIELDS.has(last) && !facts.field.endsWith(']')
    return t(entries ? 'error.limit.entries' : 'error.limit.chars', { count: facts.limit })
  }
  return undefined
}

/** Rules worded as a whole sentence, said without the field's label before them. */
const WHOLE_SENTENCE_RULES: ReadonlySet<string> = new Set<RefusalRule>([
  'profile.last',
  'session.incognito',
  'backup.damaged',
  'backup.newer',
  'backup.empty',
  'search.words',
  'learn.memory-off',
  'learn.running',
  'learn.no-model',
  'learn.elsewhere',
  'import.running',
  'profile.library',
  'library.added',
  'data.damaged',
])

/** Why input was refused: its rule or limit, else its code. */
function reason(t: T, error: ApiError): string {
  return ruleText(t, error) ?? t(`error.code.${error.code as RefusalCode}`)
}

/** A failure the page has already worded in the user's language: said as it is. */
export class WordedError extends Error {
  override name = 'WordedError'
}

/**
 * A failure as one sentence in the page's language, worded from the refusal's code, field, limit and rule; the
 * host's own `message` only for a code this page has no words for (a host newer than the page). A failure of the
 * page's own code is said as such, its message quoted after the sentence for whoever reports it.
 */
export function describeError(t: T, error: unknown): string {
  if (error instanceof WordedError) return error.message
  if (!(error instanceof ApiError))
    return t('detail.quoted', { text: t('error.page'), detail: error instanceof Error ? error.message : String(error) })
  // A byte cap names no field; a cap of the body's shape (`body.depth`, `body.values`) is no size in bytes.
  if (error.code === 'too-large' && error.limit !== undefined && error.field === undefined)
    return t('error.tooLarge', { size: formatBytes(error.limit) })
  if (!WORDED_CODES.includes(error.code)) return error.message
  // A rule said as a whole sentence stands alone, whatever the code (a damaged page of the data file is `io`).
  if (error.rule !== undefined && WHOLE_SENTENCE_RULES.has(error.rule)) return reason(t, error)
  if (error.code !== 'invalid' && error.code !== 'conflict') return t(`error.code.${error.code as RefusalCode}`)
  const why = reason(t, error)
  // A refusal of what the user typed names the field.
  return error.field === undefined ? why : t('error.field', { field: fieldLabel(t, error.field), message: why })
}

/**
 * A keyed message in the page's language: the text of `<family>.<key>` (its plural form for `params.count`), then
 * each clause the message's shape lists whose value is not 0 and not '', as `<family>.<key>.<clause>` with that value
 * also as `{count}`. How an import note is worded too (family 'note').
 */
export function wordKeyed(t: T, family: string, message: Keyed, shape: MessageShape | undefined): string {
  const params = message.params ?? {}
  const key = `${family}.${message.key}`
  let text = t(key as ApKey, params)
  for (const clause of shape?.clauses ?? []) {
    const value = params[clause]
    if (value === undefined || value === 0 || value === '') continue
    text += t(`${key}.${clause}` as ApKey, typeof value === 'number' ? { ...params, count: value } : params)
  }
  return text
}

/** A command's notice in the page's language. */
export function noticeText(t: T, notice: Notice | undefined): string {
  if (notice === undefined) return ''
  return wordKeyed(t, 'notice', notice, (NOTICES as Readonly<Record<string, MessageShape>>)[notice.key])
}

/** "512 B", "43.2 KB", "3.1 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** A moment as a short local date and time in the active language. */
export function formatTime(locale: string, at: number, { seconds = false }: { seconds?: boolean } = {}): string {
  if (!Number.isFinite(at) || at <= 0) return ''
  return new Intl.DateTimeFormat(locale === 'en' ? 'en' : 'zh-CN', {
    dateStyle: 'short',
    timeStyle: seconds ? 'medium' : 'short',
  }).format(at)
}

/** A conversation id as a short label (`session-3f2a…` → `3f2a9c1e`). */
export function shortSession(sessionId: string): string {
  return sessionId.replace(/^session-/, '').slice(0, 8)
}
