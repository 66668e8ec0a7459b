import { describe, expect, it } from 'vitest'
import type { MemoryItem } from '../../lib/state/model.ts'
import {
  arriving,
  asDraft,
  asStored,
  itemOf,
  itemsOf,
  patchOf,
  settingOf,
  stateOf,
  writeOf,
} from '../../lib/provenance/provenance.ts'
import { state as validState } from '../../lib/validate/state.ts'
import type { OpContext } from '../../lib/commands/kit.ts'

/** A clock at 5000 and ids m1, m2, … */
function context(): OpContext {
  let n = 0
  return { now: 5000, newId: (prefix) => `${prefix}${++n}` }
}

const refusal = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    const { code, field } = e as { code: string; field?: string }
    return { code, field }
  }
  return undefined
}

const stored: MemoryItem = {
  id: 'old',
  text: '用户养了一只猫',
  source: 'tool',
  at: 100,
  sessionId: 'chat-1',
  archived: true,
  keys: '猫 cat',
}
const suggestion: MemoryItem = {
  id: 'sug',
  text: '用户住在上海',
  source: 'auto',
  at: 200,
  pending: true,
  replaces: 'old',
}
const approved: MemoryItem = { id: 'ok', text: '用户喜欢乌龙茶', source: 'auto', at: 300, approved: true }
const existing = new Map([stored, suggestion, approved].map((it) => [it.id, it]))

describe('a new item', () => {
  it("gets the caller's source, time, conversation and a fresh id", () => {
    const p = arriving('tool', context(), { sessionId: 'chat-9' })
    expect(itemsOf([{ text: 'a' }, { text: 'b' }], 'items', p)).toEqual([
      { id: 'm1', text: 'a', source: 'tool', at: 5000, sessionId: 'chat-9' },
      { id: 'm2', text: 'b', source: 'tool', at: 5000, sessionId: 'chat-9' },
    ])
  })

  it('keeps the provenance it was given, and `sessionId: null` says it is from no conversation', () => {
    const p = arriving('user', context(), { sessionId: 'chat-9' })
    expect(itemOf({ id: 'x1', text: 'a', source: 'import', at: 7, sessionId: 'chat-2' }, p)).toEqual({
      id: 'x1',
      text: 'a',
      source: 'import',
      at: 7,
      sessionId: 'chat-2',
    })
    expect(itemOf({ text: 'a', sessionId: null }, p)).toEqual({ id: 'm1', text: 'a', source: 'user', at: 5000 })
  })

  it('keeps a suggestion, what it replaces and an approval as a load or an import gives them', () => {
    const p = asStored(1)
    expect(itemOf({ ...suggestion }, p)).toEqual(suggestion)
    expect(itemOf({ ...approved }, p)).toEqual(approved)
    // What it replaces belongs to a suggestion only; an approved or archived suggestion is still only a suggestion.
    expect(itemOf({ id: 'a', text: 'a', replaces: 'old' }, p)).toEqual({ id: 'a', text: 'a', source: 'user', at: 1 })
    expect(itemOf({ ...suggestion, approved: true, archived: true }, p)).toEqual(suggestion)
  })

  it("of an unsaved draft is the user's, now, with an id of its own", () => {
    expect(itemsOf([{ text: 'a' }, { text: 'b' }], 'memories', asDraft(8))).toEqual([
      { id: 'draft-0', text: 'a', source: 'user', at: 8 },
      { id: 'draft-1', text: 'b', source: 'user', at: 8 },
    ])
  })

  it('drops blank search keys', () => {
    expect(itemOf({ id: 'a', text: 'a', keys: '  ' }, asStored(1))).not.toHaveProperty('keys')
  })
})

