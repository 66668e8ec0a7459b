/**
 * The model part of the profile editor in jsdom with the real api client: it offers the host's providers and models
 * (as `GET /__ap/models` answers), the picked model's reasoning efforts and a temperature; a saved model the host no
 * longer lists stays selectable and is marked; and the draft's patch sends the choice, or null for "the
 * conversation's model".
 */
import { act, useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { buildPatch, changedFields } from '../../../lib/client/common/editing.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { ModelSection } from '../../../lib/client/settings/ModelEditor.tsx'
import type { ModelCatalog } from '../../../lib/shared/models.ts'
import type { ModelChoice } from '../../../lib/state/model.ts'
import { cleanup, field, profile, render, settle, stubFetch, text, type } from '../../support/dom.tsx'

const unbinds: Array<() => void> = []
afterEach(async () => {
  await cleanup()
  for (const unbind of unbinds.splice(0)) unbind()
  vi.unstubAllGlobals()
})

const CATALOG: ModelCatalog = {
  providers: [
    {
      id: 'deepseek-official',
      name: 'DeepSeek',
      models: [
        {
          id: 'deepseek-v4-flash',
          name: 'DeepSeek-V4-Flash',
          efforts: [
            { id: 'off', name: 'Off' },
            { id: 'high', name: 'High' },
          ],
          defaultEffort: 'high',
        },
        {
          id: 'deepseek-v4-pro',
          name: 'DeepSeek-V4-Pro',
          efforts: [
            { id: 'off', name: 'Off' },
            { id: 'max', name: 'Max' },
          ],
          defaultEffort: 'max',
        },
      ],
    },
  ],
  failures: [],
}

async function mount(
  initial: ModelChoice | undefined,
  catalog: ModelCatalog = CATALOG,
  locale = 'en',
): Promise<{ root: HTMLElement; values: Array<ModelChoice | undefined> }> {
  stubFetch((call) => (call.path.endsWith('/models') ? { body: catalog } : { status: 404, body: {} }))
  unbinds.push(bindLocale({ getLocale: () => ({ active: locale }), subscribe: () => () => {} }))
  const values: Array<ModelChoice | undefined> = []
  function Harness() {
    const [value, setValue] = useState(initial)
    return (
      <ModelSection
        value={value}
        onChange={(next) => {
          setValue(next)
          values.push(next)
        }}
      />
    )
  }
  const { container: root } = await render(
    <ApiContext.Provider value={createApiClient()}>
      <Harness />
    </ApiContext.Provider>,
  )
  await settle()
  return { root, values }
}

async function choose(el: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    el.value = value
    el.dispatchEvent(new Event('change', { bubbles: true }))
  })
  await settle()
}

/** The select a label names (the shared `field` finds inputs and text areas only). */
function selectNamed(label: string, root: HTMLElement): HTMLSelectElement {
  const l = [...root.querySelectorAll('label')].find((el) => text(el).startsWith(label))
  const target = l === undefined ? null : document.getElementById(l.htmlFor)
  if (!(target instanceof HTMLSelectElement)) throw new Error(`no select labelled "${label}"`)
  return target
}
const modelSelect = (root: HTMLElement) => selectNamed('Model its conversations answer on', root)
const options = (el: HTMLSelectElement) => [...el.querySelectorAll('option')].map((o) => text(o))

describe('ModelSection', () => {
  it("offers the conversation's model and the host's models; a pick offers that model's efforts and a temperature", async () => {
    const { root, values } = await mount(undefined)
    const select = modelSelect(root)
    expect(options(select)).toEqual([
      "The conversation's model (as picked in the composer)",
      'DeepSeek-V4-Flash (deepseek-v4-flash)',
      'DeepSeek-V4-Pro (deepseek-v4-pro)',
    ])
    expect(root.textContent).not.toContain('Reasoning effort')
    await choose(select, 'deepseek-official\u0000deepseek-v4-pro')
    expect(values.at(-1)).toEqual({ provider: 'deepseek-official', model: 'deepseek-v4-pro' })
    const effort = selectNamed('Reasoning effort', root)
    expect(options(effort)).toEqual(["The model's default (Max)", 'Off', 'Max'])
    await choose(effort, 'off')
    await type(field('Temperature', root), '0.7')
    expect(values.at(-1)).toEqual({
      provider: 'deepseek-official',
      model: 'deepseek-v4-pro',
      reasoningEffort: 'off',
      temperature: 0.7,
    })
    await choose(modelSelect(root), '')
    expect(values.at(-1)).toBeUndefined()
  })

  it('keeps a saved model the host no longer lists selectable, and says so', async () => {
    const { root } = await mount({ provider: 'gone', model: 'old-model' })
    expect(options(modelSelect(root))).toContain('old-model (gone) — no longer offered by this host')
    expect(modelSelect(root).value).toBe('gone\u0000old-model')
    expect(root.querySelector('[role="alert"]')?.textContent).toContain('no longer offers the saved model')
  })
})

describe('ModelSection, when the host cannot list every model', () => {
  const notes = (root: HTMLElement) => [...root.querySelectorAll('[role="note"]')].map((el) => text(el))
  const failing: ModelCatalog = { ...CATALOG, failures: [{ provider: 'openrouter', detail: 'HTTP 503: unavailable' }] }

  it("names the provider in the page's language and quotes the host's words after", async () => {
    expect(notes((await mount(undefined, failing)).root)).toEqual([
      'Provider "openrouter" could not list its models (in its own words: "HTTP 503: unavailable")',
    ])
    await cleanup()
    expect(notes((await mount(undefined, failing, 'zh')).root)).toEqual([
      '提供方「openrouter」没能列出模型（原文：“HTTP 503: unavailable”）',
    ])
  })

  it('says so when the host runs no model service at all', async () => {
    const none: ModelCatalog = { providers: [], failures: [{ missing: 'llm' }] }
    expect(notes((await mount(undefined, none)).root)).toEqual([
      'This host runs no model service, so there are no models to pick from.',
    ])
    await cleanup()
    expect(notes((await mount(undefined, none, 'zh')).root)).toEqual(['本机没有运行模型服务，没有可选的模型。'])
  })
})

describe("the draft of a profile's model", () => {
  it("sends the choice, and null to go back to the conversation's model", () => {
    const base = profile({ model: { provider: 'p', model: 'm' } })
    const removed = { base, value: { ...base } }
    delete (removed.value as { model?: unknown }).model
    expect(changedFields(removed)).toEqual(['model'])
    expect(buildPatch(removed)).toEqual({ model: null })
    const edited = { base, value: { ...base, model: { provider: 'p', model: 'm', temperature: 1 } } }
    expect(buildPatch(edited)).toEqual({ model: { provider: 'p', model: 'm', temperature: 1 } })
    expect(changedFields({ base, value: { ...base, model: { provider: 'p', model: 'm' } } })).toEqual([])
  })
})
