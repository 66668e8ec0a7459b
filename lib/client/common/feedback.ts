/**
 * Turns what the host answers into words for the user: errors (naming the field and its limit), command notices,
 * sizes and times, in the active language. Pure functions; it never renders and never sends anything.
 */
import { ApiError } from '../data/api.ts'
import { activeLocale, zh, type ApKey, type T } from '../copy/locales.ts'
import type { Notice } from '../../shared/contract.ts'

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
}

/** The label of a data field as the user sees it in the editor ('role' → "角色设定"); unknown fields as named. */
export function fieldLabel(t: T, field: string): string {
  // Paths like `patch.memory.items[3].text`: the innermost segment the editor has a label for names the field.
  const segments = field.replace(/\[\d+\]/g, '').split('.').filter((s) => !/^\d+$/.test(s))
  for (let i = segments.length - 1; i >= 0; i--) {
    const key = FIELD_KEYS[segments[i]!]
    if (key !== undefined) return t(key)
  }
  return field
}

/** A failure as one sentence: the field and limit for refused input, the cause for a lost connection. */
export function describeError(t: T, error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error)
  if (error.code === 'network') return t('error.network', { message: error.message })
  if (error.code === 'locked') return t('error.locked', { message: error.message })
  if (error.code === 'read-only') return t('error.readOnly')
  // A rule the page has words for is said in the user's language; the host's own sentence otherwise.
  const ruleKey = `error.rule.${error.rule ?? ''}`
  const message = error.rule !== undefined && ruleKey in zh ? t(ruleKey as ApKey) : error.message
  if (error.field !== undefined) return t('error.field', { field: fieldLabel(t, error.field), message })
  return message
}

/**
 * A command's notice in the active language. In Chinese the host's own sentence is exact (it words conditional
 * parts itself); elsewhere our template for its key, else that Chinese sentence.
 */
export function noticeText(t: T, notice: Notice | undefined): string {
  if (notice === undefined) return ''
  const key = `notice.${notice.key}`
  if (activeLocale() === 'zh' || !(key in zh)) return notice.text
  return t(key as ApKey, notice.params)
}

/** "512 B", "43.2 KB", "3.1 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** A moment as a short local date and time in the active language. */
export function formatTime(locale: string, at: number): string {
  if (!Number.isFinite(at) || at <= 0) return ''
  return new Intl.DateTimeFormat(locale === 'en' ? 'en' : 'zh-CN', { dateStyle: 'short', timeStyle: 'short' }).format(at)
}

/** A conversation id as a short label (`session-3f2a…` → `3f2a9c1e`). */
export function shortSession(sessionId: string): string {
  return sessionId.replace(/^session-/, '').slice(0, 8)
}
