import { describe, expect, it } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { MemoryHistory } from '../../../lib/client/common/MemoryHistory.tsx'
import { opsHost, type OpsHost } from '../../support/ops-host.ts'
import { button, click, profile, render, settle, state, text } from '../../support/dom.tsx'
import type { MemoryTarget } from '../../../lib/shared/memory-target.ts'
import { SessionTitles, type UseSessions } from '../../../lib/client/common/session-titles.tsx'

/** The fake host after a user add, a tool save from a conversation and a compression. */
async function seeded(): Promise<{ host: OpsHost; client: ReturnType<typeof createApiClient> }> {
  const host = opsHost(state([profile({ id: 'a' })]))
  const client = createApiClient()
  await client.command('memory.add', { target: { profileId: 'a' }, items: [{ text: '用户叫小林' }] })
  await client.command('memory.add', {
    target: { profileId: 'a' },
    items: [{ text: '用户喜欢 Rust', source: 'tool', sessionId: 'session-3f2a9c1e' }],
  })
  await client.command('memory.add', {
    target: { profileId: 'a' },
    items: [{ text: '用户住在杭州', source: 'auto', sessionId: 'session-3f2a9c1e' }],
  })
  return { host, client }
}

const reads = (host: OpsHost) => host.histories().length

async function mount(
  host: OpsHost,
  client: ReturnType<typeof createApiClient>,
  target: MemoryTarget,
  disabled = false,
  useSessions?: UseSessions,
) {
  const m = await render(
    <ApiContext.Provider value={client}>
      <SessionTitles useSessions={useSessions}>
        <MemoryHistory target={target} disabled={disabled} />
      </SessionTitles>
    </ApiContext.Provider>,
  )
  await settle()
  // Folded until opened: nothing is read before.
  expect(reads(host)).toBe(0)
  const details = m.container.querySelector('details')!
  details.open = true
  details.dispatchEvent(new Event('toggle'))
  await settle()
  return m
}

const entries = (root: ParentNode) => [...root.querySelectorAll('[data-history-id]')].map((el) => text(el))
const items = (host: OpsHost) => host.state.profiles[0]!.memory.items.map((it) => it.text)

describe('MemoryHistory', () => {
  it('lists each write newest first with who, which conversation and what it added', async () => {
    const { host, client } = await seeded()
    const { container } = await mount(host, client, { profileId: 'a' })
    const shown = entries(container)
    expect(shown).toHaveLength(3)
    expect(shown[0]).toMatch(/^自动提取 .* 来自对话 3f2a9c1e ⚡ 撤销这次改动 新增 用户住在杭州$/)
    expect(shown[1]).toContain('模型保存')
    expect(shown[2]).toMatch(/^手动修改 .* 新增 用户叫小林$/)
  })

  it('reverts the entry chosen, keeps what was saved after it, and marks it reverted', async () => {
    const { host, client } = await seeded()
    const { container } = await mount(host, client, { profileId: 'a' })
    const toolEntry = container.querySelectorAll('[data-history-id]')[1]!
    await click(button('撤销这次改动', toolEntry))
    await settle()
    expect(items(host)).toEqual(['用户叫小林', '用户住在杭州'])
    expect(text(container.querySelector('[role="status"]')!)).toBe('已撤销 1 处记忆改动')
    const shown = entries(container)
    expect(shown[0]).toMatch(/^撤销 .* 删除 用户喜欢 Rust$/)
    expect(shown[2]).toContain('已撤销过')
    expect(host.commands().find((c) => c.op === 'memory.revert')).toMatchObject({ target: { profileId: 'a' } })
  })

  it("shows a conversation's own list, and disables reverts while the list has unsaved edits", async () => {
    const { host, client } = await seeded()
    await client.command('memory.add', { target: { sessionId: 'session-9' }, items: [{ text: '只谈第三章' }] })
    const { container } = await mount(host, client, { sessionId: 'session-9' }, true)
    expect(entries(container)).toHaveLength(1)
    expect(entries(container)[0]).toContain('新增 只谈第三章')
    expect(button('撤销这次改动', container).disabled).toBe(true)
  })

  it('names each revert after its entry, says it acts at once, and names a conversation by its title', async () => {
    const { host, client } = await seeded()
    const list = { byId: { 'session-3f2a9c1e': { title: '周末去杭州的计划' } } }
    const useSessions: UseSessions = (selector) => selector(list)
    const { container } = await mount(host, client, { profileId: 'a' }, false, useSessions)
    const names = [...container.querySelectorAll('[data-history-id] button')].map((b) => b.getAttribute('aria-label'))
    expect(names).toHaveLength(3)
    expect(new Set(names).size).toBe(3)
    expect(names[0]).toMatch(/^撤销这次改动（自动提取 · .+）$/)
    expect(names[2]).toMatch(/^撤销这次改动（手动修改 · .+）$/)
    expect(text(container)).toContain('撤销立即生效，不需要保存。')
    expect(entries(container)[0]).toContain('来自对话「周末去杭州的计划」')
    expect(text(container)).not.toContain('3f2a9c1e')
  })

  it('says why its reverts are off while the list above has unsaved edits', async () => {
    const { host, client } = await seeded()
    const { container } = await mount(host, client, { profileId: 'a' }, true)
    expect(text(container)).toContain('上面有未保存的修改：先保存或放弃，才能撤销历史里的改动。')
  })

  it.each([
    ['a profile', { profileId: 'a' }],
    ["a conversation's own memories", { sessionId: 'session-1' }],
    ['About you', { user: true }],
  ] as [string, MemoryTarget][])(
    'shows no heading for %s until a change is recorded, and never renders memory text as markup',
    async (_what, target) => {
      const host = opsHost(state([profile({ id: 'a' })]))
      const client = createApiClient()
      await client.refresh()
      // What the page holding the list has read: the profile whole, the conversation, the user layer.
      if ('sessionId' in target) await client.loadConversation(target.sessionId)
      if ('user' in target) await client.loadUser()
      const { container } = await render(
        <ApiContext.Provider value={client}>
          <MemoryHistory target={target} />
        </ApiContext.Provider>,
      )
      await settle()
      // Nothing recorded yet: no "改动记录" heading that opens on nothing.
      expect(container.querySelector('details')).toBeNull()
      expect(text(container)).toBe('')
      await client.command('memory.add', { target, items: [{ text: '<img src=x onerror="window.__pwned=1">' }] })
      if ('sessionId' in target) await client.loadConversation(target.sessionId)
      if ('user' in target) await client.loadUser()
      await settle()
      const details = container.querySelector('details')!
      expect(text(details.querySelector('summary')!)).toBe('改动记录')
      expect(reads(host)).toBe(0)
      details.open = true
      details.dispatchEvent(new Event('toggle'))
      await settle()
      expect(container.querySelector('img')).toBeNull()
      expect(text(container)).toContain('<img src=x')
      expect(reads(host)).toBe(1)
    },
  )
})
