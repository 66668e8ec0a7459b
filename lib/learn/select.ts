/**
 * Which conversations of an export to learn from, as the user picks them: all, those of a date range, those whose
 * title or messages contain a word. Pure; a word is matched as plain text (case folded), never as a pattern.
 */
import type { LearnConversation } from './conversation.ts'

/** The user's pick: a day range (inclusive, ms; absent: open) and a word (''/absent: any). */
export interface LearnFilter {
  from?: number
  to?: number
  word?: string
}

/** Whether a conversation started within the range and names the word (in its title or any message). */
function picked(c: LearnConversation, f: LearnFilter, word: string): boolean {
  if (f.from !== undefined && c.at < f.from) return false
  if (f.to !== undefined && c.at > f.to) return false
  if (word === '') return true
  if (c.title.toLocaleLowerCase().includes(word)) return true
  return c.messages.some((m) => m.text.toLocaleLowerCase().includes(word))
}

/** The conversations the filter picks, in the export's order. */
export function selectConversations(list: readonly LearnConversation[], f: LearnFilter): LearnConversation[] {
  const word = (f.word ?? '').trim().toLocaleLowerCase()
  return list.filter((c) => picked(c, f, word))
}
