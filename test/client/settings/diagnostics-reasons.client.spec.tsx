/**
 * Diagnostics → every reason the host can give (skipped and failed runs, set-aside rows, load problems, warnings,
 * refusals, models), each worded in the user's language: English with no Chinese, Chinese with English only in code
 * and quoted details.
 */
import { afterEach, describe, expect, it } from 'vitest'
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
import { cleanup, meta, render, text } from '../../support/dom.tsx'

afterEach(cleanup)

const at = Date.UTC(2025, 0, 1, 8, 0)
const tIn = (locale: string) => (key: ApKey, params?: Params) => translate(locale, key, params)

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
