import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryItems } from '../../../lib/client/common/MemoryItems.tsx'
import type { MemoryItem } from '../../../lib/shared/model.ts'
import { button, cleanup, click, field, render, text, type } from '../../support/dom.tsx'

afterEach(cleanup)

const at = Date.UTC(2025, 5, 6, 7, 8)
const sample: MemoryItem[] = [
  { id: 'm1', text: '喜欢简短回答', source: 'user', at },
  { id: 'm2', text: '项目叫 Atlas', source: 'tool', sessionId: 'session-9b8c7d6e-ffff', at },
]
const ADD = '写下一条要长期记住的事实'

/** The list with its items held the way both editors hold their draft; `seen` records every change. */
function Harness({ initial, limit = 10, sessionId, seen }: { initial: MemoryItem[]; limit?: number; sessionId?: string; seen: MemoryItem[][] }) {
  const [items, setItems] = useState(initial)
  return <MemoryItems items={items} limit={limit} sessionId={sessionId} onChange={(next) => { setItems(next); seen.push(next) }} />
}

const rows = (container: HTMLElement): string[] => [...container.querySelectorAll('li')].map((li) => text(li))
const alert = (container: HTMLElement): string => text(container.querySelector('[role="alert"]') ?? document.createElement('i'))

describe('MemoryItems', () => {
  it('shows each item with its source, its conversation and when it was saved', async () => {
    const { container } = await render(<Harness initial={sample} seen={[]} />)
    const [first, second] = rows(container)
    expect(first).toMatch(/^喜欢简短回答 手动添加 不属于某个对话 \d/)
    expect(second).toMatch(/^项目叫 Atlas 模型保存 来自对话 9b8c7d6e \d/)
    expect([...container.querySelectorAll('li time')].map((el) => el.getAttribute('dateTime'))).toEqual([new Date(at).toISOString(), new Date(at).toISOString()])
  })

  it('says there are no items yet when the list is empty', async () => {
    const { container } = await render(<Harness initial={[]} seen={[]} />)
    expect(container.querySelector('li')).toBeNull()
    expect(text(container)).toContain('还没有记忆条目。')
  })

  it('edits an item in place and deletes another', async () => {
    const seen: MemoryItem[][] = []
    const { container } = await render(<Harness initial={sample} seen={seen} />)
    const first = container.querySelectorAll('li')[0]!
    await click(button('编辑', first))
    await type(field('编辑', first), '  喜欢详细回答 ')
    await click(button('完成', first))
    expect(seen.at(-1)!.map((i) => [i.id, i.text, i.source])).toEqual([['m1', '喜欢详细回答', 'user'], ['m2', '项目叫 Atlas', 'tool']])
    expect(rows(container)[0]).toMatch(/^喜欢详细回答 手动添加/)
    await click(button('删除', container.querySelectorAll('li')[1]!))
    expect(seen.at(-1)!.map((i) => i.id)).toEqual(['m1'])
    expect(text(container)).not.toContain('项目叫 Atlas')
  })

  it('adds what the user typed, trimmed, now, to the conversation it belongs to, and empties the box', async () => {
    const seen: MemoryItem[][] = []
    const { container } = await render(<Harness initial={sample} sessionId="session-5a5a5a5a-0000" seen={seen} />)
    expect(button('添加', container).disabled).toBe(true)
    await type(field(ADD, container), '  住在杭州 ')
    await click(button('添加', container))
    const added = seen.at(-1)![2]!
    expect(added).toMatchObject({ text: '住在杭州', source: 'user', sessionId: 'session-5a5a5a5a-0000' })
    expect(added.id).not.toBe('m1')
    expect(Date.now() - added.at).toBeLessThan(60_000)
    expect(rows(container)[2]).toMatch(/^住在杭州 手动添加 来自对话 5a5a5a5a/)
    expect(field(ADD, container).value).toBe('')
  })

  it('adds an item of no conversation when none is given', async () => {
    const seen: MemoryItem[][] = []
    const { container } = await render(<Harness initial={[]} seen={seen} />)
    await type(field(ADD, container), '周五发版')
    await click(button('添加', container))
    expect(seen.at(-1)![0]!.sessionId).toBeUndefined()
    expect(rows(container)[0]).toMatch(/^周五发版 手动添加 不属于某个对话/)
  })

  it('refuses a duplicate (by the store rule) and one past the limit with a message, changing nothing', async () => {
    const seen: MemoryItem[][] = []
    const { container } = await render(<Harness initial={sample} limit={3} seen={seen} />)
    // Case, width, spacing and punctuation do not make a new fact.
    await type(field(ADD, container), '项目叫ＡＴＬＡＳ。')
    await click(button('添加', container))
    expect(alert(container)).toBe('已有同样内容的条目。')
    expect(field(ADD, container).value).toBe('项目叫ＡＴＬＡＳ。')
    // Typing again takes the message away.
    await type(field(ADD, container), '第三条')
    expect(container.querySelector('[role="alert"]')).toBeNull()
    await click(button('添加', container))
    await type(field(ADD, container), '第四条')
    await click(button('添加', container))
    expect(alert(container)).toBe('记忆条目最多 3 条。')
    expect(seen).toHaveLength(1)
    expect(rows(container)).toHaveLength(3)
  })
})