describe('an editor sending items back', () => {
  const editor = () => arriving('user', context(), { existing, sessionId: 'chat-9' })

  it('keeps the stored provenance, archive and search keys of an item it sends without them', () => {
    expect(itemOf({ id: 'old', text: '用户养了两只猫' }, editor())).toEqual({ ...stored, text: '用户养了两只猫' })
  })

  it('may change what is its own to say: provenance it sends, the archive, the pin', () => {
    expect(itemOf({ id: 'old', text: 't', source: 'user', at: 9, archived: false, pinned: true }, editor())).toEqual({
      id: 'old',
      text: 't',
      source: 'user',
      at: 9,
      sessionId: 'chat-1',
      keys: '猫 cat',
      pinned: true,
    })
  })

  it('unpins an item it sends without its pin', () => {
    const pinned = new Map([['p', { id: 'p', text: 'p', source: 'user', at: 1, pinned: true } as MemoryItem]])
    expect(itemOf({ id: 'p', text: 'p' }, arriving('user', context(), { existing: pinned }))).not.toHaveProperty(
      'pinned',
    )
  })

  it('can neither set nor clear a suggestion, what it replaces, or an approval', () => {
    const p = editor()
    expect(itemOf({ id: 'sug', text: '用户住在上海', pending: false, approved: true }, p)).toEqual(suggestion)
    expect(itemOf({ id: 'sug', text: '用户住在上海', replaces: 'ok' }, p)).toEqual(suggestion)
    expect(itemOf({ id: 'ok', text: '用户喜欢乌龙茶', approved: false, pending: true }, p)).toEqual(approved)
    expect(itemOf({ id: 'old', text: 't', pending: true, replaces: 'ok', approved: true }, p)).toEqual({
      ...stored,
      text: 't',
    })
    // An item new to the list is the editor's own: not a suggestion, whatever it says.
    expect(itemOf({ text: 'new', pending: true, approved: true }, p)).toEqual({
      id: 'm1',
      text: 'new',
      source: 'user',
      at: 5000,
      sessionId: 'chat-9',
    })
  })
})

describe('a repeated id', () => {
  it('is refused at <field>[i].id, whether given twice or given and made', () => {
    const twice = [{ id: 'a', text: '1' }, { text: '2' }, { id: 'a', text: '3' }]
    expect(refusal(() => itemsOf(twice, 'patch.memories', arriving('user', context())))).toEqual({
      code: 'invalid',
      field: 'patch.memories[2].id',
    })
    const made = [{ id: 'm1', text: '1' }, { text: '2' }]
    expect(refusal(() => itemsOf(made, 'items', arriving('user', context())))).toEqual({
      code: 'invalid',
      field: 'items[1].id',
    })
  })

  it('is refused at its path in a profile patch, a conversation, a history entry and a whole state', () => {
    const two = [
      { id: 'a', text: '1' },
      { id: 'a', text: '2' },
    ]
    const p = asStored(1)
    expect(refusal(() => patchOf({ memory: { summary: '', items: two } }, 'patch', p))?.field).toBe(
      'patch.memory.items[1].id',
    )
    expect(refusal(() => settingOf({ profileId: null, note: '', memories: two }, 'sessions.s1', p))?.field).toBe(
      'sessions.s1.memories[1].id',
    )
    const write = { id: 'w', at: 1, who: 'user' as const, added: [], removed: two, edited: [] }
    expect(refusal(() => writeOf(write, 'h[0]', p))?.field).toBe('h[0].removed[1].id')
    const profile = { id: 'p1', name: 'P', emoji: '🙂', avatar: '', role: '', personality: '', speakingStyle: '' }
    const whole = {
      version: 1,
      activeId: 'p1',
      profiles: [{ ...profile, rules: '', memoryEnabled: true, memory: { summary: '' }, createdAt: 1, updatedAt: 1 }],
      sessions: { s1: { profileId: 'p1', note: '', memories: two } },
    }
    expect(refusal(() => stateOf(validState(whole, 'data'), 'data', p))?.field).toBe('data.sessions.s1.memories[1].id')
  })
})

describe('a stored state', () => {
  it('comes back as it was stored: nothing is filled in and no id is made', () => {
    const item = (id: string): MemoryItem => ({ id, text: id, source: 'tool', at: 3, sessionId: 'chat-1' })
    const profile = {
      id: 'p1',
      name: 'P',
      emoji: '🙂',
      avatar: '',
      role: '',
      personality: '',
      speakingStyle: '',
      rules: '',
      memoryEnabled: true,
      memory: { summary: 's', items: [item('a'), { ...suggestion, replaces: 'a' }] },
      createdAt: 1,
      updatedAt: 2,
    }
    const whole = {
      version: 1,
      activeId: 'p1',
      profiles: [profile],
      sessions: { s1: { profileId: 'p1', note: 'n', memories: [item('b')] }, s2: { profileId: null, note: 'm' } },
      memoryUndo: { p1: { memory: { summary: '', items: [item('c')] }, at: 4 } },
      history: {
        p1: [{ id: 'w', at: 5, who: 'tool', added: [item('d')], edited: [{ before: item('e'), after: item('e') }] }],
      },
      user: { items: [approved] },
    }
    const out = stateOf(validState(whole, 'data'), 'data', {
      ...asStored(9),
      newId: () => {
        throw new Error('no id is made for a stored item')
      },
    })
    expect(JSON.parse(JSON.stringify(out))).toEqual({
      ...whole,
      sessions: { s1: { ...whole.sessions.s1 }, s2: { ...whole.sessions.s2, memories: [] } },
      history: { p1: [{ ...whole.history.p1[0], removed: [] }] },
    })
  })
})
