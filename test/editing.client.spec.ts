import { describe, expect, it } from 'vitest'
import { buildPatch, isDirty, rebaseMemory } from '../lib/client/editing.ts'
import type { MemoryItem } from '../lib/model.ts'
import { profile } from './support/dom.tsx'

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
    const current = { ...base, role: '别处改过的角色' }
    const patch = buildPatch({ base, value: { ...base, name: '新名字', emoji: '🦉' } }, current)
    expect(patch).toEqual({ name: '新名字', emoji: '🦉' })
  })

  it('sends a new avatar data URL, or "" to remove it, and nothing when the avatar was not touched', () => {
    const base = profile({ avatar: '/__ap/avatar/p1?v=1' })
    expect(buildPatch({ base, value: { ...base, avatar: 'data:image/webp;base64,AAAA' } }, base)).toEqual({ avatar: 'data:image/webp;base64,AAAA' })
    expect(buildPatch({ base, value: { ...base, avatar: '' } }, base)).toEqual({ avatar: '' })
    expect(buildPatch({ base, value: { ...base, name: 'x' } }, base)).not.toHaveProperty('avatar')
  })
})

describe('rebaseMemory', () => {
  it('keeps items the background job saved while the user was editing', () => {
    const base = { summary: 's', items: [item('a', 'A'), item('b', 'B')] }
    const mine = { summary: 's', items: [item('a', 'A 改'), item('n', '新的', 'user')] } // edited a, deleted b, added n
    const theirs = { summary: 's', items: [item('a', 'A'), item('b', 'B'), item('t', '工具存的', 'tool')] }
    const out = rebaseMemory(base, mine, theirs)
    expect(out.items.map((i) => [i.id, i.text, i.source])).toEqual([
      ['a', 'A 改', 'user'],
      ['t', '工具存的', 'tool'],
      ['n', '新的', 'user'],
    ])
  })

  it('takes the user\'s summary when they changed it, and the saved one otherwise', () => {
    const base = { summary: '旧', items: [] }
    expect(rebaseMemory(base, { summary: '我的', items: [] }, { summary: '压缩后', items: [] }).summary).toBe('我的')
    expect(rebaseMemory(base, { summary: '旧', items: [item('n', 'x')] }, { summary: '压缩后', items: [] }).summary).toBe('压缩后')
  })

  it('is part of the patch only when the memory was edited', () => {
    const base = profile({ memory: { summary: '', items: [item('a', 'A')] } })
    const current = profile({ memory: { summary: '', items: [item('a', 'A'), item('t', 'T', 'auto')] } })
    expect(buildPatch({ base, value: { ...base, name: 'n' } }, current)).not.toHaveProperty('memory')
    const patch = buildPatch({ base, value: { ...base, memory: { summary: '', items: [] } } }, current)
    expect(patch.memory?.items.map((i) => i.id)).toEqual(['t'])
  })
})
