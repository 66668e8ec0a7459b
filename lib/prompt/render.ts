/**
 * Profile + conversation settings → the Chinese text the model sees. Owns the wording, the fixed field order, the
 * memory budget and the brace neutralisation. Pure: it never reads the store, registers anything or keeps state.
 */
import {
  hasContent,
  userShare,
  type MemoryItem,
  type MemoryLayer,
  type Profile,
  type SessionSetting,
  type UsedMemory,
} from '../state/model.ts'
import { DEFAULT_CONFIG } from '../config/config.ts'
import { memoryCore } from '../state/lazy-list.ts'
import { approxTokens } from './tokens.ts'

/** The profile fields the renderer reads; anything missing counts as empty (drafts in the preview route). */
export type RenderableProfile = Partial<
  Pick<Profile, 'name' | 'role' | 'personality' | 'speakingStyle' | 'rules' | 'memoryEnabled' | 'memory'>
>

/** The conversation fields the renderer reads. */
export type RenderableSetting = Partial<Pick<SessionSetting, 'note' | 'memories'>>

/** Rendering knobs. */
export interface RenderOptions {
  /** Characters of memory (summary + item lines) at most; older memories beyond it are left out. */
  memoryBudget?: number
  /** The user layer's items, shared by every profile whose memory is on. */
  user?: readonly MemoryItem[]
  /**
   * Recall is on: when the memory is larger than the budget, the memory half keeps only the core (the summary, the
   * user layer's share, pinned items and this conversation's own) and leaves the rest of the profile's items to recall,
   * which spends what the core left of the budget on what each turn is about. Off: the newest items fill the budget.
   */
  recall?: boolean
}

/** The two halves, kept apart so the stable half can sit early in the system prompt and the volatile half late. */
export interface RenderedParts {
  /** Identity, personality, style, rules and the conversation note, or '' when there is nothing to say. */
  persona: string
  /** Memory summary and items, or '' when memory is off or empty. */
  memory: string
  /** True when the budget left older memories out. */
  memoryCut: boolean
  /** The memory items the memory half carries, in the order it lists them (the summary is not an item). */
  used: UsedMemory[]
}

/** One rendering with its size, as the preview route and the diagnostics report it. */
export interface Rendered {
  text: string
  chars: number
  /** Approximate model tokens (see {@link approxTokens}). */
  tokens: number
  memoryCut: boolean
}

// Zero-width joiner: the host's strict `{{…}}` interpolation has no escape, and this keeps the braces readable.
const ZWJ = '\u200D'

/** Put a zero-width joiner inside every `{{` and `}}` so the host's template pass sees no variable reference. */
export function inertBraces(text: string): string {
  if (!text.includes('{{') && !text.includes('}}')) return text
  return text.replace(/\{(?=\{)/g, `{${ZWJ}`).replace(/\}(?=\})/g, `}${ZWJ}`)
}

const PRIORITY =
  '以下设定决定你在本对话中的身份和表达方式。系统的工具规则与安全规则始终优先；用户在本对话中明确提出的要求也优先于这些设定。'
const MEMORY_LEAD = '以下是此前记下的信息，仅供参考；与用户在本对话中的最新说法冲突时，以用户的说法为准。'

// The includes() guards matter: a regex pass over every 1,000-character item costs milliseconds at the limits.
function clean(value: unknown): string {
  if (typeof value !== 'string') return ''
  return (value.includes('\r') ? value.replace(/\r\n?/g, '\n') : value).trim()
}

/** A memory item on one line. */
function oneLine(value: unknown): string {
  const text = clean(value)
  return text.includes('\n')
    ? text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join(' ')
    : text
}

function block(title: string, body: string): string {
  return `## ${title}\n${body}`
}

/** The stable half: who the agent is and how it speaks, then this conversation's note. */
function renderPersona(profile: RenderableProfile, note: string, content: boolean): string {
  const parts: string[] = []
  if (content) {
    const name = clean(profile.name)
    const role = clean(profile.role)
    const identity = [name ? `你是「${name}」。` : '', role].filter(Boolean).join('\n')
    if (identity) parts.push(block('身份', identity))
    const personality = clean(profile.personality)
    if (personality) parts.push(block('性格特点', personality))
    const style = clean(profile.speakingStyle)
    if (style) parts.push(block('说话习惯', style))
    const rules = clean(profile.rules)
    if (rules) parts.push(block('行为准则', rules))
  }
  if (note) parts.push(block('本对话的补充设定', note))
  if (parts.length === 0) return ''
  return ['# 智能体配置', PRIORITY, ...parts].join('\n\n')
}

interface Candidate {
  id: string
  raw: string
  text: string
  at: number
  index: number
  layer: MemoryLayer
  pinned: boolean
}

/** One list's candidates, and how many of its items are memory at all (for the "left out" count). */
interface Candidates {
  list: Candidate[]
  total: number
}

