import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ProfileEditor } from '../../../lib/client/settings/ProfileEditor.tsx'
import { draftProblems } from '../../../lib/client/settings/draft-problems.ts'
import { translate } from '../../../lib/client/copy/locales.ts'
import { graphemeCount } from '../../../lib/state/graphemes.ts'
import { LIMITS, type Profile } from '../../../lib/state/model.ts'
import { cleanup, field, profile, render, text, type } from '../../support/dom.tsx'

afterEach(cleanup)

function Editor({ initial }: { initial: Profile }) {
  const [value, setValue] = useState(initial)
  return (
    <ProfileEditor
      value={value}
      dirty={value !== initial}
      saving={false}
      isDefault={false}
      compressThreshold={5000}
      onEdit={(patch) => {
        setValue({ ...value, ...patch })
      }}
      onSave={vi.fn()}
      onDiscard={vi.fn()}
      onSetDefault={vi.fn()}
      onDuplicate={vi.fn()}
      onDelete={vi.fn()}
    />
  )
}

/** The field's name as its labels give it, and what describes it (by `aria-describedby`). */
function naming(el: HTMLInputElement | HTMLTextAreaElement): { name: string; description: string } {
  const ids = (el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean)
  return {
    name: [...(el.labels ?? [])].map((l) => text(l)).join(' '),
    description: ids.map((id) => text(document.getElementById(id)!)).join(' '),
  }
}

describe('counted fields', () => {
  it('name a field by its label alone; the counter describes it', async () => {
    const { container } = await render(
      <Editor initial={profile({ name: '写作教练', emoji: '✍️', role: '你是写作教练。' })} />,
    )
    expect(naming(field('名称', container))).toEqual({ name: '名称', description: '4 / 40' })
    expect(naming(field('角色设定', container))).toEqual({ name: '角色设定', description: '7 / 4000' })
  })

  it('count an emoji as the one character the reader sees, in the counter and in the check before saving', async () => {
    const { container } = await render(<Editor initial={profile({ emoji: '' })} />)
    const emoji = field('图标', container)
    await type(emoji, '👩‍🏫')
    expect(naming(emoji).description).toBe('1 / 16')
    await type(emoji, '🇨🇳👩‍👩‍👧‍👦✍️')
    expect(naming(emoji).description).toBe('3 / 16')
    const t = (key: Parameters<typeof translate>[1], params?: Parameters<typeof translate>[2]) =>
      translate('zh', key, params)
    expect(draftProblems(t, profile({ emoji: '👩‍🏫'.repeat(LIMITS.emoji) }))).toEqual([])
    expect(draftProblems(t, profile({ emoji: '👩‍🏫'.repeat(LIMITS.emoji + 1) }))).toHaveLength(1)
  })

  it('graphemeCount counts what is seen, not UTF-16 units', () => {
    expect('👩‍🏫'.length).toBe(5)
    expect(graphemeCount('👩‍🏫')).toBe(1)
    expect(graphemeCount('e\u0301')).toBe(1)
    expect(graphemeCount('abc')).toBe(3)
    expect(graphemeCount('')).toBe(0)
  })
})
