import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { bindLocale } from '../../../lib/client/locales.ts'
import { MemoryEditor } from '../../../lib/client/settings/MemoryEditor.tsx'
import { LIMITS, memoryChars, type Memory } from '../../../lib/shared/model.ts'
import { button, cleanup, click, field, render, text, type } from '../../support/dom.tsx'

afterEach(cleanup)

const at = Date.UTC(2025, 0, 2, 3, 4)
const sample: Memory = {
  summary: '用户是后端工程师。',
  items: [
    { id: 'm1', text: '喜欢简短回答', source: 'user', at },
    { id: 'm2', text: '项目用 Go 1.22', source: 'tool', sessionId: 'session-3f2a9c1e-aaaa', at },
    { id: 'm3', text: '周五发版', source: 'auto', sessionId: 'session-77', at },
    { id: 'm4', text: '偏好表格', source: 'compress', at },
    { id: 'm5', text: '<script>window.__pwned=1</script>', source: 'import', at },
  ],
}

/** The editor with its draft held the way the page holds it. */
function Harness({ initial, threshold = 5000, onMemory }: { initial: Memory; threshold?: number; onMemory?: (m: Memory) => void }) {
  const [memory, setMemory] = useState(initial)
  return <MemoryEditor memory={memory} threshold={threshold} onChange={(m) => { setMemory(m); onMemory?.(m) }} />
}

describe('MemoryEditor', () => {
  it('shows each item with where it came from, which conversation and when', async () => {
    const { container } = await render(<Harness initial={sample} />)
    const items = [...container.querySelectorAll('li')].map((li) => text(li))
    expect(items[0]).toMatch(/^喜欢简短回答 手动添加 不属于某个对话 \d/)
    expect(items[1]).toContain('项目用 Go 1.22 模型保存 来自对话 3f2a9c1e')
    expect(items[2]).toContain('自动提取 来自对话 77')
    expect(items[3]).toContain('压缩生成')
    expect(items[4]).toContain('<script>window.__pwned=1</script> 导入')
    expect(container.querySelector('li time')!.getAttribute('dateTime')).toBe(new Date(at).toISOString())
    expect(field('记忆摘要', container).value).toBe('用户是后端工程师。')
  })

  it('meters the characters used against the compression threshold', async () => {
    const used = memoryChars(sample)
    expect(used).toBe(sample.summary.length + sample.items.reduce((n, i) => n + i.text.length, 0))
    const { container } = await render(<Harness initial={sample} threshold={60} />)
    const meter = container.querySelector('[role="meter"]')!
    expect(meter.getAttribute('aria-valuenow')).toBe(String(used))
    expect(meter.getAttribute('aria-valuemax')).toBe('60')
    expect(text(container)).toContain(`已用 ${used} / 60 字`)
    expect(text(container)).toContain('已超过压缩阈值')
  })

  it('adds an item as typed by the user, now, with no conversation', async () => {
    let last: Memory | undefined
    const { container } = await render(<Harness initial={{ summary: '', items: [] }} onMemory={(m) => { last = m }} />)
    expect(text(container)).toContain('还没有记忆条目')
    await type(field('写下一条要长期记住的事实', container), '  住在杭州 ')
    await click(button('添加', container))
    expect(last!.items).toHaveLength(1)
    expect(last!.items[0]).toMatchObject({ text: '住在杭州', source: 'user' })
    expect(last!.items[0]!.id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/)
    expect(Date.now() - last!.items[0]!.at).toBeLessThan(60_000)
    expect(text(container)).toContain('住在杭州 手动添加')
    expect(field('写下一条要长期记住的事实', container).value).toBe('')
  })

  it('refuses a duplicate and an over-long item with a message, changing nothing', async () => {
    let changes = 0
    const { container } = await render(<Harness initial={sample} onMemory={() => { changes++ }} />)
    await type(field('写下一条要长期记住的事实', container), ' 喜欢简短回答  ')
    await click(button('添加', container))
    expect(text(container.querySelector('[role="alert"]')!)).toBe('已有同样内容的条目。')
    // The host's rule: spacing, punctuation, width and case do not make a new fact.
    await type(field('写下一条要长期记住的事实', container), '项目用go 1.22。')
    await click(button('添加', container))
    expect(text(container.querySelector('[role="alert"]')!)).toBe('已有同样内容的条目。')
    await type(field('写下一条要长期记住的事实', container), 'x'.repeat(LIMITS.memoryItem + 1))
    await click(button('添加', container))
    expect(text(container.querySelector('[role="alert"]')!)).toBe(`记忆条目最多 ${LIMITS.memoryItem} 字，现在 ${LIMITS.memoryItem + 1} 字。`)
    expect(changes).toBe(0)
  })

  it('edits and deletes items', async () => {
    let last: Memory | undefined
    const { container } = await render(<Harness initial={sample} onMemory={(m) => { last = m }} />)
    const first = container.querySelectorAll('li')[0]!
    await click(button('编辑', first))
    await type(field('编辑', first), '喜欢详细回答')
    await click(button('完成', first))
    expect(last!.items[0]).toMatchObject({ id: 'm1', text: '喜欢详细回答', source: 'user' })
    await click(button('删除', container.querySelectorAll('li')[1]!))
    expect(last!.items.map((i) => i.id)).toEqual(['m1', 'm3', 'm4', 'm5'])
    expect(text(container)).not.toContain('项目用 Go')
  })

  it('edits the summary', async () => {
    let last: Memory | undefined
    const { container } = await render(<Harness initial={sample} onMemory={(m) => { last = m }} />)
    await type(field('记忆摘要', container), '新的摘要')
    expect(last!.summary).toBe('新的摘要')
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(<Harness initial={sample} />)
      expect(text(container)).toContain('Memory summary')
      expect(text(container)).toContain('Saved by the model')
      expect(text(container)).toContain('from conversation 3f2a9c1e')
      expect(button('Add', container)).toBeTruthy()
    } finally {
      unbind()
    }
  })
})
