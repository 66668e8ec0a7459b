/**
 * Diagnostics, the panel itself: the data file, the counts, how the prompt was assembled, what the parts could not do
 * as usual, the profiles' models, the last load error and a refused row config; reloading; English.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Diagnostics } from '../../../lib/client/settings/Diagnostics.tsx'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { button, cleanup, click, meta, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

const at = Date.UTC(2025, 0, 1, 8, 0)

describe('Diagnostics', () => {
  it('shows the data file, the counts, and the conversation-scoped vs global-fallback assembly counts', async () => {
    const m = meta({
      counts: { profiles: 3, sessions: 2, memories: 17 },
      injection: {
        assemblies: { conversation: 12, global: 4, subagent: 1 },
        agents: 2,
        sessions: { 'session-aaaaaaaa-1': { profileId: 'a', chars: 320, tokens: 190, memoryCut: true, at } },
        degraded: [{ key: 'tools-off', params: { service: 'tools' } }],
      },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    const shown = text(container)
    expect(shown).toContain('数据文件（在数据目录里） profiles.sqlite')
    expect(shown).toContain('3 套配置 · 2 个对话设定 · 17 条记忆')
    expect(shown).toContain('按对话注入的次数 12')
    expect(shown).toContain('回落到全局配置的次数 4')
    expect(shown).toContain('子代理注入的次数 1')
    expect(shown).toContain('aaaaaaaa · 320 字 · 约 190 tokens · 记忆已截断')
    expect(shown).toContain('降级提示 插件载入以来没能照常做到的事： 工具档没有启用：这个 dsh 配置里没有「tools」服务')
    expect(shown).toContain('上次加载错误 无')
    expect(shown).toContain('记忆后台任务 还没有运行记录')
  })

  it("lists what each part could not do as usual: the prompt's, the tool profiles' and the profiles' models'", async () => {
    const m = meta({
      injection: { assemblies: { conversation: 0, global: 0, subagent: 0 }, sessions: {}, agents: 0, degraded: [] },
      toolProfiles: {
        available: true,
        catalogue: [],
        narrowed: 0,
        refused: 0,
        kept: [],
        degraded: [{ key: 'guard-failed', detail: 'boom' }],
      },
      modelChoice: {
        available: true,
        conversations: 0,
        totals: { profile: 0, user: 0, fallback: 0, synced: 0 },
        degraded: [{ key: 'apply-failed' }],
      },
    })
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
      const warned = [...container.querySelectorAll('.ap-degraded li')].map((li) => text(li))
      expect(warned).toEqual([
        `The tool profile's check of a call failed, so the call was let through (in its own words: "boom")`,
        "Giving a request the profile's model failed, so the conversation's model answered",
      ])
    } finally {
      unbind()
    }
  })

  it("counts the turns on profiles' models and shows the last fallback with its reason", async () => {
    const m = meta({
      modelChoice: {
        available: true,
        conversations: 2,
        totals: { profile: 5, user: 1, fallback: 2, synced: 3 },
        degraded: [],
        lastFallback: {
          at,
          sessionId: 's1',
          wanted: { provider: 'gone', model: 'big' },
          used: { provider: 'p', model: 'small' },
          why: 'no-provider',
          reason: 'the host has no provider "gone"',
        },
      },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    const shown = text(container.querySelector('[data-ap-diag-models]')!)
    expect(shown).toContain('用配置的模型回答的轮次：5；用输入框里选的模型：1；配置的模型不可用而改用对话模型：2')
    expect(shown).toContain('big 不可用（本机已没有提供方「gone」），改由 small 回答')
  })

  it('says why the data could not be loaded, what the plugin did, and where the bad file was kept', async () => {
    const m = meta({
      lastError: {
        message:
          'profiles.sqlite failed its integrity check (row 3 missing from index); started on the factory profiles',
        at,
        keptAs: 'profiles.sqlite.bad-1',
        why: {
          key: 'damaged',
          params: { file: 'profiles.sqlite' },
          detail: 'row 3 missing from index',
          outcome: 'factory-kept',
        },
      },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    expect(text(container.querySelector('.ap-last-error')!)).toMatch(
      /^\S+ \S+ 数据库 profiles\.sqlite 已损坏（原文：“row 3 missing from index”）；插件已改用出厂配置。 损坏的文件已保留在数据目录里，名为 profiles\.sqlite\.bad-1$/,
    )
    expect(text(container)).not.toContain('integrity check')
  })

  it('says which option of the row config was refused and what it accepts, running on the defaults', async () => {
    const m = meta({
      configError: 'agent-profiles: config: memory.everyTurns must be an integer from 1 to 1000, got 0',
      configRefusal: { code: 'invalid', field: 'memory.everyTurns', rule: 'config.integer', min: 1, limit: 1000 },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    expect(text(container)).toContain(
      '配置错误 插件在 dsh 配置里的设置被拒绝，现按默认设置运行。「memory.everyTurns」：必须是 1 到 1000 之间的整数',
    )
    expect(text(container)).not.toContain('must be an integer')
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
      const m = meta({ injection: { assemblies: { conversation: 1, global: 2, subagent: 0 } } })
      const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
      expect(text(container)).toContain('Data file')
      expect(text(container)).toContain('Conversation-scoped injections 1')
      expect(text(container)).toContain('Global-fallback injections 2')
      expect(text(container)).toContain('Last load error None')
      const runs = meta({
        memoryJob: {
          enabled: true,
          available: true,
          everyTurns: 5,
          excerptChars: 6000,
          running: [],
          totals: { runs: 2, stored: 0, failed: 1, coalesced: 0 },
          runs: [
            {
              job: 'extract',
              sessionId: 'session-ffffffff-6',
              at,
              ms: 90,
              outcome: 'nothing-new',
              dropped: { preface: 2, note: 1, nothing: 1 },
              reason: 'dropped 2 preface, 1 note, 1 nothing',
            },
            {
              job: 'compress',
              profileId: 'a',
              at,
              ms: 70,
              outcome: 'failed',
              failure: 'echo',
              dropped: { 'over-limit': 1 },
              reason: 'repeats the request',
            },
          ],
        },
      })
      const rendered = await render(<Diagnostics meta={runs} onRefresh={() => {}} />)
      const lines = [...rendered.container.querySelectorAll('.ap-job-runs li')].map((li) => text(li))
      expect(lines[0]).toMatch(
        /extraction · ffffffff · nothing new · dropped: 2 prefaces, 1 note, 1 "nothing new" line · 90 ms$/,
      )
      expect(lines[1]).toMatch(
        /compression · failed · dropped: 1 past the per-run limit · the answer repeats the request · 70 ms$/,
      )
    } finally {
      unbind()
    }
  })
})
