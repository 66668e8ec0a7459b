/**
 * The pasted list in the settings page's import section (lib/client/settings/learn/PasteFacts.tsx), with real React:
 * the list goes to About you by default or to the profile chosen, with its origin worded in the page's language, and
 * the page says how many facts came in; a refusal is said in words; an empty box sends nothing.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { act } from 'react'
import { ApiContext, createApiClient } from '../../../../lib/client/data/api.ts'
import { ImportExport } from '../../../../lib/client/settings/ImportExport.tsx'
import { bindLocale } from '../../../../lib/client/copy/locales.ts'
import { button, cleanup, click, field, profile, render, state, text, type, wireOf } from '../../../support/dom.tsx'
import { opsHost, type OpsHost } from '../../../support/ops-host.ts'

let unbind = (): void => {}
afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
  unbind()
})

async function mount(): Promise<{ host: OpsHost; container: HTMLElement }> {
  const s = state([profile({ id: 'general', name: '通用助手' }), profile({ id: 'coder', name: '程序员' })])
  const host = opsHost(s)
  const client = createApiClient()
  await client.refresh()
  const { container } = await render(
    <ApiContext.Provider value={client}>
      <ImportExport state={wireOf(s)} />
    </ApiContext.Provider>,
  )
  return { host, container }
}

const pastes = (host: OpsHost) =>
  host.calls
    .filter((c) => c.path === '/__ap/command' && (c.body as { op?: string }).op === 'memory.paste')
    .map((c) => c.body)

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value
    select.dispatchEvent(new Event('change', { bubbles: true }))
  })
}

describe('pasting a list of facts', () => {
  it('adds the list to About you, from ChatGPT, and says how many facts came in', async () => {
    const { host, container } = await mount()
    const add = button('添加这些事实', container)
    expect(add.disabled).toBe(true)
    await type(field('要添加的事实，每行一条', container), '• 住在青岛\n• 对花生过敏')
    await click(add)
    expect(pastes(host)).toEqual([
      { op: 'memory.paste', target: { user: true }, text: '• 住在青岛\n• 对花生过敏', origin: '粘贴，ChatGPT' },
    ])
    expect(text(container.querySelector('[role="status"]')!)).toMatch(/2/)
    expect(field('要添加的事实，每行一条', container).value).toBe('')
  })

  it('adds it to the chosen profile, with the origin in English on an English page', async () => {
    unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    const { host, container } = await mount()
    const selects = container.querySelectorAll<HTMLSelectElement>('.ap-learn-paste select')
    await choose(selects[0]!, 'claude')
    await choose(selects[1]!, 'coder')
    await type(field('Facts to add, one a line', container), 'Has a cat')
    await click(button('Add these facts', container))
    expect(pastes(host)).toEqual([
      { op: 'memory.paste', target: { profileId: 'coder' }, text: 'Has a cat', origin: 'pasted, Claude' },
    ])
  })

  it('says a refusal in words and keeps the list', async () => {
    const { host, container } = await mount()
    host.failNext((c) => c.path === '/__ap/command', {
      status: 400,
      body: { error: { code: 'invalid', message: 'text: has no line with a fact', field: 'text' } },
    })
    await type(field('要添加的事实，每行一条', container), '•')
    await click(button('添加这些事实', container))
    expect(container.querySelector('[role="alert"]')).not.toBeNull()
    expect(field('要添加的事实，每行一条', container).value).toBe('•')
  })
})
