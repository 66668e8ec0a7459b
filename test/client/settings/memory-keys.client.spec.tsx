// Search keys typed by the user on the settings page (lib/client/common/KeysField.tsx in the memory row and the add
// box): shown for an item that has them, edited and saved through the store's real operations, refused while they
// break a rule — in the page's language, naming the field and the bound — with nothing sent and nothing changed.
import { describe, expect, it } from 'vitest'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { button, click, field, memoryItem, profile, state, text, type } from '../../support/dom.tsx'
import { cleanPageEachTest, openAt } from '../../support/settings-page.tsx'

cleanPageEachTest()

/** The settings page's memory tab (its tab named `tabLabel`) over a host whose profile `a` holds 用户住在杭州 (keys 杭州, Hangzhou) and 喜欢乌龙茶. */
async function mount(tabLabel = '记忆') {
  const { host, container } = await openAt(
    tabLabel,
    state([
      profile({
        id: 'a',
        name: '通用助手',
        memory: {
          summary: '',
          items: [memoryItem('x1', '用户住在杭州', { keys: '杭州, Hangzhou' }), memoryItem('x2', '喜欢乌龙茶')],
        },
      }),
    ]),
  )
  const row = (id: string): HTMLElement => container.querySelector<HTMLElement>(`[data-item-id="${id}"]`)!
  const items = () => host.state.profiles[0]!.memory.items
  return { host, container, row, items }
}

const alerts = (root: ParentNode): string[] => [...root.querySelectorAll('[role="alert"]')].map((a) => text(a))

describe('search keys typed by the user', () => {
  it('shows the keys of an item that has them, and saves keys edited in the row', async () => {
    const { host, container, row, items } = await mount()
    expect(text(row('x1'))).toContain('检索词：杭州, Hangzhou')
    expect(text(row('x2'))).not.toContain('检索词')
    await click(button('编辑', row('x2')))
    await type(field('检索词', row('x2')), '乌龙茶， oolong ；tea，oolong')
    await click(button('完成', row('x2')))
    await click(button('保存', container))
    expect(host.commands()).toEqual([
      expect.objectContaining({
        op: 'profile.update',
        patch: expect.objectContaining({
          memory: { items: [{ id: 'x2', text: '喜欢乌龙茶', keys: '乌龙茶, oolong, tea' }] },
        }),
      }),
    ])
    expect(items().find((it) => it.id === 'x2')!.keys).toBe('乌龙茶, oolong, tea')
    expect(items().find((it) => it.id === 'x1')!.keys).toBe('杭州, Hangzhou')
    expect(text(row('x2'))).toContain('检索词：乌龙茶, oolong, tea')
  })

  it('clears the keys of an item when the user empties the field', async () => {
    const { container, row, items } = await mount()
    await click(button('编辑', row('x1')))
    expect(field('检索词', row('x1')).value).toBe('杭州, Hangzhou')
    await type(field('检索词', row('x1')), '')
    await click(button('完成', row('x1')))
    await click(button('保存', container))
    expect(items().find((it) => it.id === 'x1')).not.toHaveProperty('keys')
    expect(text(row('x1'))).not.toContain('检索词')
  })

  it('adds a fact with its keys from the add box', async () => {
    const { container, items } = await mount()
    await type(field('写下一条要长期记住的事实', container), '女儿在读小学三年级')
    // No row is being edited: the one keys field on the page is the add box's.
    await type(field('检索词', container), '女儿, daughter')
    await click(button('添加', container))
    await click(button('保存', container))
    expect(items().find((it) => it.text === '女儿在读小学三年级')).toMatchObject({
      keys: '女儿, daughter',
      source: 'user',
    })
  })

  it.each([
    ['thirteen keys', Array.from({ length: 13 }, (_, i) => `词${i}`).join(', '), '「检索词」：最多 12 个检索词'],
    ['a key of 41 characters', `杭州, ${'长'.repeat(41)}`, '「检索词」：每个检索词最多 40 个字符'],
    [
      'more than 300 characters in all',
      Array.from({ length: 12 }, (_, i) => `${i}${'字'.repeat(29)}`).join(', '),
      '「检索词」：检索词合计最多 300 个字符',
    ],
    ['markup', '杭州, <b>西湖</b>', '「检索词」：不能包含标记'],
    ['a secret', '杭州, sk-abcdefghijklmnop1234', '「检索词」：看起来像密码、密钥或令牌'],
  ])('refuses %s in the row, naming the field and the bound, and changes nothing', async (_what, keys, said) => {
    const { host, container, row, items } = await mount()
    await click(button('编辑', row('x1')))
    await type(field('检索词', row('x1')), keys)
    expect(alerts(row('x1'))).toEqual([expect.stringContaining(said)])
    expect(button('完成', row('x1')).disabled).toBe(true)
    expect(row('x1').dataset.draft).toBeUndefined()
    expect(button('保存', container).disabled).toBe(true)
    expect(host.commands()).toEqual([])
    expect(items()[0]!.keys).toBe('杭州, Hangzhou')
  })

  it('refuses bad keys in the add box too, adding nothing', async () => {
    const { container } = await mount()
    await type(field('写下一条要长期记住的事实', container), '住在上海')
    await type(field('检索词', container), '上海, <i>x</i>')
    expect(alerts(container)).toEqual([expect.stringContaining('「检索词」：不能包含标记')])
    expect(button('添加', container).disabled).toBe(true)
    expect(text(container)).not.toContain('未保存')
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { row } = await mount('Memory')
      expect(text(row('x1'))).toContain('Search keys: 杭州, Hangzhou')
      await click(button('Edit', row('x1')))
      await type(field('Search keys', row('x1')), Array.from({ length: 13 }, (_, i) => `k${i}`).join(', '))
      expect(alerts(row('x1'))).toEqual([expect.stringContaining('Search keys": holds at most 12 search keys')])
    } finally {
      unbind()
    }
  })
})
