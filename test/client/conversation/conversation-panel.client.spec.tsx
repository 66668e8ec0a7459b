import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { ConversationPanel } from '../../../lib/client/conversation/ConversationPanel.tsx'
import { panelDraftKey, panelPatch } from '../../../lib/client/conversation/use-panel.ts'
import { keepSurfaceDraft, keepTyped } from '../../../lib/client/common/editing.ts'
import { addItem, editItem, NO_EDITS } from '../../../lib/client/common/memory-draft.ts'
import { LIMITS, type MemoryItem } from '../../../lib/state/model.ts'
import { opsHost } from '../../support/ops-host.ts'
import {
  button,
  cleanup,
  click,
  field,
  memoryItem,
  onCommandArrival,
  pressEscape,
  profile,
  render,
  settle,
  state,
  text,
  type,
} from '../../support/dom.tsx'

afterEach(async () => {
  await cleanup()
  // A draft a failed test left open must not become the next test's (drafts outlive the panel, see surface-draft.ts).
  keepSurfaceDraft(panelDraftKey('session-1'), undefined)
  keepTyped(panelDraftKey('session-1'), undefined)
  vi.unstubAllGlobals()
})

const a = profile({ id: 'a', name: '通用助手', emoji: '🤖' })
const b = profile({ id: 'b', name: '写作教练', emoji: '✍️' })
/** A memory item of this conversation. */
const item = (id: string, text: string, over: Partial<MemoryItem> = {}): MemoryItem =>
  memoryItem(id, text, { sessionId: 'session-1', ...over })

async function mount(onClose = vi.fn()) {
  const client = createApiClient()
  await render(
    <ApiContext.Provider value={client}>
      <ConversationPanel sessionId="session-1" anchor={null} onClose={onClose} />
    </ApiContext.Provider>,
  )
  await settle()
  return { client, onClose }
}

const dialog = (): HTMLElement => document.querySelector<HTMLElement>('[role="dialog"]')!
const note = (): HTMLTextAreaElement => field('本对话补充设定', dialog())
const status = (): string =>
  text(dialog().querySelector('[role="status"]:not([data-ap-live-off]), [role="alert"]') ?? document.createElement('i'))

const escape = (): Promise<void> => pressEscape(document.activeElement ?? document)
const question = (): HTMLElement | null => document.querySelector<HTMLElement>('[role="alertdialog"]')

