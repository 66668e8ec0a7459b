import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { TurnHead } from '../../../lib/client/conversation/TurnHead.tsx'
import { QuickSwitcher } from '../../../lib/client/conversation/QuickSwitcher.tsx'
import { SettingsPage } from '../../../lib/client/settings/SettingsPage.tsx'
import type { UsedMemory } from '../../../lib/state/model.ts'
import { assistantStep, chatSession } from '../../support/chat-fixture.tsx'
import { opsHost } from '../../support/ops-host.ts'
import { button, cleanup, click, profile, render, settle, state, text } from '../../support/dom.tsx'

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
  document.body.replaceChildren()
})

const a = profile({ id: 'a', name: '通用助手', emoji: '🤖' })
const b = profile({
  id: 'b',
  name: '写作教练',
  emoji: '✍️',
  memory: { summary: '', items: [{ id: 'm-1', text: '用户叫老林', source: 'user', at: 1 }] },
})
// Turn 1 read 「用户叫小林」; the item has since been edited to 「用户叫老林」: the list says what the turn read.
const used: UsedMemory[] = [
  { id: 'm-1', text: '用户叫小林', layer: 'profile' },
  { id: 'm-2', text: '本对话在准备面试', layer: 'conversation' },
]

function hostWith(memories: Record<number, UsedMemory[]>) {
  const host = opsHost(state([a, b]))
  // Turn 1 was answered by 写作教练 (the conversation has since gone back to the default).
  host.turns['session-1'] = { 1: 'b', 2: 'a' }
  host.turnMemories['session-1'] = memories
  return host
}

/** Turn heads of turns 1 and 2 with the conversation's composer switcher beside them, as the page has them. */
async function page() {
  const chat = chatSession([assistantStep(1, 1), assistantStep(2, 1)])
  const mounted = await render(
    <ApiContext.Provider value={createApiClient()}>
      <div data-row="1">
        <TurnHead node={assistantStep(1, 1)} sessionId="session-1" useSession={chat.useSession} />
      </div>
      <div data-row="2">
        <TurnHead node={assistantStep(2, 1)} sessionId="session-1" useSession={chat.useSession} />
      </div>
      <QuickSwitcher sessionId="session-1" />
    </ApiContext.Provider>,
  )
  await settle(5)
  return mounted
}

const head = (container: HTMLElement, turn: number): HTMLElement => container.querySelector(`[data-row="${turn}"]`)!
const list = (): HTMLElement => document.querySelector<HTMLElement>('.ap-turn-memories-pop')!

