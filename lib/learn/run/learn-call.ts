/**
 * What one model call of a learning run brings (its request is the extraction's, memory/job.ts's `extractionRequest`,
 * over the call's material with the learning memory's facts shown by handle): the facts the extraction's
 * rules keep (one a line, at most FACTS_PER_RUN, none the memory or the answer already said), each with where it came
 * from ("ChatGPT, 2025-03-14, 'Trip to Qingdao'"), the day it was true (the conversation's) and the known fact it
 * supersedes, as the background job names one. Pure: the run makes the call and writes the facts.
 */
import { FACTS_PER_RUN, type ExtractionRequest, type KnownFact } from '../../memory/job.ts'
import { parseFacts } from '../../memory/lines.ts'
import { LIMITS } from '../../state/model.ts'
import type { ExportService, LearnConversation } from '../conversation.ts'

/** How the origin names each service (brand names, the same in every language). */
const SERVICE_NAMES: Record<ExportService, string> = { chatgpt: 'ChatGPT', claude: 'Claude', dsh: 'dsh' }

/** A fact learned from one call, as a suggestion of the memory that learns. */
export interface LearnedFact {
  text: string
  /** Where it came from, at most LIMITS.memoryOrigin characters. */
  origin: string
  /** When it was true: the conversation's time (ms); 0 when the export does not say. */
  at: number
  /** The id of the known fact it supersedes. */
  replaces?: string
  keys?: string
}

/** The day of `at` as YYYY-MM-DD (UTC, as the services stamp their exports). */
function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10)
}

/** When a conversation took place: its own time, else its first dated message's; 0 when nothing is dated. */
export function conversationTime(c: LearnConversation): number {
  return c.at > 0 ? c.at : (c.messages.find((m) => m.at > 0)?.at ?? 0)
}

/** Where a fact learned from `c` came from: the service, the day, the title quoted; cut to the item's limit. */
export function learnedOrigin(service: ExportService, c: LearnConversation): string {
  const at = conversationTime(c)
  const head = [SERVICE_NAMES[service], ...(at > 0 ? [dayOf(at)] : [])].join(', ')
  const title = c.title.replace(/\s+/g, ' ').trim()
  if (title === '') return head
  const room = LIMITS.memoryOrigin - head.length - 4
  const cut = title.length > room ? `${title.slice(0, Math.max(0, room - 1))}…` : title
  return `${head}, '${cut}'`
}

/**
 * The facts an answer brings, by the extraction's rules; undefined when the answer is no answer (it echoes the
 * request, or has neither a fact line nor "无"): the call failed, and nothing of it is written.
 */
export function learnedFacts(
  answer: string,
  request: ExtractionRequest,
  known: readonly KnownFact[],
  source: { service: ExportService; conversation: LearnConversation },
): LearnedFact[] | undefined {
  const parsed = parseFacts(answer, {
    known: known.map((k) => k.text),
    max: FACTS_PER_RUN,
    framing: request.framing,
  })
  if (parsed.echo !== undefined || (parsed.facts.length === 0 && !parsed.inShape)) return undefined
  const origin = learnedOrigin(source.service, source.conversation)
  const at = conversationTime(source.conversation)
  return parsed.facts.map((text, i) => {
    const tag = parsed.tags[i] ?? {}
    const old = tag.replaces === undefined ? undefined : request.handles.get(tag.replaces)
    return {
      text,
      origin,
      at,
      ...(old?.id === undefined ? {} : { replaces: old.id }),
      ...(tag.keys === undefined ? {} : { keys: tag.keys }),
    }
  })
}
