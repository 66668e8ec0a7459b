// The settings page's "About you" section: the user layer's items from their own route (never from the state),
// edited with the shared memory editor and saved with the ids they started from, its budget share, its history,
// a refresh when the push channel says it changed, and the export option — in Chinese and in English.
import { expect, it, vi } from 'vitest'
import { keepSurfaceDraft, keepTyped } from '../../../lib/client/common/editing.ts'
import { ABOUT_DRAFT } from '../../../lib/client/settings/AboutYou.tsx'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { openLive } from '../../../lib/client/data/live.ts'
import { opsHost } from '../../support/ops-host.ts'
import {
  button,
  cleanup,
  click,
  field,
  memoryItem,
  pressEscape,
  profile,
  settle,
  state,
  tab,
  text,
  type,
} from '../../support/dom.tsx'
import { simBrowser } from '../../support/tabs.ts'
import { cleanPageEachTest, dialog, mountPage, open, openAt } from '../../support/settings-page.tsx'

cleanPageEachTest(() => {
  keepSurfaceDraft(ABOUT_DRAFT, undefined)
  keepTyped(ABOUT_DRAFT, undefined)
})

it('shows the user layer from its own route with its share, and saves an edit keeping what the model saved meanwhile', async () => {
  const { host, container, client } = await open({
    ...state([profile({ id: 'a', name: '通用助手' })]),
    user: {
      items: [memoryItem('u1', '用户叫小王'), memoryItem('u2', '用户住在北京', { source: 'tool', sessionId: 's-1' })],
    },
  })
  // The state the page loaded carries the count only.
  expect(client.getSnapshot().state?.userItems).toBe(2)
  expect(JSON.stringify(client.getSnapshot().state)).not.toContain('用户叫小王')
  await click(tab('关于你', container))
  await settle(5)
  expect(host.calls.some((c) => c.method === 'GET' && c.path === '/__ap/user')).toBe(true)
  expect(text(container)).toContain('这一层最多占 1000 字')
  // Newest first (saved at the same moment: the later in the list first).
  const rows = [...container.querySelectorAll<HTMLElement>('.ap-about-you .ap-memory-item')]
  expect(rows.map((r) => text(r))).toEqual([
    expect.stringContaining('用户住在北京'),
    expect.stringContaining('用户叫小王'),
  ])
  expect(text(rows[0]!)).toContain('模型')
  await click(button('删除', rows[0]!))
  await type(field('写下一条要长期记住的事实', container), '用户住在上海')
  await click(button('添加', container))
  expect(tab('关于你', container).textContent).toContain('改')
  // The model saves a fact the moment the save reaches the host: the page could not have seen it.
  host.state = {
    ...host.state,
    user: { items: [...host.state.user!.items, memoryItem('u9', '用户在学日语', { source: 'tool' })] },
  }
  await click(button('保存', container.querySelector('.ap-about-you')!))
  await settle(5)
  // Only what the user touched: the deleted item's id, the new item's text.
  expect(host.commands().find((c) => c.op === 'user.set')).toEqual({
    op: 'user.set',
    basedOn: ['u2'],
    items: [{ text: '用户住在上海' }],
  })
  expect(host.state.user!.items.map((it) => it.text)).toEqual(['用户叫小王', '用户在学日语', '用户住在上海'])
  const shown = [...container.querySelectorAll<HTMLElement>('.ap-about-you .ap-memory-item')].map((r) => text(r))
  expect(shown).toEqual([
    expect.stringContaining('用户住在上海'),
    expect.stringContaining('用户在学日语'),
    expect.stringContaining('用户叫小王'),
  ])
  // Its own history list, with revert.
  const history = container.querySelector<HTMLDetailsElement>('.ap-about-you .ap-history')!
  history.open = true
  history.dispatchEvent(new Event('toggle'))
  await settle(5)
  expect(host.histories()).toContain('/__ap/memory/history?layer=user')
})

it('shows a suggestion with the fact it would replace, and approving it leaves only the new one', async () => {
  const { host, container } = await openAt('关于你', {
    ...state([profile({ id: 'a', memoryMode: 'ask' })]),
    user: {
      items: [
        memoryItem('u1', '用户住在北京'),
        memoryItem('u2', '用户搬到了上海', { source: 'auto', sessionId: 's-1', pending: true, replaces: 'u1' }),
      ],
    },
  })
  const suggestion = container.querySelector<HTMLElement>('.ap-about-you [data-ap-suggestion="u2"]')!
  expect(text(suggestion)).toContain('批准后取代：用户住在北京')
  await click(button('批准', suggestion))
  await settle(5)
  expect(host.state.user!.items.map((it) => it.text)).toEqual(['用户搬到了上海'])
  expect(container.querySelector('.ap-about-you [data-ap-suggestion]')).toBeNull()
})