describe('ConversationPanel keeps its draft', () => {
  it('asks on Escape before dropping an edit, keeps it while closed, and drops it only when told', async () => {
    opsHost(state([a, b], { 'session-1': { profileId: null, note: '', memories: [] } }))
    const first = await mount()
    await type(note(), '只用英文回答')
    note().focus()
    await escape()
    expect(text(question()!)).toBe('本对话设定有未保存的修改，确定放弃吗？ 取消 放弃修改')
    await click(button('取消', question()!))
    expect(first.onClose).not.toHaveBeenCalled()
    expect(note().value).toBe('只用英文回答')
    // Closed another way (the ⚙ button toggles the panel off): the draft waits for the next opening.
    await cleanup()
    const second = await mount()
    expect(note().value).toBe('只用英文回答')
    expect(text(dialog())).toContain('有未保存的修改')
    note().focus()
    await escape()
    await click(button('放弃修改', question()!))
    expect(second.onClose).toHaveBeenCalledTimes(1)
    await cleanup()
    await mount()
    expect(note().value).toBe('')
  })

  it('asks on Escape before dropping a fact typed in the add box and not yet added', async () => {
    opsHost(state([a, b], { 'session-1': { profileId: null, note: '', memories: [] } }))
    const first = await mount()
    const box = (): HTMLTextAreaElement => field('写下一条要长期记住的事实', dialog())
    await type(box(), '用户在学德语')
    box().focus()
    await escape()
    expect(text(question()!)).toBe('本对话设定有未保存的修改，确定放弃吗？ 取消 放弃修改')
    await click(button('取消', question()!))
    expect(first.onClose).not.toHaveBeenCalled()
    expect(box().value).toBe('用户在学德语')
    // Closed another way: the typed text waits for the next opening.
    await cleanup()
    const second = await mount()
    expect(box().value).toBe('用户在学德语')
    box().focus()
    await escape()
    await click(button('放弃修改', question()!))
    expect(second.onClose).toHaveBeenCalledTimes(1)
    await cleanup()
    await mount()
    expect(box().value).toBe('')
  })

  it('marks the memories the draft added as unsaved', async () => {
    opsHost(state([a, b], { 'session-1': { profileId: null, note: '', memories: [item('m1', '只谈第三章')] } }))
    await mount()
    await type(field('写下一条要长期记住的事实', dialog()), '用户在学德语')
    await click(button('添加', dialog()))
    const rows = [...dialog().querySelectorAll('.ap-memory-item')]
    // The draft's addition comes first (the list is newest first), marked; the saved item is not.
    expect(rows.map((r) => r.getAttribute('data-draft'))).toEqual(['added', null])
    expect(text(rows[0]!)).toContain('未保存')
    expect(text(rows[1]!)).not.toContain('未保存')
    await click(button('放弃修改', dialog()))
  })

  it('a draft of memories alone, kept while closed, shows the note as saved since and never sends it', async () => {
    const host = opsHost(state([a, b], { 'session-1': { profileId: null, note: '只用中文回答', memories: [] } }))
    await mount()
    await type(field('写下一条要长期记住的事实', dialog()), '用户在学德语')
    await click(button('添加', dialog()))
    await cleanup()
    // Another tab changes the note while the panel is closed.
    host.state = {
      ...host.state,
      sessions: { 'session-1': { ...host.state.sessions['session-1']!, note: '只用英文回答' } },
    }
    await mount()
    expect(note().value).toBe('只用英文回答')
    expect(dialog().querySelector('[data-draft="added"]')?.textContent).toContain('用户在学德语')
    await click(button('保存', dialog()))
    expect(host.commands()).toEqual([
      { op: 'session.set', sessionId: 'session-1', patch: { memories: [{ text: '用户在学德语' }], basedOn: [] } },
    ])
    expect(host.state.sessions['session-1']!.note).toBe('只用英文回答')
  })

  it('a note the user edited stays theirs when the saved note changes meanwhile', async () => {
    const host = opsHost(state([a, b], { 'session-1': { profileId: null, note: '只用中文回答', memories: [] } }))
    await mount()
    await type(note(), '只谈第三章')
    await cleanup()
    host.state = {
      ...host.state,
      sessions: { 'session-1': { ...host.state.sessions['session-1']!, note: '只用英文回答' } },
    }
    await mount()
    expect(note().value).toBe('只谈第三章')
    await click(button('保存', dialog()))
    expect(host.commands()).toEqual([{ op: 'session.set', sessionId: 'session-1', patch: { note: '只谈第三章' } }])
  })
})

