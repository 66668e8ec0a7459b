import { describe, expect, it } from 'vitest'
import { buildPatch, isDirty } from '../../../lib/client/common/editing.ts'
import type { MemoryItem } from '../../../lib/shared/model.ts'
import { profile } from '../../support/dom.tsx'

const item = (id: string, text: string, source: MemoryItem['source'] = 'user'): MemoryItem => ({ id, text, source, at: 1 })

describe('draft', () => {
  it('is dirty only while it differs from the profile it started from', () => {
    const base = profile()
    expect(isDirty(null)).toBe(false)
    expect(isDirty({ base, value: { ...base } })).toBe(false)
    expect(isDirty({ base, value: { ...base, rules: '新准则' } })).toBe(true)
    expect(isDirty({ base, value: { ...base, memoryEnabled: false } })).toBe(true)
    expect(isDirty({ base, value: { ...base, memory: { summary: '', items: [item('m1', 'x')] } } })).toBe(true)
  })

  it('saves only the fields the user changed, so edits made elsewhere meanwhile survive', () => {
    const base = profile({ avatar: '/__ap/avatar/p1?v=1' })
    const patch = buildPatch({ base, value: { ...base, name: '新名字', emoji: '🦉' } })
    expect(patch).toEqual({ name: '新名字', emoji: '🦉' })
  })

  it('sends a new avatar data URL, or "" to remove it, and nothing when the avatar was not touched', () => {
    const base = profile({ avatar: '/__ap/avatar/p1?v=1' })
    expect(buildPatch({ base, value: { ...base, avatar: 'data:image/webp;base64,AAAA' } })).toEqual({ avatar: 'data:image/webp;base64,AAAA' })
    expect(buildPatch({ base, value: { ...base, avatar: '' } })).toEqual({ avatar: '' })
    expect(buildPatch({ base, value: { ...base, name: 'x' } })).not.toHaveProperty('avatar')
  })
})

describe('a memory edit in the patch', () => {
  it('carries the item ids it started from, so the host keeps what was saved meanwhile', () => {
    const base = profile({ memory: { summary: 's', items: [item('a', 'A'), item('b', 'B')] } })
    const items = [item('a', 'A 改'), item('n', '新的')] // edited a, deleted b, added n
    expect(buildPatch({ base, value: { ...base, memory: { summary: 's', items } } })).toEqual({ memory: { items }, basedOn: ['a', 'b'] })
  })

  it('sends the summary only when the user changed it (a compression may have written a newer one)', () => {
    const base = profile({ memory: { summary: '旧', items: [] } })
    expect(buildPatch({ base, value: { ...base, memory: { summary: '我的', items: [] } } })).toEqual({ memory: { summary: '我的', items: [] }, basedOn: [] })
  })

  it('is part of the patch only when the memory was edited', () => {
    const base = profile({ memory: { summary: '', items: [item('a', 'A')] } })
    expect(buildPatch({ base, value: { ...base, name: 'n' } })).toEqual({ name: 'n' })
  })
})
