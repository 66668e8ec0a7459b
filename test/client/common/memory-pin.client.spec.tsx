import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryItems } from '../../../lib/client/common/MemoryItems.tsx'
import { panelPatch } from '../../../lib/client/conversation/ConversationPanel.tsx'
import { buildPatch } from '../../../lib/client/common/editing.ts'
import type { MemoryItem } from '../../../lib/shared/model.ts'
import { cleanup, click, profile, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

const at = Date.UTC(2025, 5, 6, 7, 8)
const sample: MemoryItem[] = [
  { id: 'm1', text: '用户对花生过敏', source: 'user', at },
  { id: 'm2', text: '项目叫 Atlas', source: 'tool', at, pinned: true },
]

function Harness({ seen }: { seen: MemoryItem[][] }) {
  const [items, setItems] = useState(sample)
  return <MemoryItems items={items} limit={10} onChange={(next) => { setItems(next); seen.push(next) }} />
}

const pinButton = (li: Element) => [...li.querySelectorAll('button')].find((b) => b.hasAttribute('aria-pressed'))!

describe('pinning in the memory item lists', () => {
  it('shows which items are pinned, and pins and unpins with a pressed-state button', async () => {
    const seen: MemoryItem[][] = []
    const { container } = await render(<Harness seen={seen} />)
    const [first, second] = [...container.querySelectorAll('li')]
    expect(text(second!)).toContain('📌 已置顶')
    expect(pinButton(second!).getAttribute('aria-pressed')).toBe('true')
    expect(text(pinButton(second!))).toBe('取消置顶')
    expect(pinButton(first!).getAttribute('aria-pressed')).toBe('false')
    await click(pinButton(first!))
    expect(seen.at(-1)!.map((it) => it.pinned ?? false)).toEqual([true, true])
    await click(pinButton(container.querySelectorAll('li')[1]!))
    expect(seen.at(-1)!.map((it) => it.pinned ?? false)).toEqual([true, false])
    expect('pinned' in seen.at(-1)![1]!).toBe(false)
  })

  it('a pin alone is a change both editors save', () => {
    const pinned = sample.map((it) => ({ ...it, pinned: true as const }))
    expect(panelPatch({ note: '', memories: sample }, { note: '', memories: pinned }).memories).toEqual([
      { id: 'm1', text: '用户对花生过敏', pinned: true }, { id: 'm2', text: '项目叫 Atlas', pinned: true },
    ])
    const base = profile({ memory: { summary: '', items: sample } })
    const patch = buildPatch({ base, value: { ...base, memory: { summary: '', items: [sample[0]!, { ...sample[1]!, pinned: undefined } as unknown as MemoryItem] } } })
    expect(patch.memory?.items?.[1]).not.toHaveProperty('pinned', true)
  })
})
