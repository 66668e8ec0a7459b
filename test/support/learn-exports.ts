/**
 * Data exports of ChatGPT and Claude in their real formats, made here from a seed, each with the messages a reader
 * must find in it: ChatGPT's trees with edited questions and regenerated answers on branches beside the one the user
 * last saw (which is not always the last child), system and hidden messages, pictures inside multimodal messages,
 * code the assistant ran, tool output and browsing; Claude's linear conversations with tool blocks, thinking,
 * attachments whose extracted text must not be read, and messages whose text is only in the `text` field. Shared by
 * the parser specs, the worker specs and the benchmark; it asserts nothing.
 */
import { createDeflateRaw, crc32 } from 'node:zlib'
import { seededRng, type Rng } from './fuzz.ts'
import { zip } from './card-fixtures.ts'

/** A message a reader must find: who said it and what. */
interface Expected {
  role: 'user' | 'assistant'
  text: string
}

/** An export made here: its conversations.json value and, per conversation, the messages a reader must find. */
export interface MadeExport {
  conversations: unknown[]
  expected: { title: string; messages: Expected[] }[]
}

const PLACES = ['Qingdao', 'Chengdu', 'Lisbon', 'Hangzhou', '大理', 'Oslo']
const TOPICS = ['Trip to', 'Moving to', 'Food in', 'Weekend in', '关于']

/** A user's line that carries a fact, distinct per conversation and turn. */
const userLine = (c: number, t: number, rng: Rng) =>
  `${rng.pick(['I live in', 'My sister studies in', '我下个月去', 'We plan a week in'])} ${rng.pick(PLACES)} (#${c}.${t})`
const assistantLine = (c: number, t: number) => `Here are some ideas for that (#${c}.${t}).`

/** One ChatGPT conversation's tree of nodes, built in the order its messages were made. */
class ChatGptTree {
  readonly mapping: Record<string, Record<string, unknown>> = {}
  #n = 0
  readonly #c: number
  readonly #base: number

  constructor(c: number, base: number) {
    this.#c = c
    this.#base = base
  }

  /** A node under `parent` (the root when null) holding `message`; its id. */
  readonly node = (parent: string | null, message: Record<string, unknown> | null): string => {
    const id = `n${this.#c}-${this.#n++}`
    this.mapping[id] = { id, message, parent, children: [] }
    if (parent !== null) (this.mapping[parent]!.children as string[]).push(id)
    return id
  }

  /** A message from `role`, stamped with the next node's number. */
  readonly msg = (
    role: string,
    content: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    id: `m${this.#c}-${this.#n}`,
    author: { role, name: null, metadata: {} },
    create_time: this.#base + this.#n * 60 + 0.25,
    update_time: null,
    content,
    status: 'finished_successfully',
    end_turn: true,
    weight: 1,
    metadata: {},
    recipient: 'all',
    ...extra,
  })
}

const chatText = (s: string) => ({ content_type: 'text', parts: [s] })

/** The user's question of turn `t` under `at`, maybe with an edited-away version beside it; its node and line. */
function chatGptQuestion(tree: ChatGptTree, at: string, c: number, t: number, rng: Rng): { q: string; line: string } {
  const { node, msg } = tree
  // An edited question: the first version and its answer stay on a branch beside the one read.
  const edited = rng.chance(0.2)
  if (edited) {
    const old = node(at, msg('user', chatText(`an earlier wording that was edited away (#${c}.${t})`)))
    node(old, msg('assistant', chatText(`an answer to the wording edited away (#${c}.${t})`)))
  }
  const line = userLine(c, t, rng)
  const kind = rng.int(4)
  let q: string
  if (kind === 0) {
    // A picture beside the words: only the words are read.
    q = node(
      at,
      msg('user', {
        content_type: 'multimodal_text',
        parts: [{ content_type: 'image_asset_pointer', asset_pointer: 'file-service://file-abc', size_bytes: 9 }, line],
      }),
    )
  } else q = node(at, msg('user', chatText(line)))
  // The branch read is not always the last child: ChatGPT lists versions in the order they were made.
  if (edited && rng.chance(0.5)) (tree.mapping[at]!.children as string[]).reverse()
  return { q, line }
}

