/**
 * Diagnostics → the background jobs and recall: the memory job's and compression's state, totals and runs (why a run
 * was skipped or failed and which answer lines it dropped, in the page's language), recall's budget, index and last
 * recall.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Diagnostics } from '../../../lib/client/settings/Diagnostics.tsx'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { cleanup, meta, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

const at = Date.UTC(2025, 0, 1, 8, 0)

describe('Diagnostics: background jobs and recall', () => {
  it("shows the memory job's state, totals and last runs", async () => {
    const m = meta({
      memoryJob: {
        enabled: true,
        available: true,
        everyTurns: 5,
        excerptChars: 6000,
        running: ['session-bbbbbbbb-2'],
        totals: { runs: 7, stored: 9, failed: 1, coalesced: 2 },
        runs: [
          {
            job: 'extract',
            sessionId: 'session-cccccccc-3',
            at,
            ms: 812,
            outcome: 'stored',
            added: 2,
            sentChars: 5400,
          },
          {
            job: 'compress',
            profileId: 'a',
            at,
            ms: 30_000,
            outcome: 'failed',
            failure: 'timeout',
            reason: 'model did not answer',
          },
        ],
      },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    expect(text(container)).toContain('已开启，每 5 轮提取一次')
    expect(text(container)).toContain('正在处理：bbbbbbbb')
    expect(text(container)).toContain('共运行 7 次 · 存入 9 条 · 失败 1 次 · 合并 2 次')
    const runs = [...container.querySelectorAll('.ap-job-runs li')].map((li) => text(li))
    expect(runs[0]).toMatch(/提取 · cccccccc · 已存入 2 条 · 发送 5400 字 · 812 ms$/)
    expect(runs[1]).toMatch(/压缩 · 失败 · 超时 · 30000 ms$/)
  })

  it('says in words which answer lines a run dropped, and names an echo as such', async () => {
    const m = meta({
      memoryJob: {
        enabled: true,
        available: true,
        everyTurns: 5,
        excerptChars: 6000,
        running: [],
        totals: { runs: 2, stored: 1, failed: 1, coalesced: 0 },
        runs: [
          {
            job: 'extract',
            sessionId: 'session-dddddddd-4',
            at,
            ms: 640,
            outcome: 'stored',
            added: 1,
            dropped: { preface: 2, note: 1 },
            reason: 'dropped 2 preface, 1 note',
          },
          {
            job: 'extract',
            sessionId: 'session-eeeeeeee-5',
            at,
            ms: 300,
            outcome: 'failed',
            failure: 'echo',
            reason: 'the answer repeats the request ("<<<材料"); nothing stored',
          },
        ],
      },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    const runs = [...container.querySelectorAll('.ap-job-runs li')].map((li) => text(li))
    expect(runs[0]).toMatch(/提取 · dddddddd · 已存入 1 条 · 丢弃：2 行引导语、1 行附注 · 640 ms$/)
    expect(runs[0]).not.toContain('dropped 2 preface')
    expect(runs[1]).toMatch(/提取 · eeeeeeee · 失败 · 回答复述了请求 · 300 ms$/)
  })

  it("says why a run was skipped in the page's language and what to do, not the log's English", async () => {
    const m = meta({
      memoryJob: {
        enabled: true,
        available: true,
        everyTurns: 5,
        excerptChars: 6000,
        running: [],
        totals: { runs: 2, stored: 0, failed: 0, coalesced: 0 },
        runs: [
          {
            job: 'extract',
            sessionId: 'session-gggggggg-7',
            at,
            ms: 0,
            outcome: 'skipped',
            skip: 'incognito',
            reason: 'the conversation is incognito',
          },
          {
            job: 'extract',
            sessionId: 'session-hhhhhhhh-8',
            at,
            ms: 0,
            outcome: 'skipped',
            skip: 'memory-off',
            params: { name: '通用助手' },
            reason: 'memory is off in「通用助手」',
          },
          {
            job: 'extract',
            sessionId: 'session-iiiiiiii-9',
            at,
            ms: 0,
            outcome: 'skipped',
            skip: 'profile-deleted',
            reason: 'the profile that answered was deleted',
          },
        ],
      },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    const runs = [...container.querySelectorAll('.ap-job-runs li')].map((li) => text(li))
    expect(runs[0]).toMatch(/已跳过 · 本对话开着无痕，不提取记忆（在输入框左侧的 ⚙ 里可以关掉） · 0 ms$/)
    expect(runs[1]).toContain('「通用助手」关闭了长期记忆')
    expect(text(container)).not.toContain('incognito')
    expect(text(container)).not.toContain('memory is off')
    expect(runs[2]).toMatch(/iiiiiiii · 已跳过 · 回答的配置已被删除 · 0 ms$/)
    expect(runs.join(' ')).not.toMatch(/profile|deleted|the /)
  })

  it('shows compression: its threshold, totals and runs', async () => {
    const m = meta({
      compression: {
        available: true,
        threshold: 5000,
        running: [],
        totals: { runs: 3, compressed: 2, failed: 1 },
        runs: [{ job: 'compress', profileId: 'a', at, ms: 1500, outcome: 'stored', added: 12, sentChars: 5600 }],
      },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    expect(text(container)).toContain('记忆压缩 记忆超过 5000 字时自动压缩 共运行 3 次 · 压缩 2 次 · 失败 1 次')
    expect(text(container.querySelector('.ap-job-runs li')!)).toMatch(/压缩 · 已存入 12 条 · 发送 5600 字 · 1500 ms$/)
  })

  it("says why the memory job cannot run: the host service it lacks, not the log's English", async () => {
    const m = meta({
      memoryJob: {
        enabled: true,
        available: false,
        reason: 'the host has no model service (llm)',
        missing: 'llm',
        runs: [],
      },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    expect(text(container)).toContain('不可用：这个 dsh 配置里没有「llm」服务')
    expect(text(container)).not.toContain('model service')
  })

  it("says a memory job the user turned off is off, not the host's reason for it", async () => {
    const m = meta({
      memoryJob: { enabled: false, available: false, reason: 'turned off (memory.autoExtract: false)', runs: [] },
    })
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    expect(text(container)).toContain('记忆后台任务 已关闭')
    expect(text(container)).not.toContain('turned off')
  })

  it("shows recall: its budget, the index's size, the last recall's time and how its memory budget was spent, in Chinese and in English", async () => {
    const recall = {
      available: true,
      budget: 2000,
      index: { items: 10_000, bytes: 3 * 1024 * 1024 + 200 * 1024, rebuiltAt: null, mode: 'disk' as const },
      last: {
        at,
        ms: 3,
        sessionId: 'session-abcdef12-9',
        items: 4,
        chars: 310,
        core: 420,
        budget: 4_580,
        considered: 37,
      },
      totals: { recalls: 12, sent: 5, items: 9 },
    }
    const { container } = await render(<Diagnostics meta={meta({ recall })} onRefresh={() => {}} />)
    const shown = text(container.querySelector('.ap-diag-recall')!)
    expect(shown).toContain('每轮最多回忆 2000 字')
    expect(shown).toContain('索引 10000 条，3.2 MB')
    expect(shown).toMatch(/上次回忆：2025\/1\/1 \d\d:00，用时 3 ms，4 条 310 字，对话 abcdef12/)
    expect(shown).toContain('共回忆 12 次，其中 5 次发送了内容，共 9 条')
    // How that turn's one memory budget was spent.
    expect(shown).toContain(
      '那一轮的记忆预算：系统提示里的核心记忆 420 字，回忆 310 字（留给回忆的 4580 字），考虑了 37 条',
    )
    await cleanup()
    const none = await render(
      <Diagnostics
        meta={meta({
          recall: {
            ...recall,
            budget: 0,
            last: null,
            index: { ...recall.index, items: 0, bytes: 4096, mode: 'memory' },
          },
        })}
        onRefresh={() => {}}
      />,
    )
    const off = text(none.container.querySelector('.ap-diag-recall')!)
    expect(off).toContain('已关闭（recallBudget 为 0）')
    expect(off).toContain('索引 0 条，4.0 KB（只读数据库，索引建在内存里）')
    expect(off).toContain('还没有回忆过')
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const en = await render(<Diagnostics meta={meta({ recall })} onRefresh={() => {}} />)
      const english = text(en.container.querySelector('.ap-diag-recall')!)
      expect(english).toContain('Index: 10000 items, 3.2 MB')
      expect(english).toMatch(/Last recall: .+, 3 ms, conversation abcdef12; items: 4, characters: 310/)
      expect(english).toContain(
        'Memory budget of that turn: characters of core memory in the system prompt: 420 · recalled: 310 of the 4580 left for recall · items considered: 37',
      )
    } finally {
      unbind()
    }
  })

  it('while the index is re-termed in the background, says how far it got and that search works, in both languages', async () => {
    const index = { items: 1200, bytes: 4096, rebuiltAt: null, mode: 'disk' as const }
    const recall = {
      available: true,
      budget: 2000,
      index: { ...index, reterm: { done: 300, total: 1200 } },
      last: null,
    }
    const { container } = await render(<Diagnostics meta={meta({ recall })} onRefresh={() => {}} />)
    const shown = text(container.querySelector('.ap-diag-recall')!)
    expect(shown).toContain(
      '正在更新搜索索引，让单个字母的词（C、R…）也能搜到：已完成 300 / 1200 条；更新期间搜索照常可用',
    )
    await cleanup()
    const done = await render(<Diagnostics meta={meta({ recall: { ...recall, index } })} onRefresh={() => {}} />)
    expect(done.container.querySelector('[data-ap-index-reterm]')).toBeNull()
    await cleanup()
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const en = await render(<Diagnostics meta={meta({ recall })} onRefresh={() => {}} />)
      expect(text(en.container.querySelector('.ap-diag-recall')!)).toContain(
        'Updating the search index so that one-letter words (C, R…) are found: items done: 300 of 1200; search works meanwhile',
      )
    } finally {
      unbind()
    }
  })

  it('says nothing of recall when the host reports none (an older host)', async () => {
    const { container } = await render(<Diagnostics meta={meta()} onRefresh={() => {}} />)
    expect(container.querySelector('.ap-diag-recall')).toBeNull()
  })
})
