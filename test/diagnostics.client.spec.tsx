import { afterEach, describe, expect, it, vi } from 'vitest'
import { Diagnostics } from '../lib/client/Diagnostics.tsx'
import { bindLocale } from '../lib/client/locales.ts'
import { button, cleanup, click, meta, render, text } from './support/dom.tsx'

afterEach(cleanup)

describe('Diagnostics', () => {
  it('shows the data file, the counts, the assembly counts and that nothing failed', async () => {
    const m = meta({ counts: { profiles: 3, sessions: 2, memories: 17 }, diagnostics: { scoped: 12, global: 4 } })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    const shown = text(container)
    expect(shown).toContain('数据文件 /home/u/.dsh-agent-profiles-data/profiles.json')
    expect(shown).toContain('3 套配置 · 2 个对话设定 · 17 条记忆')
    expect(shown).toContain('按对话注入的次数 12')
    expect(shown).toContain('回落到全局配置的次数 4')
    expect(shown).toContain('上次加载错误 无')
    expect(shown).toContain('还没有运行记录')
  })

  it('shows the last load error and where the bad file was kept', async () => {
    const m = meta({ lastError: { message: 'Unexpected token } in JSON at position 12', at: Date.UTC(2025, 4, 6), keptAs: '/data/profiles.json.corrupt-1' } })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    expect(text(container)).toContain('Unexpected token } in JSON at position 12')
    expect(text(container)).toContain('损坏的文件已保留为 /data/profiles.json.corrupt-1')
  })

  it('lists the memory job\'s last runs', async () => {
    const m = meta({ memoryJob: { running: 0, runs: [{ sessionId: 'session-1', kind: 'extract', added: 2, at: Date.UTC(2025, 0, 1) }, { sessionId: 'session-2', kind: 'compress', error: 'model timeout' }] } })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    const runs = [...container.querySelectorAll('li')].map((li) => text(li))
    expect(runs).toHaveLength(2)
    expect(runs[0]).toContain('sessionId: session-1, kind: extract, added: 2')
    expect(runs[1]).toContain('error: model timeout')
    expect(text(container)).toContain('running: 0')
  })

  it('reloads on request', async () => {
    const onRefresh = vi.fn()
    const { container } = await render(<Diagnostics meta={meta()} onRefresh={onRefresh} />)
    await click(button('刷新', container))
    expect(onRefresh).toHaveBeenCalledOnce()
  })

  it('speaks English', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(<Diagnostics meta={meta({ diagnostics: { scoped: 1, global: 2 } })} onRefresh={() => {}} />)
      expect(text(container)).toContain('Data file')
      expect(text(container)).toContain('Conversation-scoped injections 1')
      expect(text(container)).toContain('Global-fallback injections 2')
      expect(text(container)).toContain('Last load error None')
    } finally {
      unbind()
    }
  })
})
