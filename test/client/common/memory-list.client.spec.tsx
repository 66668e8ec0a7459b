// The memory list of the settings page and the ⚙ panel (lib/client/common/MemoryList.tsx) against the host's own
// list function (the search route's): rows with their provenance, only a window of 10,000 rendered, search and
// filters through the route, the draft laid over the rows and kept while the user scrolls and searches, the add box's
// refusals, pins, delete and restore — and typing in the add or search box renders no row.
import { act, useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { formatTime } from '../../../lib/client/common/feedback.ts'
import { NO_EDITS, type MemoryDraft } from '../../../lib/client/common/memory-draft.ts'
import { MemoryList } from '../../../lib/client/common/MemoryList.tsx'
import type { OtherLayer } from '../../../lib/client/common/use-memory-list.ts'
import { keepTyped } from '../../../lib/client/common/editing.ts'
import { WINDOW_PAGE } from '../../../lib/client/common/memory-window.ts'
import { LIMITS, type MemoryItem } from '../../../lib/state/model.ts'
import {
  button,
  cleanup,
  click,
  field,
  LIST_LAYOUT,
  profile,
  render,
  settle,
  state,
  stubFetch,
  text,
  type,
  type Call,
} from '../../support/dom.tsx'
import { isMemorySearch, memorySearchAnswer } from '../../support/memory-search.ts'

// Every row render formats its time once: counting the calls counts the row renders.
vi.mock('../../../lib/client/common/feedback.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../lib/client/common/feedback.ts')>()
  return { ...real, formatTime: vi.fn(real.formatTime) }
})

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
  vi.mocked(formatTime).mockClear()
  // Text left typed in the add box is a draft kept across mounts: it must not become the next test's.
  keepTyped('profile:p1', undefined)
})

const at = Date.UTC(2025, 5, 6, 7, 8)
/** `n` items, item i saved i minutes after `at` (so the newest, shown first, is the last). */
const many = (n: number, over: (i: number) => Partial<MemoryItem> = () => ({})): MemoryItem[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `k${i}`,
    text: `事实 ${i} 号`,
    source: 'user' as const,
    at: at + i * 60_000,
    ...over(i),
  }))

const ADD = '写下一条要长期记住的事实'

/** A fake host holding `items` as profile p1's memory; its search calls, and the draft as the list reports it. */
function setup(
  items: MemoryItem[],
  limit: number = LIMITS.memoryItems,
  { user = [], others }: { user?: MemoryItem[]; others?: OtherLayer[] } = {},
) {
  const data = { ...state([profile({ id: 'p1', memory: { summary: '', items } })]), user: { items: user } }
  const calls = stubFetch((call) => memorySearchAnswer(data, call) ?? { status: 404, body: {} })
  const drafts: MemoryDraft[] = []
  function Harness() {
    const [draft, setDraft] = useState<MemoryDraft>(NO_EDITS)
    return (
      <MemoryList
        surface="profile:p1"
        layer="profile"
        owner="p1"
        version={1}
        draft={draft}
        limit={limit}
        onDraft={(next) => {
          setDraft(next)
          drafts.push(next)
        }}
        {...(others === undefined ? {} : { others })}
      />
    )
  }
  return {
    calls,
    drafts,
    ui: (
      <ApiContext.Provider value={createApiClient()}>
        <Harness />
      </ApiContext.Provider>
    ),
  }
}

const searches = (calls: Call[]): URLSearchParams[] =>
  calls.filter(isMemorySearch).map((c) => new URL(c.path, 'http://h').searchParams)
const rows = (root: ParentNode): HTMLElement[] => [...root.querySelectorAll<HTMLElement>('.ap-memory-row')]
const row = (root: ParentNode, id: string): HTMLElement | null =>
  root.querySelector<HTMLElement>(`[data-item-id="${id}"]`)

/** Choose `value` in a select, as a user does. */
async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value
    select.dispatchEvent(new Event('change', { bubbles: true }))
  })
  await settle()
}

