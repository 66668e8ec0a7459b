/**
 * A learning run's plan, before it costs anything: each picked conversation cut into the material of model calls, each
 * within the extraction's bound of characters (the same `excerptChars`, 6,000 by default, one call of the background
 * job reads), and what the calls will cost: their number and the tokens they send (the extraction's system prompt
 * and request, built exactly as the run will build them, counted by the same estimate the plugin uses everywhere),
 * with the most they may answer. The material is the user's words with the assistant's beside them for context
 * (what was asked, what the user answered to), the assistant's cut short: the protocol keeps only facts about the
 * user, one a line, and nothing said in the assistant's own words. Pure, and done a slice at a time (the loop turns
 * between two: a plan of a whole export is seconds of work).
 */
import { EXTRACTION_SYSTEM, extractionRequest, type KnownFact } from '../../memory/job.ts'
import { approxTokens } from '../../prompt/tokens.ts'
import type { LearnConversation } from '../conversation.ts'
import type { ConversationSlices } from '../export-parts.ts'
import { Slices } from '../slices.ts'

/** Characters of one assistant message kept as context: enough for the question the user answered. */
export const ASSISTANT_CONTEXT_CHARS = 300

/** Characters of room worth filling with the start of a line that does not fit whole. */
const MIN_PIECE = 500

/** Output tokens one extraction may answer (the background job's cap). */
export const ANSWER_TOKENS = 800

/** One model call of a plan: the conversation it reads (its index among those picked) and its material. */
interface PlannedCall {
  conversation: number
  /** Its part of that conversation, from 0. */
  part: number
  material: string
}

/** A plan: its calls, and their cost. */
export interface LearnPlan {
  calls: PlannedCall[]
  /** Tokens the requests send, system prompt included. */
  inputTokens: number
  /** The most the answers may take. */
  outputTokens: number
}

/** A message as a material line: `用户：…`, or `助手：…` cut to its context. */
function lineOf(m: LearnConversation['messages'][number]): string {
  const text = m.text.replace(/\s*\n\s*/g, ' ')
  if (m.role === 'user') return `用户：${text}`
  return `助手：${text.length > ASSISTANT_CONTEXT_CHARS ? `${text.slice(0, ASSISTANT_CONTEXT_CHARS - 1)}…` : text}`
}

/**
 * A conversation's material cut into parts of at most `limit` characters, lines whole where they fit; a line longer
 * than a part is cut into parts of its own. Parts with no word of the user are not sent: there is nothing to learn.
 */
export function materialParts(c: LearnConversation, limit: number): string[] {
  const parts: string[] = []
  let lines: string[] = []
  let used = 0
  let user = false
  const flush = () => {
    if (lines.length > 0 && user) parts.push(lines.join('\n'))
    lines = []
    used = 0
    user = false
  }
  for (const m of c.messages) {
    let line = lineOf(m)
    while (line.length > 0) {
      const room = limit - used - (lines.length > 0 ? 1 : 0)
      if (line.length <= room) {
        lines.push(line)
        used += line.length + (lines.length > 1 ? 1 : 0)
        if (m.role === 'user') user = true
        break
      }
      // A line that does not fit fills the part when the room left is worth it (so the context before it goes with
      // its start), else starts the next part; a line longer than a part takes as many parts as it needs.
      if (lines.length === 0 || room >= MIN_PIECE) {
        lines.push(line.slice(0, room))
        used += room + (lines.length > 1 ? 1 : 0)
        if (m.role === 'user') user = true
        line = line.slice(room)
      }
      flush()
    }
  }
  flush()
  return parts
}

/**
 * The plan of learning from `conversations` (walked once: a list in one piece, or a walk a slice at a time) with
 * calls of at most `limit` characters, `known` shown to each; the requests built are counted in `slices` (those the
 * walk parses in, when it is the same: a slice then ends early when its requests are long).
 */
export async function planLearning(
  conversations: Iterable<LearnConversation> | ConversationSlices,
  limit: number,
  known: readonly KnownFact[] = [],
  slices = new Slices(),
): Promise<LearnPlan> {
  const calls: PlannedCall[] = []
  let inputTokens = 0
  const system = approxTokens(EXTRACTION_SYSTEM)
  let conversation = 0
  const walk = Symbol.asyncIterator in conversations ? conversations : [conversations]
  for await (const slice of walk)
    for (const c of slice) {
      for (const [part, material] of materialParts(c, limit).entries()) {
        const prompt = extractionRequest(material, known).prompt
        calls.push({ conversation, part, material })
        inputTokens += system + approxTokens(prompt)
        slices.spend(prompt.length)
      }
      conversation++
    }
  return { calls, inputTokens, outputTokens: calls.length * ANSWER_TOKENS }
}
