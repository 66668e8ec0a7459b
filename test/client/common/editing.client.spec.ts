import { describe, expect, it } from 'vitest'
import { buildPatch, isDirty, rebaseDraft } from '../../../lib/client/common/editing.ts'
import { addItem, editItem, NO_EDITS, removeItem } from '../../../lib/client/common/memory-draft.ts'
import type { MemoryItem } from '../../../lib/state/model.ts'
import { profile } from '../../support/dom.tsx'

const item = (id: string, text: string, source: MemoryItem['source'] = 'user'): MemoryItem => ({
  id,
  text,
  source,
  at: 1,
})

describe('draft', () => {
  it('is dirty only while it differs from the profile it started from', () => {
    const base = profile()
    expect(isDirty(null)).toBe(false)
    expect(isDirty({ base, value: { ...base } })).toBe(false)
    expect(isDirty({ base, value: { ...base, rules: '新准则' } })).toBe(true)
    expect(isDirty({ base, value: { ...base, memoryEnabled: false } })).toBe(true)
    expect(isDirty({ base, value: { ...base }, items: addItem(NO_EDITS, item('m1', 'x')) })).toBe(true)
    expect(isDirty({ base, value: { ...base }, items: NO_EDITS })).toBe(false)
    expect(isDirty({ base, value: { ...base, memory: { summary: '新摘要', items: [] } } })).toBe(true)
  })

  it('saves only the fields the user changed, so edits made elsewhere meanwhile survive', () => {
    const base = profile({ avatar: '/__ap/avatar/p1?v=1' })
    const patch = buildPatch({ base, value: { ...base, name: '新名字', emoji: '🦉' } })
    expect(patch).toEqual({ name: '新名字', emoji: '🦉' })
  })

  it('sends a new avatar data URL, or "" to remove it, and nothing when the avatar was not touched', () => {
    const base = profile({ avatar: '/__ap/avatar/p1?v=1' })
    expect(buildPatch({ base, value: { ...base, avatar: 'data:image/webp;base64,AAAA' } })).toEqual({
      avatar: 'data:image/webp;base64,AAAA',
    })
    expect(buildPatch({ base, value: { ...base, avatar: '' } })).toEqual({ avatar: '' })
    expect(buildPatch({ base, value: { ...base, name: 'x' } })).not.toHaveProperty('avatar')
  })
})

describe('a memory edit in the patch', () => {
  it('carries only the items the user touched, so the host keeps every other one as saved', () => {
    const base = profile({ memory: { summary: 's', items: [item('a', 'A'), item('b', 'B'), item('c', 'C')] } })
    // Edited a, deleted b, added n; c untouched is neither sent nor named.
    const items = addItem(
      removeItem(editItem(NO_EDITS, item('a', 'A'), { text: 'A 改' }), item('b', 'B')),
      item('n', '新的'),
    )
    expect(buildPatch({ base, value: base, items })).toEqual({
      memory: { items: [{ id: 'a', text: 'A 改' }, { text: '新的' }] },
      basedOn: ['a', 'b'],
    })
  })

  it('a pin alone is a change, and unpinning sends the item without its pin', () => {
    const base = profile({ memory: { summary: '', items: [item('a', 'A'), { ...item('b', 'B'), pinned: true }] } })
    const pinned = editItem(NO_EDITS, item('a', 'A'), { pinned: true })
    expect(buildPatch({ base, value: base, items: pinned })).toEqual({
      memory: { items: [{ id: 'a', text: 'A', pinned: true }] },
      basedOn: ['a'],
    })
    const unpinned = editItem(NO_EDITS, { ...item('b', 'B'), pinned: true }, { pinned: false })
    expect(buildPatch({ base, value: base, items: unpinned })).toEqual({
      memory: { items: [{ id: 'b', text: 'B' }] },
      basedOn: ['b'],
    })
    // Pinned and unpinned again is no change at all.
    expect(isDirty({ base, value: base, items: editItem(pinned, item('a', 'A'), { pinned: false }) })).toBe(false)
  })

  it('sends the summary only when the user changed it (a compression may have written a newer one)', () => {
    const base = profile({ memory: { summary: '旧', items: [] } })
    expect(buildPatch({ base, value: { ...base, memory: { summary: '我的', items: [] } } })).toEqual({
      memory: { summary: '我的', items: [] },
      basedOn: [],
    })
  })

  it('is part of the patch only when the memory was edited', () => {
    const base = profile({ memory: { summary: '', items: [item('a', 'A')] } })
    expect(buildPatch({ base, value: { ...base, name: 'n' } })).toEqual({ name: 'n' })
  })
})

describe('a draft when the profile is saved elsewhere', () => {
  it('takes the saved values of untouched fields, keeps the edited ones, and names a field both sides changed', () => {
    const base = profile({ role: '旧角色', personality: '旧性格' })
    const draft = { base, value: { ...base, role: '我的角色', rules: '我的准则' } }
    const saved = { ...base, role: '他们的角色', personality: '他们的性格' }
    const { draft: next, conflicts } = rebaseDraft(draft, saved)
    expect(conflicts).toEqual(['role'])
    expect(next.value).toMatchObject({ role: '我的角色', rules: '我的准则', personality: '他们的性格' })
    // Saving now sends the user's fields only; the other side's personality is not sent back over itself.
    expect(buildPatch(next)).toEqual({ role: '我的角色', rules: '我的准则' })
    expect(next.seen).toBe(saved)
  })

  it('is no conflict when the other side changed only what the user did not touch', () => {
    const base = profile()
    const { conflicts, draft } = rebaseDraft({ base, value: { ...base, name: '新名字' } }, { ...base, emoji: '🦉' })
    expect(conflicts).toEqual([])
    expect(draft.value).toMatchObject({ name: '新名字', emoji: '🦉' })
  })

  it('keeps a memory edit, so the host still merges the items saved meanwhile', () => {
    const base = profile({ memory: { summary: '', items: [item('m1', 'a')] } })
    const draft = { base, value: base, items: editItem(NO_EDITS, item('m1', 'a'), { text: 'a 改' }) }
    const saved = { ...base, memory: { summary: '', items: [item('m1', 'a'), item('m2', 'b', 'tool')] } }
    const { draft: next, conflicts } = rebaseDraft(draft, saved)
    expect(conflicts).toEqual([])
    expect(next.value.memory.items).toBe(saved.memory.items)
    expect(buildPatch(next)).toEqual({ memory: { items: [{ id: 'm1', text: 'a 改' }] }, basedOn: ['m1'] })
  })
})
