// The profile editor's memory part: the summary, the meter of the core (with the draft's item changes), and the
// items from the search route (the list itself is memory-list.client.spec.tsx), in Chinese and in English.
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { NO_EDITS, type MemoryDraft } from '../../../lib/client/common/memory-draft.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { MemoryEditor } from '../../../lib/client/settings/MemoryEditor.tsx'
import { memoryChars, type Memory } from '../../../lib/state/model.ts'
import { button, click, field, profile, render, settle, state, stubFetch, text, type } from '../../support/dom.tsx'
import { memorySearchAnswer } from '../../support/memory-search.ts'

const at = Date.UTC(2025, 0, 2, 3, 4)
const sample: Memory = {
  summary: '用户是后端工程师。',
  items: [
    { id: 'm1', text: '喜欢简短回答', source: 'user', at: at + 4 },
    { id: 'm2', text: '项目用 Go 1.22', source: 'tool', sessionId: 'session-3f2a9c1e-aaaa', at: at + 3 },
    { id: 'm3', text: '周五发版', source: 'auto', sessionId: 'session-77', at: at + 2 },
    { id: 'm4', text: '偏好表格', source: 'compress', at: at + 1 },
    { id: 'm5', text: '<script>window.__pwned=1</script>', source: 'import', at },
  ],
}

/** The editor with its draft held the way the page holds it, over a host holding `initial` as profile p1's memory. */
async function mount(
  initial: Memory,
  {
    threshold = 5000,
    onMemory,
    onItems,
  }: { threshold?: number; onMemory?: (m: Memory) => void; onItems?: (d: MemoryDraft) => void } = {},
) {
  stubFetch(
    (call) => memorySearchAnswer(state([profile({ id: 'p1', memory: initial })]), call) ?? { status: 404, body: {} },
  )
  function Harness() {
    const [memory, setMemory] = useState(initial)
    const [items, setItems] = useState<MemoryDraft>(NO_EDITS)
    return (
      <MemoryEditor
        profileId="p1"
        memory={memory}
        items={items}
        version={1}
        threshold={threshold}
        onChange={(m) => {
          setMemory(m)
          onMemory?.(m)
        }}
        onItems={(d) => {
          setItems(d)
          onItems?.(d)
        }}
      />
    )
  }
  const mounted = await render(
    <ApiContext.Provider value={createApiClient()}>
      <Harness />
    </ApiContext.Provider>,
  )
  await settle()
  return mounted
}

describe('MemoryEditor', () => {
  it('shows each item with where it came from, which conversation and when, as text', async () => {
    const { container } = await mount(sample)
    const items = [...container.querySelectorAll('li')].map((li) => text(li))
    expect(items[0]).toMatch(/^喜欢简短回答 手动添加 不属于某个对话 \d/)
    expect(items[1]).toContain('项目用 Go 1.22 模型保存 来自对话 3f2a9c1e')
    expect(items[2]).toContain('自动提取 来自对话 77')
    expect(items[3]).toContain('压缩生成')
    expect(items[4]).toContain('<script>window.__pwned=1</script> 导入')
    expect((globalThis as { __pwned?: number }).__pwned).toBeUndefined()
    expect(container.querySelector('li time')!.getAttribute('dateTime')).toBe(new Date(at + 4).toISOString())
    expect(field('记忆摘要', container).value).toBe('用户是后端工程师。')
  })

  it("meters the core against the compression threshold, with the draft's additions and deletions", async () => {
    const used = memoryChars(sample)
    const { container } = await mount(sample, { threshold: 60 })
    const meter = (): Element => container.querySelector('[role="meter"]')!
    expect(meter().getAttribute('aria-valuenow')).toBe(String(used))
    expect(meter().getAttribute('aria-valuemax')).toBe('60')
    expect(text(container)).toContain(`已用 ${used} / 60 字`)
    expect(text(container)).toContain('已超过压缩阈值')
    await type(field('写下一条要长期记住的事实', container), '住在杭州')
    await click(button('添加', container))
    await click(button('删除', container.querySelector('[data-item-id="m4"]')!))
    expect(meter().getAttribute('aria-valuenow')).toBe(String(used + '住在杭州'.length - '偏好表格'.length))
  })

  it('reports item changes as the draft of only the items touched, and the summary through onChange', async () => {
    let memory: Memory | undefined
    let items: MemoryDraft | undefined
    const { container } = await mount(sample, {
      onMemory: (m) => {
        memory = m
      },
      onItems: (d) => {
        items = d
      },
    })
    const first = container.querySelector('[data-item-id="m1"]')!
    await click(button('编辑', first))
    await type(field('编辑', first), '喜欢详细回答')
    await click(button('完成', first))
    await click(button('删除', container.querySelector('[data-item-id="m2"]')!))
    expect([...items!.edited.values()]).toEqual([
      expect.objectContaining({ id: 'm1', text: '喜欢详细回答', source: 'user' }),
    ])
    expect([...items!.removed]).toEqual(['m2'])
    expect(memory).toBeUndefined()
    await type(field('记忆摘要', container), '新的摘要')
    expect(memory!.summary).toBe('新的摘要')
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await mount({
        ...sample,
        items: [...sample.items, { id: 'm6', text: '旧事', source: 'compress', at: at - 1, archived: true }],
      })
      expect(text(container)).toContain('Memory summary')
      expect(text(container)).toContain('Saved by the model')
      expect(text(container)).toContain('from conversation 3f2a9c1e')
      expect(text(container)).toContain('6 in all')
      expect(text(container.querySelector('[data-item-id="m6"]')!)).toContain('Archived')
      expect(field('Search memory', container)).toBeTruthy()
      expect(button('Add', container)).toBeTruthy()
    } finally {
      unbind()
    }
  })
})
