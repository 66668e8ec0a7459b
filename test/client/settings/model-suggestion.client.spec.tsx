/**
 * A model an imported file suggested, in the profile editor's Model section in jsdom with the real api client and the
 * real commands behind a stubbed fetch: the row says which model, effort and temperature the file asked for, in the
 * page's language; Accept makes it the profile's model, Dismiss drops it and keeps the model; a profile with no
 * suggestion shows no row.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient, useApState } from '../../../lib/client/data/api.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { ModelSection } from '../../../lib/client/settings/ModelEditor.tsx'
import { applyCommand } from '../../../lib/commands/dispatch.ts'
import { factoryState } from '../../../lib/state/defaults.ts'
import type { State } from '../../../lib/state/model.ts'
import { button, cleanup, click, meta, render, settle, stubFetch, text } from '../../support/dom.tsx'

const unbinds: Array<() => void> = []
afterEach(async () => {
  await cleanup()
  for (const unbind of unbinds.splice(0)) unbind()
  vi.unstubAllGlobals()
})

const PRO = { provider: 'deepseek', model: 'DeepSeek-V4-Pro', reasoningEffort: 'max', temperature: 2 }
const FLASH = { provider: 'deepseek', model: 'DeepSeek-V4-Flash' }

/** The Model section of the first profile, which holds `FLASH` as its model and `PRO` as an imported suggestion. */
async function mount(locale: string): Promise<{ root: HTMLElement; host: () => State }> {
  const [first, ...rest] = factoryState(1).profiles
  let state: State = { ...factoryState(1), profiles: [{ ...first!, model: FLASH, suggestedModel: PRO }, ...rest] }
  stubFetch((call) => {
    if (call.path.endsWith('/models')) return { body: { providers: [], failures: [] } }
    if (call.path.endsWith('/state')) return { body: { state, meta: meta() } }
    const r = applyCommand(state, call.body, { now: 2, newId: (p) => `${p}-1` })
    state = r.state
    return { body: { state, meta: meta(), notice: r.notice } }
  })
  unbinds.push(bindLocale({ getLocale: () => ({ active: locale }), subscribe: () => () => {} }))
  const client = createApiClient()
  await client.refresh()
  function Harness() {
    useApState()
    const p = state.profiles[0]!
    return (
      <ModelSection
        value={p.model}
        profileId={p.id}
        {...(p.suggestedModel === undefined ? {} : { suggestion: p.suggestedModel })}
        onChange={() => {}}
      />
    )
  }
  const { container: root } = await render(
    <ApiContext.Provider value={client}>
      <Harness />
    </ApiContext.Provider>,
  )
  await settle()
  return { root, host: () => state }
}

const row = (root: HTMLElement) => root.querySelector('[data-ap-model-suggestion]')

describe('a suggested model in the Model section', () => {
  it('says what the file asked for, and Accept makes it the profile model', async () => {
    const { root, host } = await mount('en')
    expect(text(row(root)!)).toContain(
      'An imported file suggests deepseek/DeepSeek-V4-Pro (reasoning effort max, temperature 2). It is not used until you accept it.',
    )
    await click(button('Accept', row(root)!))
    await settle()
    expect(host().profiles[0]!.model).toEqual(PRO)
    expect(host().profiles[0]!.suggestedModel).toBeUndefined()
    expect(row(root)).toBeNull()
  })

  it('Dismiss (in Chinese: 忽略) drops the suggestion and keeps the model', async () => {
    const { root, host } = await mount('zh-CN')
    expect(text(row(root)!)).toContain('导入的文件建议使用 deepseek/DeepSeek-V4-Pro（推理强度 max，温度 2）')
    await click(button('忽略', row(root)!))
    await settle()
    expect(host().profiles[0]!.model).toEqual(FLASH)
    expect(host().profiles[0]!.suggestedModel).toBeUndefined()
    expect(row(root)).toBeNull()
  })
})