// Only the items that make it into the budget are cleaned (see renderMemory); blank ones never count. A suggestion
// awaiting the user's approval is not memory yet; neither is an archived item: compression condensed it out of the
// core, and recall brings it back when it matters.
const isMemory = (item: MemoryItem | undefined): item is MemoryItem =>
  typeof item?.text === 'string' && item.text.trim() !== '' && item.pending !== true && item.archived !== true

/** What an item takes of the budget as a line of the memory half (see renderMemory's `take`); 0 when it is not memory. */
const lineSize = (item: MemoryItem) => (isMemory(item) ? oneLine(item.text).length + 3 : 0)

/**
 * The candidates of one list: every pinned item, and the unpinned ones — only the newest `keep` of them when the list
 * is in the order it was saved (as lists are, unless an import mixed them), since no budget can take more than that
 * (each line takes at least 4 characters). A list of 10,000 then costs a count, not 10,000 candidates and a sort.
 */
function items(list: readonly MemoryItem[] | undefined, layer: MemoryLayer, budget: number): Candidates {
  if (!Array.isArray(list)) return { list: [], total: 0 }
  const keep = Math.floor(budget / 4) + 1
  // A profile's items still on disk (years of them) answer with their core alone: the newest until the budget is full.
  const core = memoryCore(list, { budget, size: lineSize })
  if (core !== undefined)
    return {
      list: core.items.filter(({ item }) => isMemory(item)).map(({ item, order }) => candidate(item, order, layer)),
      total: core.total,
    }
  let total = 0
  let saved = true
  let last = -Infinity
  for (const item of list) {
    if (!isMemory(item)) continue
    total++
    const at = typeof item.at === 'number' ? item.at : 0
    if (at < last) saved = false
    last = at
  }
  const out: Candidate[] = []
  let unpinned = 0
  for (let index = list.length - 1; index >= 0; index--) {
    const item = list[index]
    if (!isMemory(item)) continue
    const pinned = item.pinned === true
    if (!pinned && saved && unpinned >= keep) continue
    if (!pinned) unpinned++
    out.push(candidate(item, index, layer))
  }
  return { list: out.reverse(), total }
}

/** The candidate of `item`, ordered among its list's by `index`. */
function candidate(item: MemoryItem, index: number, layer: MemoryLayer): Candidate {
  return {
    id: typeof item.id === 'string' ? item.id : '',
    raw: item.text,
    text: '',
    at: typeof item.at === 'number' ? item.at : 0,
    index,
    layer,
    pinned: item.pinned === true,
  }
}

/** The first `n` UTF-16 units, never ending inside a surrogate pair. */
function cutAt(text: string, n: number): string {
  const code = text.charCodeAt(n - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n)
}

const newestFirst = (a: Candidate, b: Candidate) => b.at - a.at || b.index - a.index
const oldestFirst = (a: Candidate, b: Candidate) => a.at - b.at || a.index - b.index

const pinnedFirst = (list: Candidate[]) => [...list.filter((i) => i.pinned), ...list.filter((i) => !i.pinned)]

/**
 * The volatile half. The budget keeps the summary (the compressed past) first; then the user layer, pinned and newest
 * first, within its share ({@link userShare}); then the pinned items (the user said these matter most), then the
 * newest items — this conversation's own before the profile's, since they are the more specific — stopping at the
 * first that does not fit; and, when all of those fit, the rest of the user layer in what is left. What is left out
 * is the oldest unpinned items first. With `recall`, a memory larger than the budget keeps only its core: the
 * profile's unpinned items are left to recall, and the closing line says where they come from.
 */