/** One turn under `at`: the question, the steps the reader skips, the answer; the node the turn ends at. */
function chatGptTurn(tree: ChatGptTree, at: string, c: number, t: number, rng: Rng, messages: Expected[]): string {
  const { node, msg } = tree
  const { q, line } = chatGptQuestion(tree, at, c, t, rng)
  messages.push({ role: 'user', text: line })
  at = q
  if (rng.chance(0.3)) {
    // The assistant runs code and reads its output before it answers: neither is read.
    at = node(
      at,
      msg('assistant', { content_type: 'code', language: 'python', text: 'print(1)' }, { recipient: 'python' }),
    )
    at = node(at, msg('tool', { content_type: 'execution_output', text: '1' }))
  }
  if (rng.chance(0.2)) {
    at = node(at, msg('assistant', chatText('search("weather")'), { recipient: 'browser' }))
    at = node(at, msg('tool', { content_type: 'tether_browsing_display', result: 'weather', summary: null }))
    at = node(at, msg('tool', { content_type: 'tether_quote', url: 'https://x', title: 'x', text: 'quoted' }))
  }
  // A regenerated answer: the discarded one is a sibling of the one read.
  if (rng.chance(0.2)) node(at, msg('assistant', chatText(`a regenerated-away answer (#${c}.${t})`)))
  const answer = assistantLine(c, t)
  at = node(at, msg('assistant', chatText(answer)))
  messages.push({ role: 'assistant', text: answer })
  return at
}

/** Conversation `c` of a ChatGPT export and the messages a reader must find in it. */
function chatGptConversation(c: number, rng: Rng): { conversation: unknown; expected: MadeExport['expected'][number] } {
  const base = 1_700_000_000 + c * 86_400
  const tree = new ChatGptTree(c, base)
  const messages: Expected[] = []
  let at = tree.node(null, null)
  at = tree.node(at, tree.msg('system', chatText(''), { metadata: { is_visually_hidden_from_conversation: true } }))
  const turns = 1 + rng.int(5)
  for (let t = 0; t < turns; t++) at = chatGptTurn(tree, at, c, t, rng, messages)
  // The tree listed in no particular order, as a JSON object of nodes is.
  const keys = Object.keys(tree.mapping)
  for (let i = keys.length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[keys[i], keys[j]] = [keys[j]!, keys[i]!]
  }
  const title = `${rng.pick(TOPICS)} ${rng.pick(PLACES)} ${c}`
  const conversation = {
    title,
    create_time: base,
    update_time: base + 3600,
    mapping: Object.fromEntries(keys.map((k) => [k, tree.mapping[k]])),
    moderation_results: [],
    current_node: at,
    plugin_ids: null,
    conversation_id: `conv-${c}`,
    conversation_template_id: null,
    gizmo_id: null,
    is_archived: false,
    safe_urls: [],
    id: `conv-${c}`,
  }
  return { conversation, expected: { title, messages } }
}

/** A ChatGPT export of `count` conversations from `seed`. */
export function chatGptExport(count: number, seed = 1): MadeExport {
  const rng = seededRng(seed)
  const conversations: unknown[] = []
  const expected: MadeExport['expected'] = []
  for (let c = 0; c < count; c++) {
    const made = chatGptConversation(c, rng)
    conversations.push(made.conversation)
    expected.push(made.expected)
  }
  return { conversations, expected }
}

