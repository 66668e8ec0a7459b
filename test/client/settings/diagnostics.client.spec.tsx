import { afterEach, describe, expect, it, vi } from 'vitest'
import { Diagnostics } from '../../../lib/client/settings/Diagnostics.tsx'
import { bindLocale, translate, type ApKey, type Params } from '../../../lib/client/copy/locales.ts'
import { unavailableText } from '../../../lib/client/common/model-text.ts'
import type { LoadError, Meta, SetAsideRow } from '../../../lib/shared/meta.ts'
import type { RunRecord } from '../../../lib/shared/diagnostics.ts'
import {
  FAIL_REASONS,
  LOAD_OUTCOMES,
  LOAD_PROBLEMS,
  MODEL_REASONS,
  SET_ASIDE_REASONS,
  SKIP_REASONS,
  WARNINGS,
  type ConfigRefusal,
  type FailReason,
  type LoadOutcome,
  type LoadProblem,
  type ModelUnavailable,
  type SetAsideReason,
  type SkipReason,
  type Warning,
  type WarningKey,
} from '../../../lib/shared/reasons.ts'
import { REFUSAL_RULES } from '../../../lib/shared/refusals.ts'
import { button, cleanup, click, meta, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

const at = Date.UTC(2025, 0, 1, 8, 0)
const tIn = (locale: string) => (key: ApKey, params?: Params) => translate(locale, key, params)

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
    expect(shown).toContain('数据文件 /home/u/.dsh-agent-profiles-data/profiles.json')
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
        keptAs: '/data/profiles.sqlite.bad-1',
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
      /^\S+ \S+ 数据库 profiles\.sqlite 已损坏（原文：“row 3 missing from index”）；插件已改用出厂配置。 损坏的文件已保留为 \/data\/profiles\.sqlite\.bad-1$/,
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

  it('reloads on request', async () => {
    const onRefresh = vi.fn()
    const { container } = await render(<Diagnostics meta={meta()} onRefresh={onRefresh} />)
    await click(button('刷新', container))
    expect(onRefresh).toHaveBeenCalledOnce()
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

  it('says nothing of recall when the host reports none (an older host)', async () => {
    const { container } = await render(<Diagnostics meta={meta()} onRefresh={() => {}} />)
    expect(container.querySelector('.ap-diag-recall')).toBeNull()
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

describe("every reason the host can give, in the user's language", () => {
  const CJK = /[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]/
  /** Two Latin words in a row: an English phrase, which a Chinese page says only inside code or a quoted detail. */
  const ENGLISH = /[A-Za-z]{2,}[ ,]+[A-Za-z]{2,}/
  const detail = 'HTTP 401: invalid api key'
  const params = { name: 'Writer', chars: 5200, input: 5100, count: 5000, id: 'ghost' }
  const run = { job: 'extract', sessionId: 'session-aaaaaaaa-1', at, ms: 0 } as const
  const runs: RunRecord[] = [
    ...(Object.keys(SKIP_REASONS) as SkipReason[]).map((skip) => ({
      ...run,
      outcome: 'skipped' as const,
      skip,
      params,
    })),
    ...(Object.keys(FAIL_REASONS) as FailReason[]).map((failure) => ({
      ...run,
      outcome: 'failed' as const,
      failure,
      params,
      ...(failure === 'error' ? { detail } : {}),
    })),
  ]
  const setAside: SetAsideRow[] = [
    ...(Object.keys(SET_ASIDE_REASONS) as SetAsideReason[]).map((key) => ({
      table: 'profiles',
      key: `row-${key}`,
      why: { key, params, refusal: { code: 'invalid' as const, field: 'profiles.p.name', limit: 40 } },
      reason: 'the host English for the log',
    })),
    {
      table: 'profiles',
      key: 'row-rule',
      why: { key: 'refused', refusal: { code: 'invalid', rule: 'name.bidi', field: 'profiles.p.name' } },
      reason: 'log',
    },
    {
      table: 'profiles',
      key: 'row-bare',
      why: { key: 'refused', refusal: { code: 'invalid', field: 'profiles.p.memoryMode' } },
      reason: 'log',
    },
  ]
  const values = {
    scope: 'conversation',
    event: 'agent/created',
    wanted: 'gone/big',
    used: 'p/small',
    model: 'p/small',
    session: 'session-aaaaaaaa-1',
    why: 'no-provider',
    service: 'tools',
    preset: 'coder',
  }
  const degraded = (Object.keys(WARNINGS) as WarningKey[]).map(
    (key, i) => ({ key, params: values, ...(i % 2 === 0 ? { detail } : {}) }) as Warning,
  )
  const outcomes = [undefined, ...(Object.keys(LOAD_OUTCOMES) as LoadOutcome[])]
  /** Every load problem once, each with another of the outcomes (or none) and every other one with a detail. */
  const loadErrors: LoadError[] = (Object.keys(LOAD_PROBLEMS) as LoadProblem[]).map((key, i) => {
    const outcome = outcomes[i % outcomes.length]
    return {
      message: 'the host English for the log',
      at,
      why: {
        key,
        params: {
          file: 'profiles.sqlite',
          from: 3,
          to: 4,
          count: 2,
          files: ['p1.png', 'p2.png'],
          pid: 4242,
          day: '2025-01-01',
        },
        ...(i % 2 === 0 ? { detail } : {}),
        ...(outcome === undefined ? {} : { outcome }),
      },
    }
  })
  /** A refusal of the row config for every rule an option can break. */
  const configRefusals: ConfigRefusal[] = REFUSAL_RULES.filter((rule) => rule.startsWith('config.')).map(
    (rule): ConfigRefusal => ({
      code: 'invalid',
      field: 'memory.everyTurns',
      rule,
      min: 1,
      limit: 1000,
      values: ['none', 'inherit'],
    }),
  )
  /** The text of the element `selector` picks, for each load error and each refused config in turn. */
  async function eachShown(selector: string, metas: Partial<Meta>[]): Promise<string[]> {
    const shown: string[] = []
    for (const over of metas) {
      const { container } = await render(<Diagnostics meta={meta(over)} onRefresh={() => {}} />)
      shown.push(...lines(container, selector))
      await cleanup()
    }
    return shown
  }
  /** Every load error and every refused config of the fixtures, as Diagnostics shows each. */
  async function loadAndConfig(): Promise<{ loaded: string[]; refused: string[] }> {
    const loaded = await eachShown(
      '.ap-last-error',
      loadErrors.map((lastError) => ({ lastError })),
    )
    const refused = await eachShown(
      '.ap-config-error',
      configRefusals.map((configRefusal) => ({ configRefusal })),
    )
    expect(loaded).toHaveLength(loadErrors.length)
    expect(refused).toHaveLength(configRefusals.length)
    return { loaded, refused }
  }
  const m = meta({
    injection: { degraded },
    memoryJob: { enabled: true, available: false, missing: 'llm', reason: 'the host has no model service (llm)', runs },
    compression: { available: false, missing: 'llm', reason: 'the host has no model service (llm)', runs: [] },
    recall: { available: false, budget: 2000, missing: 'systemPrompt', reason: 'the host has no systemPrompt service' },
    data: { setAside },
  })
  const lines = (root: Element, selector: string): string[] =>
    [...root.querySelectorAll(selector)].map((li) => {
      const copy = li.cloneNode(true) as Element
      for (const code of copy.querySelectorAll('code')) code.remove()
      return text(copy).replace(detail, '')
    })

  it('English shows no Chinese character, and says why for every skipped and failed run and every row', async () => {
    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
      expect(text(container)).not.toMatch(CJK)
      expect(text(container)).not.toContain('the host has no')
      expect(text(container)).toContain('Unavailable: this dsh profile has no "llm" service')
      const shown = lines(container, '.ap-job-runs li')
      expect(shown).toHaveLength(runs.length)
      for (const line of shown) expect(line).toMatch(/ · (skipped|failed) · \S.* · 0 ms$/)
      expect(shown).toContainEqual(expect.stringContaining('"Writer" has long-term memory off'))
      expect(text(container)).toContain(`call failed (in its own words: "${detail}")`)
      const rows = lines(container, '.ap-set-aside li')
      expect(rows).toHaveLength(setAside.length)
      for (const row of rows) expect(row).not.toContain('the host English')
      expect(rows).toContainEqual(expect.stringContaining('Field "Name": at most 40 characters'))
      for (const why of Object.keys(MODEL_REASONS) as ModelUnavailable[]) {
        const said = unavailableText(tIn('en'), { why, effort: 'max', wanted: { provider: 'p' } })
        expect(said, why).not.toMatch(CJK)
        expect(said, why).not.toBe('')
      }
      const warned = lines(container, '.ap-degraded li')
      expect(warned).toHaveLength(degraded.length)
      expect(warned).toContainEqual('Tool profiles are off: this dsh profile has no "tools" service')
      expect(text(container)).toContain(`Handling agent/created failed (in its own words: "${detail}")`)
      await cleanup()
      const { loaded, refused } = await loadAndConfig()
      for (const line of [...warned, ...loaded, ...refused]) {
        expect(line).not.toMatch(CJK)
        expect(line).not.toMatch(/\{\w+\}|agent-profiles:|the host English/)
      }
      expect(loaded).toContainEqual(
        expect.stringMatching(/ 2 avatar files could not be read \(p1\.png and p2\.png\): those profiles show/),
      )
      expect(refused).toContainEqual(
        `The plugin's settings in the dsh profile were refused, so it runs on its defaults. Field "memory.everyTurns": must be a whole number from 1 to 1000`,
      )
    } finally {
      unbind()
    }
  })

  it('Chinese says every reason in Chinese, with English only in code and in a quoted detail', async () => {
    const { container } = await render(<Diagnostics meta={m} onRefresh={() => {}} />)
    expect(text(container)).toContain('不可用：这个 dsh 配置里没有「llm」服务')
    const shown = [...lines(container, '.ap-job-runs li'), ...lines(container, '.ap-set-aside li')]
    expect(shown).toHaveLength(runs.length + setAside.length)
    for (const line of shown) {
      expect(line).not.toMatch(ENGLISH)
      expect(line).toMatch(CJK)
    }
    expect(text(container)).toContain(`调用出错（原文：“${detail}”）`)
    const warned = lines(container, '.ap-degraded li')
    expect(warned).toHaveLength(degraded.length)
    await cleanup()
    const { loaded, refused } = await loadAndConfig()
    for (const line of [...warned, ...loaded, ...refused]) {
      expect(line).not.toMatch(ENGLISH)
      expect(line).toMatch(CJK)
      expect(line).not.toMatch(/\{\w+\}/)
    }
    expect(refused).toContainEqual(
      '插件在 dsh 配置里的设置被拒绝，现按默认设置运行。「memory.everyTurns」：必须是以下之一：none / inherit',
    )
    for (const why of Object.keys(MODEL_REASONS) as ModelUnavailable[]) {
      const said = unavailableText(tIn('zh'), { why, effort: 'max', wanted: { provider: 'p' } })
      expect(said, why).toMatch(CJK)
      expect(said, why).not.toMatch(ENGLISH)
    }
    expect(unavailableText(tIn('zh'), { why: 'refused', detail })).toBe(`主机不接受这个模型的设置（原文：“${detail}”）`)
  })
})