async function scrollTo(root: ParentNode, top: number): Promise<void> {
  const box = root.querySelector<HTMLElement>('.ap-memory-scroll')!
  await act(async () => {
    box.scrollTop = top
    box.dispatchEvent(new Event('scroll'))
  })
  await settle()
}

describe('MemoryList', () => {
  it('shows each item with its source, its conversation and when it was saved, newest first', async () => {
    const { ui } = setup([
      { id: 'm1', text: '喜欢简短回答', source: 'user', at },
      { id: 'm2', text: '项目叫 Atlas', source: 'tool', sessionId: 'session-9b8c7d6e-ffff', at: at + 1 },
      { id: 'm3', text: '旧的细节', source: 'compress', at: at - 1, archived: true },
    ])
    const { container } = await render(ui)
    await settle()
    const shown = rows(container).map((r) => text(r))
    expect(shown[0]).toMatch(/^项目叫 Atlas 模型保存 来自对话 9b8c7d6e \d/)
    expect(shown[1]).toMatch(/^喜欢简短回答 手动添加 不属于某个对话 \d/)
    expect(shown[2]).toMatch(/^旧的细节 已归档 压缩生成/)
    expect(row(container, 'm1')!.querySelector('time')!.getAttribute('dateTime')).toBe(new Date(at).toISOString())
    expect(text(container)).toContain('共 3 条')
  })

  it('shows where a fact brought from elsewhere came from in place of its conversation', async () => {
    const { ui } = setup([
      { id: 'm1', text: '住在青岛', source: 'import', origin: '粘贴，ChatGPT', at },
      { id: 'm2', text: '<b>不是标记</b>', source: 'import', origin: '<img src=x onerror=alert(1)>', at: at - 1 },
    ])
    const { container } = await render(ui)
    await settle()
    expect(text(rows(container)[0]!)).toMatch(/^住在青岛 导入 粘贴，ChatGPT \d/)
    expect(text(rows(container)[1]!)).toContain('<img src=x onerror=alert(1)>')
    expect(container.querySelector('img')).toBeNull()
  })

  it('says there are no items yet when the list is empty', async () => {
    const { ui } = setup([])
    const { container } = await render(ui)
    await settle()
    expect(rows(container)).toEqual([])
    expect(text(container)).toContain('还没有记忆条目。')
  })

  it('holds 10,000 items but puts only the rows on screen in the page, reading one page of them', async () => {
    const { ui, calls } = setup(many(10_000))
    const { container } = await render(ui)
    await settle()
    expect(text(container)).toContain('共 10000 条')
    const first = rows(container)
    // The box shows ten rows of 60 px; a few more are laid out around them, never thousands.
    expect(first.length).toBeGreaterThanOrEqual(LIST_LAYOUT.height / LIST_LAYOUT.row)
    expect(first.length).toBeLessThan(30)
    expect(text(first[0]!)).toContain('事实 9999 号')
    expect(searches(calls).map((p) => [p.get('offset'), p.get('limit')])).toEqual([['0', String(WINDOW_PAGE)]])
    // The scroll box is as tall as all of them, so the scrollbar tells where the user is.
    expect(Number.parseInt(container.querySelector<HTMLElement>('.ap-memory-window')!.style.height)).toBeGreaterThan(
      10_000 * LIST_LAYOUT.row,
    )
    // Far down: the page there is read, and only it.
    await scrollTo(container, 330_000)
    await settle()
    const there = rows(container)
    expect(there.length).toBeLessThan(30)
    const indexes = there.map((r) => Number(r.dataset.index))
    expect(indexes[0]).toBeGreaterThan(4_000)
    // Each row there is the item of its place (newest first), read from the pages holding those places alone.
    for (const r of there) expect(text(r)).toContain(`事实 ${9_999 - Number(r.dataset.index)} 号`)
    const pagesThere = [...new Set(indexes.map((i) => String(Math.floor(i / WINDOW_PAGE) * WINDOW_PAGE)))]
    expect(searches(calls).map((p) => p.get('offset'))).toEqual(['0', ...pagesThere])
  })

  it('searches through the route once the user stops typing, and shows what it found', async () => {
    const { ui, calls } = setup([...many(200), { id: 'city', text: '用户住在杭州西湖边', source: 'tool', at }])
    const { container } = await render(ui)
    await settle()
    const box = field('搜索记忆', container)
    for (const typed of ['杭', '杭州', '杭州西']) await type(box, typed)
    expect(searches(calls)).toHaveLength(1)
    await settle(300)
    const asked = searches(calls).slice(1)
    expect(asked.map((p) => p.get('q'))).toEqual(['杭州西'])
    expect(rows(container).map((r) => text(r))).toEqual([expect.stringContaining('用户住在杭州西湖边')])
    expect(text(container)).toContain('共 201 条 · 找到 1 条')
    await type(box, '没有这回事')
    await settle(300)
    expect(text(container)).toContain('没有符合条件的记忆。')
    // A query is bounded like the route's.
    expect(box.maxLength).toBe(200)
  })

  it('filters by source and by core or archive through the route', async () => {
    const { ui, calls } = setup([
      { id: 'a', text: '手写的', source: 'user', at },
      { id: 'b', text: '模型存的', source: 'tool', at },
      { id: 'c', text: '压缩掉的', source: 'compress', at, archived: true },
    ])
    const { container } = await render(ui)
    await settle()
    const [sourceSelect, archivedSelect] = [...container.querySelectorAll<HTMLSelectElement>('select')]
    await choose(sourceSelect!, 'tool')
    expect(searches(calls).at(-1)!.get('source')).toBe('tool')
    expect(rows(container).map((r) => text(r))).toEqual([expect.stringContaining('模型存的')])
    await choose(sourceSelect!, '')
    await choose(archivedSelect!, '1')
    expect(searches(calls).at(-1)!.get('archived')).toBe('1')
    expect(rows(container).map((r) => text(r))).toEqual([expect.stringContaining('压缩掉的 已归档')])
    await choose(archivedSelect!, '0')
    expect(rows(container).map((r) => row(container, r.dataset.itemId!)!.dataset.itemId)).toEqual(['b', 'a'])
  })

  it('deletes every match of a search in one go, as draft deletions the user can take back', async () => {
    const { ui, calls, drafts } = setup([...many(300), ...many(250, (i) => ({ id: `cat${i}`, text: `猫的事实 ${i}` }))])
    const { container } = await render(ui)
    await settle()
    // Not offered for the whole list, only for what a search or filter found.
    expect(() => button('删除找到的', container)).toThrow()
    await type(field('搜索记忆', container), '猫的')
    await settle(300)
    await click(button('删除找到的 250 条', container))
    await settle()
    // Read in pages of the route's largest size, beside the window's own.
    expect(
      searches(calls)
        .filter((p) => p.get('q') === '猫的' && p.get('limit') === '200')
        .map((p) => p.get('offset')),
    ).toEqual(['0', '200'])
    const draft = drafts.at(-1)!
    expect(draft.removed.size).toBe(250)
    expect([...draft.removed].every((id) => id.startsWith('cat'))).toBe(true)
    expect(rows(container).every((r) => r.dataset.draft === 'removed')).toBe(true)
    expect(text(container)).toContain('250 条记忆有未保存的改动')
    await click(button('恢复', rows(container)[0]!))
    expect(drafts.at(-1)!.removed.size).toBe(249)
  })

  it('says when the list cannot be read, asks again only on Retry, and then shows the rows', async () => {
    const data = state([profile({ id: 'p1', memory: { summary: '', items: many(3) } })])
    let down = true
    const calls = stubFetch((call) =>
      down
        ? { status: 503, body: { error: { code: 'internal', message: 'the store is busy' } } }
        : memorySearchAnswer(data, call)!,
    )
    function Harness() {
      const [draft, setDraft] = useState<MemoryDraft>(NO_EDITS)
      return (
        <MemoryList
          surface="profile:p1"
          layer="profile"
          owner="p1"
          version={1}
          draft={draft}
          limit={10}
          onDraft={setDraft}
        />
      )
    }
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <Harness />
      </ApiContext.Provider>,
    )
    await settle(20)
    expect(text(container.querySelector('[role="alert"]')!)).toContain('读取记忆列表失败：')
    // A failing request is not repeated on every render.
    const asked = searches(calls).length
    await settle(50)
    expect(searches(calls)).toHaveLength(asked)
    down = false
    await click(button('重试', container))
    await settle()
    expect(container.querySelector('[role="alert"]')).toBeNull()
    expect(rows(container).map((r) => r.dataset.itemId)).toEqual(['k2', 'k1', 'k0'])
  })

  it('filters by layer: another list is searched here and shown read-only, with a link to where it is edited', async () => {
    const open = vi.fn()
    const others: OtherLayer[] = [{ layer: 'user', open }]
    const { ui, calls } = setup([{ id: 'p-1', text: '本配置的事实', source: 'user', at }], LIMITS.memoryItems, {
      user: [{ id: 'u-1', text: '用户住在杭州', source: 'tool', at }],
      others,
    })
    const { container } = await render(ui)
    await settle()
    const layerSelect = container.querySelector<HTMLSelectElement>('select')!
    expect([...layerSelect.options].map((o) => o.textContent)).toEqual(['本配置的记忆', '关于你'])
    await choose(layerSelect, '0')
    expect(searches(calls).at(-1)!.get('layer')).toBe('user')
    expect(rows(container).map((r) => text(r))).toEqual([
      expect.stringMatching(/^用户住在杭州 模型保存 .* 去「关于你」编辑$/),
    ])
    expect(row(container, 'u-1')!.querySelectorAll('button')).toHaveLength(1)
    expect(container.querySelector(`[aria-label="${ADD}"]`)).toBeNull()
    await click(button('去「关于你」编辑', row(container, 'u-1')!))
    expect(open).toHaveBeenCalledOnce()
  })

  it('keeps a draft edit while the user scrolls away and back and searches, and the draft holds only that item', async () => {
    const { ui, drafts } = setup(many(10_000))
    const { container } = await render(ui)
    await settle()
    const target = row(container, 'k9998')!
    await click(button('编辑', target))
    await type(field('编辑', target), '事实 9998 号，改过')
    await click(button('完成', target))
    await click(button('删除', row(container, 'k9997')!))
    expect(row(container, 'k9998')!.dataset.draft).toBe('edited')
    await scrollTo(container, 3_000 * (LIST_LAYOUT.row + 6))
    await settle()
    expect(row(container, 'k9998')).toBeNull()
    await scrollTo(container, 0)
    expect(text(row(container, 'k9998')!)).toMatch(/^事实 9998 号，改过 未保存/)
    expect(row(container, 'k9997')!.dataset.draft).toBe('removed')
    await type(field('搜索记忆', container), '9998')
    await settle(300)
    expect(rows(container).map((r) => text(r))).toEqual([expect.stringMatching(/^事实 9998 号，改过 未保存/)])
    const draft = drafts.at(-1)!
    expect([...draft.edited.keys()]).toEqual(['k9998'])
    expect([...draft.removed]).toEqual(['k9997'])
    expect(text(container)).toContain('2 条记忆有未保存的改动')
  })

  it('renders no row while the user types in the add box or the search box', async () => {
    const { ui } = setup(many(200))
    const { container } = await render(ui)
    await settle()
    const shown = rows(container).length
    expect(vi.mocked(formatTime).mock.calls.length).toBeGreaterThanOrEqual(shown)
    vi.mocked(formatTime).mockClear()
    const add = field(ADD, container)
    for (const typed of ['用', '用户', '用户住', '用户住在', '用户住在杭州']) await type(add, typed)
    const search = field('搜索记忆', container)
    for (const typed of ['事', '事实']) await type(search, typed)
    expect(vi.mocked(formatTime)).not.toHaveBeenCalled()
    // Editing one row renders that row alone.
    await click(button('置顶', row(container, 'k199')!))
    expect(vi.mocked(formatTime).mock.calls.length).toBe(1)
  })

  it('adds what the user typed, trimmed, first and marked unsaved, and empties the box', async () => {
    const { ui, drafts } = setup(many(3))
    const { container } = await render(ui)
    await settle()
    expect(button('添加', container).disabled).toBe(true)
    await type(field(ADD, container), '  住在杭州 ')
    await click(button('添加', container))
    const added = drafts.at(-1)!.added[0]!
    expect(added).toMatchObject({ text: '住在杭州', source: 'user' })
    expect(added.sessionId).toBeUndefined()
    expect(Date.now() - added.at).toBeLessThan(60_000)
    expect(text(rows(container)[0]!)).toMatch(/^住在杭州 未保存 手动添加 不属于某个对话/)
    expect(field(ADD, container).value).toBe('')
    expect(text(container)).toContain('共 4 条')
    // Deleting an added item just takes it away.
    await click(button('删除', rows(container)[0]!))
    expect(drafts.at(-1)!.added).toEqual([])
    expect(text(rows(container)[0]!)).toContain('事实 2 号')
  })

  it('refuses a duplicate (by the store rule), an over-long item and one past the limit, changing nothing', async () => {
    const { ui, drafts } = setup([{ id: 'm1', text: '项目叫 Atlas', source: 'tool', at }], 2)
    const { container } = await render(ui)
    await settle()
    const alert = (): string => text(container.querySelector('[role="alert"]') ?? document.createElement('i'))
    await type(field(ADD, container), '项目叫ＡＴＬＡＳ。')
    await click(button('添加', container))
    expect(alert()).toBe('已有同样内容的条目。')
    expect(field(ADD, container).value).toBe('项目叫ＡＴＬＡＳ。')
    await type(field(ADD, container), 'x'.repeat(LIMITS.memoryItem + 1))
    expect(container.querySelector('[role="alert"]')).toBeNull()
    await click(button('添加', container))
    expect(alert()).toBe(`记忆条目最多 ${LIMITS.memoryItem} 字，现在 ${LIMITS.memoryItem + 1} 字。`)
    await type(field(ADD, container), '第二条')
    await click(button('添加', container))
    await type(field(ADD, container), '第三条')
    await click(button('添加', container))
    expect(alert()).toBe('记忆条目最多 2 条。')
    expect(drafts).toHaveLength(1)
  })

  it('pins and unpins with a pressed-state button, and deletes an item restorably', async () => {
    const { ui, drafts } = setup([
      { id: 'm1', text: '用户对花生过敏', source: 'user', at },
      { id: 'm2', text: '项目叫 Atlas', source: 'tool', at: at + 1, pinned: true },
    ])
    const { container } = await render(ui)
    await settle()
    const pinButton = (id: string): HTMLButtonElement =>
      row(container, id)!.querySelector<HTMLButtonElement>('button[aria-pressed]')!
    expect(text(row(container, 'm2')!)).toContain('📌 已置顶')
    expect(pinButton('m2').getAttribute('aria-pressed')).toBe('true')
    expect(text(pinButton('m2'))).toBe('取消置顶')
    expect(pinButton('m1').getAttribute('aria-pressed')).toBe('false')
    await click(pinButton('m1'))
    expect(drafts.at(-1)!.edited.get('m1')).toMatchObject({ pinned: true })
    await click(pinButton('m2'))
    expect('pinned' in drafts.at(-1)!.edited.get('m2')!).toBe(false)
    await click(pinButton('m1'))
    expect(drafts.at(-1)!.edited.has('m1')).toBe(false)
    await click(button('删除', row(container, 'm1')!))
    expect(text(row(container, 'm1')!)).toContain('保存后删除')
    await click(button('恢复', row(container, 'm1')!))
    expect(drafts.at(-1)!.removed.size).toBe(0)
    expect(row(container, 'm1')!.dataset.draft).toBeUndefined()
  })
})