/** A Claude export of `count` conversations from `seed`. */
export function claudeExport(count: number, seed = 1): MadeExport {
  const rng = seededRng(seed)
  const conversations: unknown[] = []
  const expected: MadeExport['expected'] = []
  for (let c = 0; c < count; c++) {
    const base = Date.UTC(2025, 0, 1) + c * 86_400_000
    const iso = (k: number) => new Date(base + k * 60_000).toISOString()
    const chat: unknown[] = []
    const messages: Expected[] = []
    const turns = 1 + rng.int(5)
    for (let t = 0; t < turns; t++) {
      const line = userLine(c, t, rng)
      const attach = rng.chance(0.3)
      chat.push({
        uuid: `u${c}-${t}`,
        text: line,
        // Some messages carry their text only in `text`.
        content: rng.chance(0.3) ? [] : [{ type: 'text', text: line, start_timestamp: iso(t), citations: [] }],
        sender: 'human',
        created_at: iso(2 * t),
        updated_at: iso(2 * t),
        attachments: attach
          ? [{ file_name: 'notes.txt', file_size: 20, file_type: 'txt', extracted_content: 'secret attachment text' }]
          : [],
        files: attach ? [{ file_name: 'photo.png' }] : [],
      })
      messages.push({ role: 'user', text: line })
      const answer = assistantLine(c, t)
      const content: unknown[] = []
      if (rng.chance(0.3)) content.push({ type: 'thinking', thinking: 'pondering' })
      if (rng.chance(0.3)) {
        content.push({ type: 'tool_use', name: 'web_search', input: { query: 'x' } })
        content.push({ type: 'tool_result', name: 'web_search', content: [{ type: 'text', text: 'tool output' }] })
      }
      content.push({ type: 'text', text: answer, citations: [] })
      chat.push({
        uuid: `a${c}-${t}`,
        text: answer,
        content,
        sender: 'assistant',
        created_at: iso(2 * t + 1),
        updated_at: iso(2 * t + 1),
        attachments: [],
        files: [],
      })
      messages.push({ role: 'assistant', text: answer })
    }
    const title = `${rng.pick(TOPICS)} ${rng.pick(PLACES)} ${c}`
    conversations.push({
      uuid: `claude-${c}`,
      name: title,
      created_at: iso(0),
      updated_at: iso(2 * turns),
      account: { uuid: 'acct' },
      chat_messages: chat,
    })
    expected.push({ title, messages })
  }
  return { conversations, expected }
}

/** An export as the service mails it: a zip of conversations.json beside the other files it holds. */
export function exportZip(conversations: unknown[], folder = ''): Buffer {
  return zip({
    [`${folder}conversations.json`]: JSON.stringify(conversations),
    [`${folder}user.json`]: JSON.stringify({ id: 'user-1', email: 'a@example.com' }),
    [`${folder}chat.html`]: '<html><body>chats</body></html>',
    [`${folder}file-abc.png`]: new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
  })
}

/**
 * A zip of one entry, `name`, whose content is `chunks` deflated as they come (by zlib, so a few hundred MB take a
 * fraction of a second and never sit in memory whole); `declared` overrides the size its headers claim.
 */
export async function streamedZip(
  name: string,
  chunks: Iterable<Uint8Array | string>,
  declared?: number,
): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 1 })
  const out: Buffer[] = []
  deflate.on('data', (c: Buffer) => out.push(c))
  const ended = new Promise((resolve) => deflate.on('end', resolve))
  let size = 0
  let crc = 0
  for (const chunk of chunks) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    size += b.length
    crc = crc32(b, crc)
    if (!deflate.write(b)) await new Promise((resolve) => deflate.once('drain', resolve))
  }
  deflate.end()
  await ended
  const data = Buffer.concat(out)
  const claimed = declared ?? size
  const fileName = Buffer.from(name)
  const local = Buffer.alloc(30)
  local.writeUInt32LE(0x04034b50, 0)
  local.writeUInt16LE(20, 4)
  local.writeUInt16LE(8, 8)
  local.writeUInt32LE(crc >>> 0, 14)
  local.writeUInt32LE(data.length, 18)
  local.writeUInt32LE(Math.min(claimed, 0xffffffff), 22)
  local.writeUInt16LE(fileName.length, 26)
  const central = Buffer.alloc(46)
  central.writeUInt32LE(0x02014b50, 0)
  central.writeUInt16LE(20, 4)
  central.writeUInt16LE(20, 6)
  central.writeUInt16LE(8, 10)
  central.writeUInt32LE(crc >>> 0, 16)
  central.writeUInt32LE(data.length, 20)
  central.writeUInt32LE(Math.min(claimed, 0xffffffff), 24)
  central.writeUInt16LE(fileName.length, 28)
  central.writeUInt32LE(0, 42)
  const dirAt = local.length + fileName.length + data.length
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(1, 8)
  end.writeUInt16LE(1, 10)
  end.writeUInt32LE(central.length + fileName.length, 12)
  end.writeUInt32LE(dirAt, 16)
  return Buffer.concat([local, fileName, data, central, fileName, end])
}

/** `count` repeats of `text`, in chunks of about a megabyte. */
export function* repeated(text: string, count: number): Generator<string> {
  const per = Math.max(1, Math.floor(1_000_000 / text.length))
  const block = text.repeat(per)
  let left = count
  for (; left >= per; left -= per) yield block
  if (left > 0) yield text.repeat(left)
}
