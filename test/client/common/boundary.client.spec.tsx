import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApBoundary, guard } from '../../../lib/client/common/boundary.tsx'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { button, cleanup, click, render, text } from '../../support/dom.tsx'

let failing = true
function Fragile({ label }: { label: string }) {
  if (failing) throw new Error('profiles is undefined')
  return <span>{label} ok</span>
}

afterEach(async () => {
  await cleanup()
  failing = true
  vi.restoreAllMocks()
})

describe('ApBoundary', () => {
  it('shows the error message, its title and the stack instead of a blank area, and leaves siblings alone', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { container } = await render(
      <div>
        <ApBoundary label="SettingsPage">
          <Fragile label="x" />
        </ApBoundary>
        <p>sibling still here</p>
      </div>,
    )
    const alert = container.querySelector('[role="alert"]')!
    expect(text(alert)).toContain('这部分界面出错了 (SettingsPage)')
    expect(text(alert)).toContain('profiles is undefined')
    expect(alert.querySelector('pre')?.textContent).toContain('Fragile')
    expect(text(container)).toContain('sibling still here')
  })

  it('renders the children again after Retry once the cause is gone', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { container } = await render(
      <ApBoundary>
        <Fragile label="page" />
      </ApBoundary>,
    )
    expect(text(container)).toContain('profiles is undefined')
    failing = false
    await click(button('重试', container))
    expect(text(container)).toBe('page ok')
  })

  it('compact variant is one line with the message, for small seats', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { container } = await render(
      <ApBoundary compact>
        <Fragile label="x" />
      </ApBoundary>,
    )
    const alert = container.querySelector('[role="alert"]')!
    expect(alert.tagName).toBe('SPAN')
    expect(text(alert)).toContain('profiles is undefined')
    expect(alert.querySelector('pre')).toBeNull()
  })

  it('speaks the host language', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(
        <ApBoundary>
          <Fragile label="x" />
        </ApBoundary>,
      )
      expect(text(container)).toContain('This part of the page failed')
      expect(button('Retry', container)).toBeTruthy()
    } finally {
      unbind()
    }
  })
})

describe('guard', () => {
  it('forwards every prop the host passes to the wrapped component (incident 5.2)', async () => {
    failing = false
    const seen: unknown[] = []
    function Page(props: { close: () => void; sessionId: string; t: (k: string) => string }) {
      seen.push(props)
      return (
        <span>
          {props.sessionId} {props.t('nav')}
        </span>
      )
    }
    const Guarded = guard(Page)
    const close = () => {}
    const { container } = await render(<Guarded close={close} sessionId="session-1" t={(k) => `T:${k}`} />)
    expect(text(container)).toBe('session-1 T:nav')
    expect(seen[0]).toEqual({ close, sessionId: 'session-1', t: expect.any(Function) })
    expect(Guarded.displayName).toBe('Guarded(Page)')
  })

  it('keeps a throw of the wrapped component inside our boundary', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const Guarded = guard(Fragile, { label: 'Fragile' })
    const { container } = await render(<Guarded label="x" />)
    expect(text(container.querySelector('[role="alert"]')!)).toContain('profiles is undefined')
  })
})
