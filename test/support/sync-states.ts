/**
 * Random states of what travels through a sync repository (profiles with every field, their memory with every item
 * field, history entries, the user layer), for the sync room's property specs. Texts mix Markdown syntax, line ends
 * and astral characters, the cases a line or Markdown writer gets wrong.
 */
import fc from 'fast-check'
import type { MemoryItem, MemoryWrite, Profile, State } from '../../lib/state/model.ts'
import { sessionsOf } from '../../lib/state/sessions.ts'
import { pngAvatar } from './store-fixtures.ts'

const PIECES = ['- ', '## ', '# x', '```', '\\', '"', '中文', '🦊', 'é', '\u2028', '  ', 'word', '{"write":1}', '\t']

/** A text of pieces and line ends (LF or CRLF, one style per text). */
const syncText = (maxPieces = 6): fc.Arbitrary<string> =>
  fc
    .tuple(fc.boolean(), fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.constant('\n')), { maxLength: maxPieces }))
    .map(([crlf, parts]) => parts.join('').replace(/\n/g, crlf ? '\r\n' : '\n'))

/** A visible one-line name as the store keeps names. */
const name = fc.constantFrom('编程搭档', 'Writer', 'a b', '🦊 fox', 'Z')

const idChars = 'abcXYZ019_-'
/** An id of the store's alphabet, capital letters included. */
const syncId = (prefix: string): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...idChars), { minLength: 1, maxLength: 8 }).map((cs) => `${prefix}${cs.join('')}`)

/** A memory item with any combination of its optional fields. */
const syncItem: fc.Arbitrary<MemoryItem> = fc
  .record({
    id: syncId('m'),
    text: syncText().map((t) => (t.trim() === '' ? `fact${t}` : t)),
    source: fc.constantFrom('user', 'tool', 'auto', 'compress', 'import' as const),
    at: fc.integer({ min: 0, max: 2e12 }),
    sessionId: fc.option(fc.constant('session-1'), { nil: undefined }),
    pinned: fc.option(fc.constant(true as const), { nil: undefined }),
    state: fc.constantFrom('plain', 'pending', 'approved', 'archived'),
    keys: fc.option(fc.constant('name 名字'), { nil: undefined }),
  })
  .map(({ state, sessionId, pinned, keys, ...it }): MemoryItem => {
    const out: MemoryItem = { ...it }
    if (sessionId !== undefined) out.sessionId = sessionId
    if (pinned !== undefined) out.pinned = pinned
    if (state === 'pending') out.pending = true
    if (state === 'approved') out.approved = true
    if (state === 'archived') out.archived = true
    if (keys !== undefined) out.keys = keys
    return out
  })

/** Items with distinct ids. */
const syncItems = (max: number): fc.Arbitrary<MemoryItem[]> =>
  fc.uniqueArray(syncItem, { maxLength: max, selector: (it) => it.id })

/** A history entry. */
const syncWrite: fc.Arbitrary<MemoryWrite> = fc
  .record({
    id: syncId('h'),
    at: fc.integer({ min: 0, max: 2e12 }),
    who: fc.constantFrom('user', 'tool', 'undo' as const),
    added: syncItems(2),
    removed: syncItems(1),
    edited: fc.array(fc.record({ before: syncItem, after: syncItem }), { maxLength: 1 }),
    summary: fc.option(fc.record({ before: syncText(3), after: syncText(3) }), { nil: undefined }),
  })
  .map(({ summary, ...w }) => (summary === undefined ? w : { ...w, summary }))

/** A profile with every optional field sometimes present. */
const syncProfile: fc.Arbitrary<Profile> = fc
  .record({
    id: syncId('p'),
    name,
    emoji: fc.constantFrom('🙂', '', '🦊'),
    avatar: fc.constantFrom('', pngAvatar(40)),
    role: syncText(),
    personality: syncText(),
    speakingStyle: syncText(),
    rules: syncText(),
    memoryEnabled: fc.boolean(),
    summary: syncText(),
    items: syncItems(5),
    createdAt: fc.integer({ min: 0, max: 2e12 }),
    updatedAt: fc.integer({ min: 0, max: 2e12 }),
    tools: fc.option(
      fc.record({
        profile: fc.constantFrom('read-only', 'custom' as const),
        add: fc.constant(['read_file']).map((a) => [...a]),
        remove: fc.constant<string[]>([]).map((a) => [...a]),
      }),
      { nil: undefined },
    ),
    memoryMode: fc.option(fc.constantFrom('ask', 'auto' as const), { nil: undefined }),
    model: fc.option(
      fc.record({
        provider: fc.constant('deepseek'),
        model: fc.constant('deepseek-chat'),
        temperature: fc.constant(0.5),
      }),
      { nil: undefined },
    ),
  })
  .map(({ summary, items, tools, memoryMode, model, ...p }): Profile => {
    const out: Profile = { ...p, memory: { summary, items } }
    if (tools !== undefined) out.tools = tools
    if (memoryMode !== undefined) out.memoryMode = memoryMode
    if (model !== undefined) out.model = model
    return out
  })

/** A state of 1–4 profiles with distinct ids, some with history, and a user layer. */
export const syncState: fc.Arbitrary<State> = fc
  .record({
    profiles: fc.uniqueArray(syncProfile, {
      minLength: 1,
      maxLength: 4,
      selector: (p) => p.id.toLowerCase(),
    }),
    histories: fc.array(fc.array(syncWrite, { maxLength: 3 }), { maxLength: 4 }),
    user: syncItems(3),
    userHistory: fc.array(syncWrite, { maxLength: 2 }),
  })
  .map(({ profiles, histories, user, userHistory }): State => {
    const history: Record<string, MemoryWrite[]> = {}
    profiles.forEach((p, i) => {
      const h = histories[i]
      if (h !== undefined && h.length > 0) history[p.id] = h
    })
    if (userHistory.length > 0) history['u:'] = userHistory
    const state: State = { version: 1, activeId: profiles[0]!.id, profiles, sessions: sessionsOf(), history }
    if (user.length > 0) state.user = { items: user }
    return state
  })
