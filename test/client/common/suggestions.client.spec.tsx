import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { QuickSwitcher } from '../../../lib/client/conversation/QuickSwitcher.tsx'
import { MemoryUpdates } from '../../../lib/client/conversation/MemoryUpdates.tsx'
import { opsHost, type OpsHost } from '../../support/ops-host.ts'
import { button, cleanup, click, field, profile, render, settle, state, text, type } from '../../support/dom.tsx'

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
  localStorage.clear()
})

const SID = 'session-1'

/** An ask-first profile after the job suggested two facts and the tool one, all from this conversation. */
async function asked(): Promise<{ host: OpsHost; client: ReturnType<typeof createApiClient> }> {
  const host = opsHost(state([profile({ id: 'a', memoryMode: 'ask' })]))
  const client = createApiClient()
  await client.command('memory.add', {
    target: { profileId: 'a' },
    items: [
      { text: '用户住在杭州', source: 'auto', sessionId: SID },
      { text: '用户在学德语', source: 'auto', sessionId: SID },
    ],
  })
  await client.command('memory.add', {
    target: { profileId: 'a' },
    items: [{ text: '用户喜欢乌龙茶', source: 'tool', sessionId: SID }],
  })
  return { host, client }
}
const items = (host: OpsHost) => host.state.profiles[0]!.memory.items.map((it) => [it.text, it.pending ?? false])

describe('suggestions under ask-first mode', () => {
  it('the switcher counts them, the ⚙ panel approves, edits and rejects them', async () => {
    const { host, client } = await asked()
    expect(items(host)).toEqual([
      ['用户住在杭州', true],
      ['用户在学德语', true],
      ['用户喜欢乌龙茶', true],
    ])
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <QuickSwitcher sessionId={SID} />
      </ApiContext.Provider>,
    )
    await settle()
    expect(text(container.querySelector('[data-ap-pending]')!)).toBe('待批准 3')
    await click(container.querySelector<HTMLButtonElement>('.ap-switcher-gear')!)
    const dialog = document.querySelector<HTMLElement>('[role="dialog"]')!
    expect(text(dialog)).toContain('待批准的建议（3）')
    await click(button('批准', dialog.querySelector('[data-ap-suggestion]')!))
    await click(button('修改', dialog.querySelector('[data-ap-suggestion]')!))
    await type(field('修改这条建议', dialog), '用户在学德语，准备去柏林')
    await click(button('批准', dialog.querySelector('[data-ap-suggestion]')!))
    await click(button('拒绝', dialog.querySelector('[data-ap-suggestion]')!))
    await settle()
    expect(items(host)).toEqual([
      ['用户住在杭州', false],
      ['用户在学德语，准备去柏林', false],
    ])
    expect(container.querySelector('[data-ap-pending]')).toBeNull()
    expect(
      host
        .commands()
        .filter((c) => c.op === 'memory.approve')
        .map((c) => c.sessionId),
    ).toEqual([SID, SID])
  })

  it('the "memory updated" row offers approve, edit and reject for each suggested fact', async () => {
    const { host, client } = await asked()
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <MemoryUpdates sessionId={SID} />
      </ApiContext.Provider>,
    )
    await settle()
    const facts = [...container.querySelectorAll('[data-ap-fact]')]
    expect(facts.map((f) => f.getAttribute('data-pending'))).toEqual(['true', 'true'])
    expect(text(facts[0]!)).toBe('用户住在杭州 待批准 批准 修改 拒绝')
    await click(container.querySelector<HTMLButtonElement>('[aria-label="拒绝「用户住在杭州」"]')!)
    await click(container.querySelector<HTMLButtonElement>('[aria-label="批准「用户在学德语」"]')!)
    await settle()
    expect(items(host)).toEqual([
      ['用户在学德语', false],
      ['用户喜欢乌龙茶', true],
    ])
  })
})
