/**
 * A button's action state (lib/client/common/use-action.ts), with real React: the button is disabled while the action
 * runs and the last outcome is gone meanwhile; a success shows its words politely, a failure is worded and announced.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { act, type ReactNode } from 'react'
import { useAction } from '../../../lib/client/common/use-action.ts'
import { OutcomeLine } from '../../../lib/client/common/Outcome.tsx'
import { button, cleanup, click, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

/** A job the spec finishes by hand. */
function pending(): { job: () => Promise<string>; done(words: string): void; fail(e: Error): void } {
  let settle: { done(w: string): void; fail(e: Error): void } = { done() {}, fail() {} }
  return {
    job: () =>
      new Promise<string>((resolve, reject) => {
        settle = { done: resolve, fail: reject }
      }),
    done: (w) => settle.done(w),
    fail: (e) => settle.fail(e),
  }
}

function Probe({ job }: { job: () => Promise<string | void> }): ReactNode {
  const { busy, outcome, run, say } = useAction()
  return (
    <div>
      <button type="button" disabled={busy} onClick={() => void run(job)}>
        go
      </button>
      <button type="button" onClick={() => void say(job)}>
        quiet
      </button>
      <OutcomeLine outcome={outcome} />
    </div>
  )
}

describe('useAction', () => {
  it('is busy while the job runs, says its words after, and clears them when the next one starts', async () => {
    const p = pending()
    const { container } = await render(<Probe job={p.job} />)
    await click(button('go', container))
    expect(button('go', container).disabled).toBe(true)
    await act(async () => p.done('saved 2 facts'))
    expect(button('go', container).disabled).toBe(false)
    expect(text(container.querySelector('[role="status"]')!)).toBe('saved 2 facts')
    await click(button('go', container))
    expect(container.querySelector('[role="status"]')).toBeNull()
    await act(async () => p.fail(new Error('disk full')))
    expect(button('go', container).disabled).toBe(false)
    expect(text(container.querySelector('[role="alert"]')!)).toMatch(/disk full/)
    expect(container.querySelector('[role="status"]')).toBeNull()
  })

  it('shows no line for a job that has nothing to say, and drops an earlier failure when it starts', async () => {
    const p = pending()
    let words: string | void = 'never'
    const job = async (): Promise<string | void> => {
      await p.job()
      return words
    }
    const { container } = await render(<Probe job={job} />)
    await click(button('go', container))
    await act(async () => p.fail(new Error('disk full')))
    expect(text(container.querySelector('[role="alert"]')!)).toMatch(/disk full/)
    words = ''
    await click(button('go', container))
    await act(async () => p.done('ignored'))
    expect(container.querySelector('[role="alert"]')).toBeNull()
    expect(container.querySelector('[role="status"]')).toBeNull()
    words = undefined
    await click(button('go', container))
    await act(async () => p.done('ignored'))
    expect(container.querySelector('[role="status"]')).toBeNull()
  })

  it('a quiet job leaves the surface free and the last words in place until its own arrive', async () => {
    const p = pending()
    const { container } = await render(<Probe job={p.job} />)
    await click(button('go', container))
    await act(async () => p.done('saved'))
    await click(button('quiet', container))
    expect(button('go', container).disabled).toBe(false)
    expect(text(container.querySelector('[role="status"]')!)).toBe('saved')
    await act(async () => p.done('incognito on'))
    expect(text(container.querySelector('[role="status"]')!)).toBe('incognito on')
  })
})
