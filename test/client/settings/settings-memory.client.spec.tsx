import { expect, it, vi } from 'vitest'
import {
  button,
  click,
  field,
  memoryItem,
  onCommandArrival,
  pressEscape,
  profile,
  settle,
  state,
  text,
  type,
} from '../../support/dom.tsx'
import { cleanPageEachTest, dialog, openAt } from '../../support/settings-page.tsx'

cleanPageEachTest()

it('a memory save on the settings page keeps the facts the background job saved while the user typed', async () => {
  // Ids unlike the fake host's own (m1, m2…), which it gives the added item.
  const { host, container } = await openAt(
    '记忆',
    state([
      profile({
        id: 'a',
        name: '通用助手',
        memory: { summary: '', items: [memoryItem('x1', '用户叫小林'), memoryItem('x2', '要删的事实')] },
      }),
    ]),
  )
  const rows = [...container.querySelectorAll<HTMLElement>('.ap-memory-item')]
  expect(rows.map((r) => text(r))).toEqual([
    expect.stringContaining('要删的事实'),
    expect.stringContaining('用户叫小林'),
  ])
  await click(button('删除', rows[0]!))
  await type(field('写下一条要长期记住的事实', container), '用户在上海工作')
  await click(button('添加', container))
  // The background job stores a fact the moment the save reaches the host: the page could not have seen it.
  onCommandArrival(() => {
    const [p] = host.state.profiles
    host.state = {
      ...host.state,
      profiles: [
        {
          ...p!,
          memory: {
            ...p!.memory,
            items: [...p!.memory.items, memoryItem('m9', '用户喜欢 Rust', { source: 'auto' })],
          },
        },
      ],
    }
  })
  await click(button('保存', container))
  const [sent] = host.commands()
  expect(sent).toEqual({
    op: 'profile.update',
    id: 'a',
    patch: { memory: { items: [{ text: '用户在上海工作' }] }, basedOn: ['x2'] },
  })
  expect(sent!.patch).not.toHaveProperty('memory.summary')
  expect(host.state.profiles[0]!.memory.items.map((m) => [m.text, m.source])).toEqual([
    ['用户叫小林', 'user'],
    ['用户喜欢 Rust', 'auto'],
    ['用户在上海工作', 'user'],
  ])
  expect(text(container)).toContain('用户喜欢 Rust')
})

it('offers to undo the last compression, which brings back the memory from before it', async () => {
  const before = { summary: '', items: [memoryItem('m1', '用户叫小林'), memoryItem('m2', '用户在上海工作')] }
  const { host, container, client } = await openAt('记忆', {
    ...state([
      profile({
        id: 'a',
        name: '通用助手',
        memory: { summary: '小林，上海。', items: [memoryItem('c1', '小林在上海', { source: 'compress' })] },
      }),
    ]),
    memoryUndo: { a: { memory: before, at: Date.UTC(2025, 0, 2, 3, 4) } },
  })
  // The page is told when the compression ran, not the memory it replaced.
  expect(client.getSnapshot().state).toMatchObject({ undo: { a: Date.UTC(2025, 0, 2, 3, 4) } })
  expect(JSON.stringify(client.getSnapshot().state)).not.toContain('用户在上海工作')
  expect(text(container)).toContain('压缩过记忆，可撤销一次')
  // Not while the memory is being edited: the draft was made from the compressed memory.
  await type(field('写下一条要长期记住的事实', container), '草稿')
  await click(button('添加', container))
  expect(button('撤销上次压缩', container).disabled).toBe(true)
  await click(button('放弃修改', container))
  await click(button('撤销上次压缩', container))
  expect(host.commands()).toEqual([{ op: 'memory.undo', profileId: 'a' }])
  expect(text(container)).toContain('已撤销「通用助手」的上一次记忆压缩')
  expect([...container.querySelectorAll('.ap-memory-item')].map((r) => text(r))).toEqual([
    expect.stringContaining('用户在上海工作'),
    expect.stringContaining('用户叫小林'),
  ])
  expect(container.textContent).not.toContain('撤销上次压缩')
})

it('asks before Escape or another profile drops a fact typed in the memory add box and not yet added', async () => {
  const close = vi.fn()
  const { container } = await openAt(
    '记忆',
    state([profile({ id: 'a', name: '通用助手' }), profile({ id: 'b', name: '写作教练' })]),
    { close },
  )
  const box = () => field('写下一条要长期记住的事实', container)
  const question = dialog
  await type(box(), '用户在上海工作')
  await pressEscape()
  expect(text(question()!)).toContain('「通用助手」有未保存的修改')
  await click(button('取消', question()!))
  expect(close).not.toHaveBeenCalled()
  expect(box().value).toBe('用户在上海工作')
  await click(container.querySelector<HTMLElement>('[data-profile-id="b"]')!)
  expect(text(question()!)).toContain('「通用助手」有未保存的修改')
  await click(button('放弃修改', question()!))
  await settle(5)
  // Now on the other profile (its memory section still open), whose add box holds nothing.
  expect(container.querySelector('[data-profile-id="b"]')!.getAttribute('aria-current')).toBe('true')
  expect(box().value).toBe('')
})