function renderMemory(
  profileSet: Candidates,
  conversationSet: Candidates,
  userSet: Candidates,
  summaryText: string,
  budget: number,
  recall: boolean,
): { text: string; cut: boolean; used: UsedMemory[] } {
  const [profileItems, conversationItems, userItems] = [profileSet.list, conversationSet.list, userSet.list]
  let left = Math.max(0, budget)
  let summary = summaryText
  let cut = false
  if (summary.length > left) {
    summary = `${cutAt(summary, Math.max(0, left - 1))}…`
    cut = true
  }
  left -= summary.length
  const kept: Candidate[] = []
  const aboutUser: Candidate[] = []
  /** Keeps items of `ranked` while they fit in `room` (and `left`); returns the rest, the first that did not fit first. */
  const take = (ranked: Candidate[], room: number, into: Candidate[]): Candidate[] => {
    for (const [i, item] of ranked.entries()) {
      if (item.text === '') item.text = oneLine(item.raw)
      const size = item.text.length + 3
      if (size > room || size > left) return ranked.slice(i)
      into.push(item)
      room -= size
      left -= size
    }
    return []
  }
  let userRest = cut ? userItems : take(pinnedFirst(userItems.sort(newestFirst)), userShare(budget), aboutUser)
  const all = [...conversationItems.sort(newestFirst), ...profileItems.sort(newestFirst)]
  const start = { left }
  let rest = cut ? all : take(pinnedFirst(all), left, kept)
  let core = false
  if (rest.length > 0 && recall && !cut) {
    // Larger than the budget: the core only, each turn's recall brings the rest that matters.
    core = true
    kept.length = 0
    left = start.left
    rest = take(pinnedFirst(all.filter((i) => i.pinned || i.layer === 'conversation')), left, kept)
  }
  if (rest.length > 0 || core) cut = true
  else if (userRest.length > 0) userRest = take(userRest, left, aboutUser)
  if (userRest.length > 0) cut = true
  // Counted from the lists' totals: their candidates hold only what a budget could take.
  const omitted = profileSet.total + conversationSet.total - kept.length + userSet.total - aboutUser.length
  const used: UsedMemory[] = []
  const lines = (list: Candidate[]) =>
    list
      .sort(oldestFirst)
      .map((i) => {
        used.push({ id: i.id, text: i.text, layer: i.layer })
        return `- ${i.text}`
      })
      .join('\n')
  const parts: string[] = []
  const user = lines(aboutUser)
  if (user) parts.push(block('关于用户', user))
  if (summary) parts.push(block('记忆摘要', summary))
  const own = lines(kept.filter((i) => i.layer === 'profile'))
  if (own) parts.push(block('记忆条目', own))
  const conv = lines(kept.filter((i) => i.layer === 'conversation'))
  if (conv) parts.push(block('本对话的记忆', conv))
  if (core)
    parts.push(`（这里只列出常用的记忆；其余 ${omitted} 条中与当前对话相关的，会在用户消息之后的「相关记忆」里给出。）`)
  else if (cut)
    parts.push(
      omitted > 0
        ? `（篇幅所限，较早的记忆未全部列出：省略了 ${omitted} 条。）`
        : '（篇幅所限，较早的记忆未全部列出。）',
    )
  if (parts.length === 0) return { text: '', cut: false, used: [] }
  return { text: ['# 长期记忆', MEMORY_LEAD, ...parts].join('\n\n'), cut, used }
}

/**
 * Render the two halves. A profile without content says nothing of its own (not even its memory); the conversation's
 * note and memories and the user layer still count, since they are about this conversation and this user. Memory off removes the whole
 * memory half. Braces are neutralised in everything user-written.
 */
export function renderParts(
  profile: RenderableProfile,
  setting?: RenderableSetting,
  options: RenderOptions = {},
): RenderedParts {
  const content = hasContent({
    role: clean(profile.role),
    personality: clean(profile.personality),
    speakingStyle: clean(profile.speakingStyle),
    rules: clean(profile.rules),
  })
  const persona = renderPersona(profile, clean(setting?.note), content)
  let memory: { text: string; cut: boolean; used: UsedMemory[] } = { text: '', cut: false, used: [] }
  if (profile.memoryEnabled !== false) {
    const budget = options.memoryBudget ?? DEFAULT_CONFIG.memoryBudget
    const room = Math.max(0, budget)
    memory = renderMemory(
      content ? items(profile.memory?.items, 'profile', room) : { list: [], total: 0 },
      items(setting?.memories, 'conversation', room),
      items(options.user, 'user', room),
      content ? clean(profile.memory?.summary) : '',
      budget,
      options.recall === true,
    )
  }
  return { persona: inertBraces(persona), memory: inertBraces(memory.text), memoryCut: memory.cut, used: memory.used }
}

/** Join the halves the way the host joins sections, and measure the result. */
export function measure(parts: Pick<RenderedParts, 'persona' | 'memory' | 'memoryCut'>): Rendered {
  const text = [parts.persona, parts.memory].filter(Boolean).join('\n\n')
  return { text, chars: text.length, tokens: approxTokens(text), memoryCut: parts.memoryCut }
}

/** Everything the model sees from one profile in one conversation, with its size. Pure. */
export function renderProfile(
  profile: RenderableProfile,
  setting?: RenderableSetting,
  options?: RenderOptions,
): Rendered {
  return measure(renderParts(profile, setting, options))
}

/**
 * The one-time notice for the first request after a conversation's profile changed: earlier replies in the history
 * were written in the old voice, and without this the model tends to keep it.
 */
export function renderSwitchNotice(fromName: string | undefined, toName: string, injects: boolean): string {
  const from = clean(fromName)
  const to = clean(toName) || '未命名配置'
  const change = from ? `已由「${from}」改为「${to}」` : `已改为「${to}」`
  const follow = injects ? '请按上面的当前设定回答' : '当前配置没有额外设定，请按默认方式回答'
  return inertBraces(
    `# 配置已切换\n本对话使用的智能体配置${change}。此前的回复出自原来的配置；从这一条回复起，${follow}，不要沿用之前的身份、语气和说话习惯。`,
  )
}
