/**
 * Which conversations of an export to learn from, as the user picks them: all, those of a date range, those whose
 * title or messages contain a word. A date range is read from what the host holds of each conversation without
 * parsing it; a word parses each conversation in the range in turn (nothing parsed is kept), a slice at a time (the
 * loop turns between two: a word over a whole export is seconds of work). A word is matched as plain text (case
 * folded), never as a pattern.
 */
import type { LearnConversation } from './conversation.ts'
import type { HeldConversations } from './export-parts.ts'
import { Slices } from './slices.ts'

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

/** The conversations the filter picks (their indices in `held`), in the export's order, parsed in `slices`. */
export async function selectConversations(
  held: HeldConversations,
  f: LearnFilter,
  slices = new Slices(),
): Promise<number[]> {
  const word = (f.word ?? '').trim().toLocaleLowerCase()
  const dated: number[] = []
  for (let i = 0; i < held.length; i++) {
    const at = held.startOf(i)
    if (f.from !== undefined && at < f.from) continue
    if (f.to !== undefined && at > f.to) continue
    dated.push(i)
  }
  if (word === '') return dated
  const picks: number[] = []
  let k = 0
  for await (const slice of held.parsed(dated, slices))
    for (const c of slice) {
      if (names(c, word)) picks.push(dated[k]!)
      k++
    }
  return picks
}
