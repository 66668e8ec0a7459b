// The rows several speakers add to a transcript, drawn by the host's context renderer, in the page's language: our
// entry shadows that renderer and hands it the very same props, with our rows' summary worded in the page's
// language; every other context row reaches the host's renderer untouched.
import { memo, type ReactNode } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { CONTEXT_ROW, installSpeakerRows } from '../../../lib/client/conversation/speaker-rows.ts'
import { CHAT_NODE_SLOT } from '../../../lib/client/conversation/turn-head.ts'
import { speakerRowSource } from '../../../lib/shared/speaker-rows.ts'
import { SlotModel } from '../../support/slot-registry.ts'
import { cleanup, render, text } from '../../support/dom.tsx'

afterEach(async () => {
  await cleanup()
  vi.restoreAllMocks()
})

interface ContextProps {
  node: { key: string; data: { source: object; content: unknown[] } }
  t(key: string): string
}

/** The host's context renderer (modelled): a memo component, as the real one is, showing the summary it got. */
const seen: ContextProps[] = []
const HostContext = memo(function HostContext(props: ContextProps): ReactNode {
  seen.push(props)
  const summary = (props.node.data.source as { summary?: unknown }).summary
  return <div data-host-context={props.node.key}>{typeof summary === 'string' ? summary : '(no summary)'}</div>
})

/** An open chat with the host's context renderer and our entry over it; the component that renders the row now. */
function ourRow(): (props: ContextProps) => ReactNode {
  const slots = new SlotModel()
  slots.declare(CHAT_NODE_SLOT, 'keyed')
  slots.register({ name: CHAT_NODE_SLOT, key: CONTEXT_ROW, locale: 'conversation' }, HostContext)
  installSpeakerRows(slots)
  const winner = slots.winner(CHAT_NODE_SLOT, CONTEXT_ROW)!.component
  expect(winner).not.toBe(HostContext)
  return winner as (props: ContextProps) => ReactNode
}

const node = (key: string, source: object): ContextProps['node'] => ({
  key,
  data: { source, content: [{ type: 'text', text: '（上面的回复出自「Helper」。…）' }] },
})

async function shown(lang: 'en' | 'zh', source: object): Promise<string> {
  const unbind = bindLocale({ getLocale: () => ({ active: lang }), subscribe: () => () => {} })
  try {
    const Row = ourRow()
    const { container } = await render(<Row node={node('c1', source)} t={(k) => k} />)
    return text(container)
  } finally {
    unbind()
  }
}

describe("the rows several speakers add, in the page's language", () => {
  it('words who answers next and the way back in English on an English page', async () => {
    expect(await shown('en', speakerRowSource({ row: 'next', name: 'Writer' }))).toBe('"Writer" answers next')
    expect(await shown('en', speakerRowSource({ row: 'back', name: '测试老师' }))).toBe('Back to "测试老师"')
  })

  it('words them in Chinese on a Chinese page, and an unnamed profile as the page calls it', async () => {
    expect(await shown('zh', speakerRowSource({ row: 'next', name: '写作顾问' }))).toBe('接下来由「写作顾问」回答')
    expect(await shown('en', speakerRowSource({ row: 'back', name: '' }))).toBe('Back to "(unnamed)"')
  })

  it('words a row logged before in the page language too, from its summary', async () => {
    const old = { kind: 'plugin', plugin: 'agent-profiles', form: 'notice', summary: '回到「测试老师」' }
    expect(await shown('en', old)).toBe('Back to "测试老师"')
  })

  it("hands the host's renderer the same props, only the summary changed; other rows untouched", async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const Row = ourRow()
      const t = (k: string) => k
      const ours = node('c1', speakerRowSource({ row: 'next', name: 'Writer' }))
      seen.length = 0
      await render(<Row node={ours} t={t} />)
      const got = seen.at(-1)!
      expect(got.t).toBe(t)
      expect(got.node.data.content).toBe(ours.data.content)
      expect(got.node.data.source).toEqual({ ...ours.data.source, summary: '"Writer" answers next' })
      const other = node('c2', { kind: 'plugin', plugin: 'time-context', form: 'notice', summary: '现在是上午' })
      const props = { node: other, t }
      await render(<Row {...props} />)
      expect(seen.at(-1)!.node).toBe(other)
    } finally {
      unbind()
    }
  })
})