describe('memories used, in the turn head', () => {
  it('says how many memories a turn used and lists exactly the recorded items, with their texts as the turn read them', async () => {
    const host = hostWith({ 1: used, 2: [] })
    const { container } = await page()
    expect(text(head(container, 1))).toBe('✍️ 写作教练 用了 2 条记忆')
    // A turn that carried none says nothing about memory.
    expect(text(head(container, 2))).toBe('🤖 通用助手')
    expect(host.calls.filter((c) => c.path.includes('?turn='))).toEqual([])
    await click(button('用了 2 条记忆', head(container, 1)))
    expect(
      [...list().querySelectorAll('.ap-turn-memory')].map((li) => [
        li.getAttribute('data-layer'),
        text(li.querySelector('.ap-turn-memory-text')!),
      ]),
    ).toEqual([
      ['profile', '用户叫小林'],
      ['conversation', '本对话在准备面试'],
    ])
    expect(text(list())).toContain('在设置中编辑')
    expect(text(list())).toContain('在 ⚙ 面板中编辑')
    expect(host.calls.filter((c) => c.path.includes('?turn=')).map((c) => c.path)).toEqual([
      '/__ap/turns/session-1?turn=1',
    ])
  })

  it('lists the items recall brought back before the core ones, marked as recalled with the day they were saved', async () => {
    const savedAt = Date.UTC(2024, 2, 3, 4, 5)
    hostWith({
      1: [
        { id: 'u-7', text: '用户住在杭州', layer: 'user', recalled: true, at: savedAt },
        ...used,
        { id: 'm-9', text: '用户的猫叫团子', layer: 'profile', recalled: true, at: savedAt },
      ],
    })
    const { container } = await page()
    expect(text(head(container, 1))).toBe('✍️ 写作教练 用了 4 条记忆')
    await click(button('用了 4 条记忆', head(container, 1)))
    const rows = [...list().querySelectorAll<HTMLElement>('.ap-turn-memory')]
    // What this turn alone brought first (the core is the same every turn), then the core.
    expect(rows.map((li) => [li.dataset.layer, li.hasAttribute('data-recalled')])).toEqual([
      ['user', true],
      ['profile', true],
      ['profile', false],
      ['conversation', false],
    ])
    expect(text(rows[2]!)).not.toContain('回忆')
    expect(text(rows[0]!.querySelector('.ap-turn-memory-text')!)).toMatch(
      /^回忆 用户住在杭州 （2024\/3\/3 \d\d:05 记下）$/,
    )
    expect(rows[0]!.querySelector('time')!.getAttribute('dateTime')).toBe(new Date(savedAt).toISOString())
    // The same links as the core's: a user-layer fact to About you, a profile's to its memory.
    expect(text(rows[0]!)).toContain('在设置中编辑')
    expect(text(rows[1]!)).toContain('在设置中编辑')
  })

  it('marks a recalled item in English too', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      hostWith({
        1: [
          ...used,
          { id: 'm-9', text: 'The cat is called Tuanzi', layer: 'profile', recalled: true, at: Date.UTC(2024, 2, 3) },
        ],
      })
      const { container } = await page()
      await click(button('3 memories used', head(container, 1)))
      const recalled = list().querySelector<HTMLElement>('[data-recalled]')!
      expect(text(recalled)).toMatch(/^Recalled The cat is called Tuanzi \(saved .+\) Edit in settings$/)
      expect(recalled.querySelector('.ap-badge')!.getAttribute('title')).toContain('Brought back from memory')
    } finally {
      unbind()
    }
  })

  it("a conversation item links to this conversation's ⚙ panel", async () => {
    hostWith({ 1: used })
    const { container } = await page()
    expect(document.querySelector('.ap-panel-pop')).toBeNull()
    await click(button('用了 2 条记忆', head(container, 1)))
    await click(button('在 ⚙ 面板中编辑', list().querySelector<HTMLElement>('[data-layer="conversation"]')!))
    await settle()
    expect(document.querySelector('.ap-turn-memories-pop')).toBeNull()
    expect(text(document.querySelector<HTMLElement>('.ap-panel-pop')!)).toContain('本对话专属记忆')
  })

  it("a profile item opens the host's settings on this page, at that profile's memory", async () => {
    hostWith({ 1: used })
    const { container } = await page()
    // The host's sidebar trigger and, once it is clicked, its settings dialog with this page's entry.
    const opened: string[] = []
    const trigger = document.createElement('button')
    trigger.innerHTML = '<span data-slot="settings.trigger">Settings</span>'
    trigger.onclick = () => {
      opened.push('dialog')
      const dialog = document.createElement('div')
      dialog.setAttribute('role', 'dialog')
      const entry = document.createElement('button')
      entry.textContent = '智能体配置'
      entry.onclick = () => {
        opened.push('page')
      }
      dialog.append(entry)
      document.body.append(dialog)
    }
    document.body.append(trigger)
    await click(button('用了 2 条记忆', head(container, 1)))
    await click(button('在设置中编辑', list().querySelector<HTMLElement>('[data-layer="profile"]')!))
    await vi.waitFor(() => expect(opened).toEqual(['dialog', 'page']))
    // The page the entry shows: the profile that answered the turn (not the default), on its memory section.
    const settings = await render(
      <ApiContext.Provider value={createApiClient()}>
        <SettingsPage />
      </ApiContext.Provider>,
    )
    await settle(5)
    const selectedTabs = [...settings.container.querySelectorAll('[role="tab"][aria-selected="true"]')].map((tab) =>
      text(tab as HTMLElement),
    )
    expect(selectedTabs).toEqual(['配置', '记忆'])
    expect(
      settings.container
        .querySelector('.ap-list-item[aria-current="true"], .ap-list-item[aria-selected="true"]')
        ?.getAttribute('data-profile-id'),
    ).toBe('b')
    expect(text(settings.container)).toContain('用户叫老林')
  })

  it('speaks English when the host does', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      hostWith({ 1: used })
      const { container } = await page()
      expect(text(head(container, 1))).toBe('✍️ 写作教练 2 memories used')
      await click(button('2 memories used', head(container, 1)))
      expect(text(list())).toContain('Memories this turn used')
      expect(text(list())).toContain('Edit in settings')
      expect(text(list())).toContain('Edit in the ⚙ panel')
    } finally {
      unbind()
    }
  })
})
