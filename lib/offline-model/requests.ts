/**
 * What the offline model receives and answers, in OpenAI chat-completions terms: one request as recorded (system
 * text, messages, tools, the person's last message) and the replies a script or the demo can give. Shared by the
 * server, the demo answers and the tests that script the server.
 */

/** One message of a chat-completions request. */
export interface ChatMessage {
  role: string
  content?: string | Array<{ type: string; text?: string }> | null
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

/** One request as the model received it. */
export interface RecordedRequest {
  /** System prompt text (all `system` messages joined). */
  system: string
  /** The non-system messages, as sent. */
  messages: ChatMessage[]
  /** Tool schemas offered to the model (`function.name` etc.). */
  tools: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>
  /** The model the request named (`model` of the body; '' when it named none): the server answers under any name. */
  model: string
  /** The whole JSON body. */
  body: Record<string, unknown>
  /** The text of the last user message, for matching. */
  lastUser: string
  /** Index in `messages` of that message (-1 when there is none): what follows it is this turn's tool work. */
  lastUserAt: number
}

/** What the model answers. */
export type Reply =
  | { text: string; delayMs?: number; chunkDelayMs?: number }
  | { toolCalls: Array<{ name: string; arguments: unknown }>; text?: string; delayMs?: number }
  /** An HTTP failure (e.g. 500, 429). */
  | { status: number; message?: string }
  /** Sends headers and one chunk, then never finishes (until the client gives up or the server closes). */
  | { stall: true }
  /** A stream whose data lines are not JSON. */
  | { malformed: true }

/** Decides a reply for one request; `undefined` falls through to the queue and then the default. */
export type Responder = (request: RecordedRequest) => Reply | undefined

/** The text of one message as the model received it: its string content, or its text parts joined. */
export function textOf(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content
  if (Array.isArray(m.content)) return m.content.map((p) => p.text ?? '').join('')
  return ''
}

/**
 * True for the host's auxiliary session-title request, which is not a conversation turn: no tools, and a system
 * prompt in English that asks for a title (the plugin's own background prompts are Chinese).
 */
export function isTitleRequest(r: RecordedRequest): boolean {
  return r.tools.length === 0 && /\btitle\b/i.test(r.system)
}

// The host appends its runtime-context snapshot and reminders (e.g. the skill catalog) as user messages after the
// person's own, and this plugin its line back to the conversation's own profile after another one answered
// (lib/prompt/speakers.ts); the person's message is the last user message that is none of them.
const HOST_ADDED = /^(Current runtime context\.|<system-reminder>|（上一条回复出自用户点名的)/

/** Whether a user message's text is one the host or this plugin added after the person's own (see above). */
export function isAddedText(text: string): boolean {
  return HOST_ADDED.test(text.trimStart())
}

/** A chat-completions body as the model sees it. */
export function recordRequest(body: Record<string, unknown>): RecordedRequest {
  const all = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : []
  const system = all
    .filter((m) => m.role === 'system')
    .map(textOf)
    .join('\n\n')
  const messages = all.filter((m) => m.role !== 'system')
  let lastUserAt = -1
  for (let i = messages.length - 1; i >= 0 && lastUserAt < 0; i--) {
    const m = messages[i]!
    if (m.role === 'user' && !isAddedText(textOf(m))) lastUserAt = i
  }
  return {
    system,
    messages,
    tools: Array.isArray(body.tools) ? (body.tools as RecordedRequest['tools']) : [],
    model: typeof body.model === 'string' ? body.model : '',
    body,
    lastUser: lastUserAt >= 0 ? textOf(messages[lastUserAt]!) : '',
    lastUserAt,
  }
}
