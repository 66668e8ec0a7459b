/**
 * Which conversations of an export to learn from, as the user picks them: all, those of a date range, those whose
 * title or messages contain a word. A date range is read from what the host holds of each conversation without
 * parsing it; a word parses each conversation in the range in turn (nothing parsed is kept). A word is matched as
 * plain text (case folded), never as a pattern.
 */
import type { LearnConversation } from './conversation.ts'
import type { HeldConversations } from './export-parts.ts'

/** The user's pick: a day range (inclusive, ms; absent: open) and a word (''/absent: any). */
export interface LearnFilter {
  from?: number
  to?: number
  word?: string
}

/** Whether a conversation names the word (folded) in its title or any message. */
function names(c: LearnConversation, word: string): boolean {
  if (c.title.toLocaleLowerCase().includes(word)) return true
  return c.messages.some((m) => m.text.toLocaleLowerCase().includes(word))
}

/** The conversations the filter picks (their indices in `held`), in the export's order. */
export function selectConversations(held: HeldConversations, f: LearnFilter): number[] {
  const word = (f.word ?? '').trim().toLocaleLowerCase()
  const picks: number[] = []
  for (let i = 0; i < held.length; i++) {
    const at = held.startOf(i)
    if (f.from !== undefined && at < f.from) continue
    if (f.to !== undefined && at > f.to) continue
    if (word === '' || names(held.conversation(i), word)) picks.push(i)
  }
  return picks
}