describe('ConversationPanel', () => {
  it("lists the profile's suggestions, read whole only because its head says some wait, and approves one", async () => {
    const asks = profile({
      id: 'a',
      name: '通用助手',
      memoryMode: 'ask',
      memory: { summary: '', items: [item('s1', '用户喜欢乌龙茶', { source: 'tool', pending: true })] },
    })
    const host = opsHost(state([asks, b], { 'session-1': { profileId: null, note: '', memories: [] } }))
    await mount()
    expect(host.calls.filter((c) => c.path === '/__ap/profile/a')).toHaveLength(1)
    expect(text(dialog())).toContain('用户喜欢乌龙茶')
    await click(dialog().querySelector('[aria-label="批准「用户喜欢乌龙茶」"]')!)
    await settle()
    expect(host.state.profiles[0]!.memory.items).toEqual([
      expect.objectContaining({ id: 's1', text: '用户喜欢乌龙茶' }),
    ])
    expect(host.state.profiles[0]!.memory.items[0]).not.toHaveProperty('pending')
    // Approved: the head says none wait, the suggestion is gone, and the profile is not read again for it.
    expect(text(dialog())).not.toContain('用户喜欢乌龙茶')
    expect(host.calls.filter((c) => c.path === '/__ap/profile/a')).toHaveLength(1)
  })

  it('reads no profile whole when none of its memory awaits approval', async () => {
    const host = opsHost(state([a, b], { 'session-1': { profileId: null, note: '', memories: [] } }))
    await mount()
    expect(host.calls.some((c) => c.path.startsWith('/__ap/profile/'))).toBe(false)
  })

  it('shows which profile the conversation uses, its note and its own memories', async () => {
    opsHost(
      state([a, b], {
        'session-1': {
          profileId: 'b',
          note: '只用中文回答',
          memories: [item('m1', '用户在写一本小说', { source: 'tool' })],
        },
      }),
    )
    await mount()
    expect(text(dialog())).toContain('本对话固定使用「写作教练」')
    expect(note().value).toBe('只用中文回答')
    expect(text(dialog())).toContain(`本对话补充设定 6 / ${LIMITS.note}`)
    expect(text(dialog())).toContain('本对话专属记忆 只在这个对话里注入')
    expect(text(dialog())).toContain('共 1 条')
    expect(text(dialog())).toContain('用户在写一本小说 模型保存')
  })

  it('saves the note and a new memory together, for this conversation only, and confirms it', async () => {
    // Pinned: the confirmation still speaks of what was saved, not of the pin.
    const host = opsHost(state([a, b], { 'session-1': { profileId: 'b', note: '', memories: [] } }))
    await mount()
    expect(text(dialog())).toContain('本对话固定使用「写作教练」')
    expect(button('保存', dialog()).disabled).toBe(true)
    await type(note(), '这个对话里一律用英文回答')
    await type(field('写下一条要长期记住的事实', dialog()), '用户的项目叫 Atlas')
    await click(button('添加', dialog()))
    expect(text(dialog())).toContain('本对话专属记忆 只在这个对话里注入')
    expect(text(dialog())).toContain('共 1 条')
    await click(button('保存', dialog()))
    expect(host.commands()).toEqual([
      {
        op: 'session.set',
        sessionId: 'session-1',
        patch: { note: '这个对话里一律用英文回答', memories: [{ text: '用户的项目叫 Atlas' }], basedOn: [] },
      },
    ])
    const saved = host.state.sessions['session-1']!
    expect(saved.note).toBe('这个对话里一律用英文回答')
    expect(saved.memories.map((m) => [m.text, m.source, m.sessionId])).toEqual([
      ['用户的项目叫 Atlas', 'user', 'session-1'],
    ])
    expect(host.state.sessions['session-2']).toBeUndefined()
    expect(status()).toBe('本对话的设定已保存，下一轮起生效')
    expect(button('保存', dialog()).disabled).toBe(true)
  })

  it('edits and deletes memories, and keeps one the model saved while the user was editing', async () => {
    const host = opsHost(
      state([a], {
        'session-1': { profileId: null, note: '', memories: [item('m1', '旧的事实'), item('m2', '要删的事实')] },
      }),
    )
    await mount()
    const row = (id: string): HTMLElement => dialog().querySelector<HTMLElement>(`[data-item-id="${id}"]`)!
    await click(button('编辑', row('m1')))
    await type(field('编辑', row('m1')), '改过的事实')
    await click(button('完成', row('m1')))
    await click(button('删除', row('m2')))
    // Marked in the list until saved: the edit as unsaved, the deletion struck through and restorable.
    expect(row('m1').dataset.draft).toBe('edited')
    expect(text(row('m1'))).toContain('未保存')
    expect(row('m2').dataset.draft).toBe('removed')
    expect(text(row('m2'))).toContain('保存后删除')
    // The memory_save tool stores a fact in this conversation just before the save reaches the host: no reload
    // in the browser could have seen it, so only the host can keep it.
    onCommandArrival(() => {
      const s = host.state.sessions['session-1']!
      host.state = {
        ...host.state,
        sessions: {
          'session-1': { ...s, memories: [...s.memories, item('m9', '模型刚存的事实', { source: 'tool' })] },
        },
      }
    })
    await click(button('保存', dialog()))
    expect(host.commands()).toEqual([
      {
        op: 'session.set',
        sessionId: 'session-1',
        patch: { memories: [{ id: 'm1', text: '改过的事实' }], basedOn: ['m1', 'm2'] },
      },
    ])
    expect(host.state.sessions['session-1']!.memories.map((m) => [m.text, m.source])).toEqual([
      ['改过的事实', 'user'],
      ['模型刚存的事实', 'tool'],
    ])
    // The panel now shows what was saved, the tool's fact included.
    expect(text(dialog())).toContain('共 2 条')
    expect(text(dialog())).toContain('模型刚存的事实')
  })

  it('refuses a duplicate or oversized memory before anything is sent', async () => {
    const host = opsHost(
      state([a], { 'session-1': { profileId: null, note: '', memories: [item('m1', '用户喜欢简短的回答')] } }),
    )
    await mount()
    await type(field('写下一条要长期记住的事实', dialog()), '  用户喜欢简短的回答 ')
    await click(button('添加', dialog()))
    expect(text(dialog().querySelector('[role="alert"]')!)).toBe('已有同样内容的条目。')
    await type(field('写下一条要长期记住的事实', dialog()), 'x'.repeat(LIMITS.memoryItem + 1))
    await click(button('添加', dialog()))
    expect(text(dialog().querySelector('[role="alert"]')!)).toBe(
      `记忆条目最多 ${LIMITS.memoryItem} 字，现在 ${LIMITS.memoryItem + 1} 字。`,
    )
    await type(note(), 'y'.repeat(LIMITS.note + 1))
    expect(button('保存', dialog()).disabled).toBe(true)
    expect(host.commands()).toEqual([])
  })

  it("clears this conversation's settings after asking", async () => {
    const host = opsHost(
      state([a, b], {
        'session-1': { profileId: 'b', note: '只用中文', memories: [item('m1', '事实一')] },
        'session-2': { profileId: 'b', note: '', memories: [] },
      }),
    )
    await mount()
    await click(button('清除本对话设定', dialog()))
    const ask = document.querySelector('[role="alertdialog"]')!
    expect(text(ask)).toContain('1 条专属记忆')
    await click(button('清除本对话设定', ask as HTMLElement))
    expect(host.commands()).toEqual([{ op: 'session.clear', sessionId: 'session-1' }])
    expect(host.state.sessions).toEqual({ 'session-2': { profileId: 'b', note: '', memories: [] } })
    expect(note().value).toBe('')
    expect(status()).toBe('本对话已改回跟随默认配置')
    expect(text(dialog())).toContain('本对话跟随默认配置「通用助手」')
  })

  it('refresh memory stamps this conversation and keeps the draft being typed', async () => {
    const host = opsHost(
      state([a], { 'session-1': { profileId: null, note: '旧的补充', memories: [item('m1', '事实一')] } }),
    )
    await mount()
    await type(note(), '还没保存的补充')
    await click(button('刷新记忆', dialog()))
    expect(host.commands()).toEqual([{ op: 'session.refreshMemory', sessionId: 'session-1' }])
    expect(host.state.sessions['session-1']).toMatchObject({ note: '旧的补充', memoryRefreshedAt: 1_700_000_100_000 })
    expect(status()).toBe('本对话下一轮起使用最新的记忆')
    expect(note().value).toBe('还没保存的补充')
  })

  it('asks before closing over unsaved changes, and closes straight away otherwise', async () => {
    opsHost(state([a]))
    const { onClose } = await mount()
    await type(note(), '草稿')
    await click(button('关闭', dialog()))
    expect(onClose).not.toHaveBeenCalled()
    await click(button('取消', document.querySelector<HTMLElement>('[role="alertdialog"]')!))
    expect(note().value).toBe('草稿')
    await click(button('放弃修改', dialog()))
    await click(button('关闭', dialog()))
    expect(onClose).toHaveBeenCalledOnce()
  })
})

describe('panelPatch', () => {
  it('sends only what changed', () => {
    const base = { note: 'n', memories: NO_EDITS }
    expect(panelPatch(base, base)).toEqual({})
    expect(panelPatch(base, { ...base, note: 'm' })).toEqual({ note: 'm' })
    const memories = addItem(editItem(NO_EDITS, item('m1', 'x'), { text: 'y' }), item('draft-1', '新的'))
    expect(panelPatch(base, { ...base, memories })).toEqual({
      memories: [{ id: 'm1', text: 'y' }, { text: '新的' }],
      basedOn: ['m1'],
    })
  })
})