it('reads the items again when the push channel says the user layer changed', async () => {
  const { host, container, client } = await openAt('关于你', {
    ...state([profile({ id: 'a' })]),
    user: { items: [memoryItem('u1', '用户叫小王')] },
  })
  const page = simBrowser().page('settings')
  const live = openLive(client, { ...page.options, window: undefined })
  await vi.waitFor(() => expect(page.sources).toHaveLength(1))
  host.state = {
    ...host.state,
    user: { items: [memoryItem('u1', '用户叫小王'), memoryItem('u2', '用户养了一只猫', { source: 'tool' })] },
  }
  page.sources[0]!.emit({
    kind: 'change',
    revision: 9,
    change: { profiles: [], memory: [], removed: [], sessions: [], user: 2 },
  })
  await settle(10)
  expect(text(container)).toContain('用户养了一只猫')
  expect(client.getSnapshot().state?.userItems).toBe(2)
  live.close()
  page.close()
})

it('speaks English, and the export includes the user layer only when asked', async () => {
  const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
  try {
    const { container } = await openAt('About you', {
      ...state([profile({ id: 'a' })]),
      user: { items: [memoryItem('u1', 'The user is called Wang')] },
    })
    expect(text(container)).toContain('this layer takes at most 1000 of them')
    expect(text(container)).toContain('The user is called Wang')
    await click(tab('Import, export & maintenance', container))
    const link = [...container.querySelectorAll<HTMLAnchorElement>('a[download]')][0]!
    expect(link.getAttribute('href')).toBe('/__ap/export')
    const label = [...container.querySelectorAll<HTMLLabelElement>('label.ap-check')].find((l) =>
      text(l).includes('Include "About you" in the export (1 item)'),
    )!
    const option = label.querySelector('input')!
    expect(option.checked).toBe(false)
    await click(option)
    expect(link.getAttribute('href')).toBe('/__ap/export?user=1')
  } finally {
    unbind()
  }
})

/** The add box of About you. */
const box = (root: HTMLElement) => field('写下一条要长期记住的事实', root)
/** The facts the list shows, the draft's additions first (the list is newest first). */
const facts = (root: HTMLElement) =>
  [...root.querySelectorAll<HTMLElement>('.ap-about-you .ap-memory-item .ap-memory-text')].map((el) => text(el))

it.each([
  {
    draft: 'a fact added with 添加',
    make: async (root: HTMLElement) => {
      await type(box(root), '用户住在上海')
      await click(button('添加', root))
      expect(text(root.querySelector('.ap-about-you .ap-memory-item[data-draft="added"]')!)).toContain('未保存')
    },
    kept: (root: HTMLElement): unknown => facts(root),
    drafted: ['用户住在上海', '用户叫小王'],
    dropped: ['用户叫小王'],
  },
  {
    draft: 'a fact typed but not yet added',
    make: async (root: HTMLElement) => {
      await type(box(root), '用户住在上海')
    },
    kept: (root: HTMLElement): unknown => box(root).value,
    drafted: '用户住在上海',
    dropped: '',
  },
])(
  'asks before Escape drops $draft, and keeps it when the dialog closes another way',
  async ({ make, kept, drafted, dropped }) => {
    opsHost({ ...state([profile({ id: 'a', name: '通用助手' })]), user: { items: [memoryItem('u1', '用户叫小王')] } })
    const close = vi.fn()
    const mount = async () => {
      const { container } = await mountPage({ close })
      await click(tab('关于你', container))
      await settle(5)
      return container
    }
    const escape = pressEscape
    const question = dialog
    let container = await mount()
    await make(container)
    await escape()
    expect(text(question()!)).toContain('「关于你」有未保存的修改，确定放弃吗？')
    await click(button('取消', question()!))
    expect(close).not.toHaveBeenCalled()
    expect(kept(container)).toEqual(drafted)
    // The host's close button or a click on the mask unmounts the page without a key: the draft waits for the next
    // opening.
    await cleanup()
    container = await mount()
    expect(kept(container)).toEqual(drafted)
    await escape()
    await click(button('放弃修改', question()!))
    expect(close).toHaveBeenCalledOnce()
    await cleanup()
    container = await mount()
    expect(kept(container)).toEqual(dropped)
    // Nothing drafted: Escape is the shell's, unasked.
    await escape()
    expect(question()).toBeNull()
  },
)
