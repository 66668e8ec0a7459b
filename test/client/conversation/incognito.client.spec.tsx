import { describe, expect, it } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { QuickSwitcher } from '../../../lib/client/conversation/QuickSwitcher.tsx'
import { opsHost } from '../../support/ops-host.ts'
import { click, field, profile, render, settle, state, text } from '../../support/dom.tsx'

describe('incognito from the ⚙ panel', () => {
  it('turns on at once from a checkbox, the switcher shows it, and it turns off again', async () => {
    const host = opsHost(state([profile({ id: 'a' })]))
    const client = createApiClient()
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <QuickSwitcher sessionId="session-1" />
      </ApiContext.Provider>,
    )
    await settle()
    expect(container.querySelector('[data-ap-incognito]')).toBeNull()
    await click(container.querySelector<HTMLButtonElement>('.ap-switcher-gear')!)
    const dialog = document.querySelector<HTMLElement>('[role="dialog"]')!
    const box = field('无痕：本对话不写入记忆', dialog)
    expect(box.checked).toBe(false)
    await click(box)
    await settle()
    expect(host.state.sessions['session-1']).toMatchObject({ incognito: true })
    expect(host.commands().at(-1)).toEqual({ op: 'session.set', sessionId: 'session-1', patch: { incognito: true } })
    expect(text(dialog.querySelector('[role="status"]:not([data-ap-live-off])')!)).toBe(
      '本对话已开启无痕：仍会读取记忆，但不再写入任何记忆',
    )
    expect(field('无痕：本对话不写入记忆', dialog).checked).toBe(true)
    const badge = container.querySelector('[data-ap-incognito]')!
    expect(text(badge)).toBe('无痕')
    expect(badge.getAttribute('title')).toBe('本对话开启了无痕：读取记忆，但不写入任何记忆')
    await click(field('无痕：本对话不写入记忆', dialog))
    await settle()
    expect(host.state.sessions['session-1']).toBeUndefined()
    expect(container.querySelector('[data-ap-incognito]')).toBeNull()
  })
})
