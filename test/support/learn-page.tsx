/**
 * "Learn from ChatGPT or Claude" (lib/client/settings/learn/LearnFromExport.tsx) rendered with real React over the
 * real routes on a loopback server, for the learn client specs: the routes' parts are the spec's (a fresh store, or
 * one with the learning run installed), the section, the page's language, and a wait on real time for what the host
 * does. Closing stops the server and the import worker; the store is the caller's.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApiContext, createApiClient, type ApiClient } from '../../lib/client/data/api.ts'
import { bindLocale } from '../../lib/client/copy/locales.ts'
import { LearnFromExport } from '../../lib/client/settings/learn/LearnFromExport.tsx'
import { importNoteText } from '../../lib/client/settings/import-report.ts'
import { createHandler } from '../../lib/http/routes.ts'
import type { RouteDeps } from '../../lib/http/route-kit.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { act } from 'react'
import type { ModelChoiceApi } from '../../lib/prompt/model-choice.ts'
import { afterEach } from 'vitest'
import { cleanup, render, settle, text } from './dom.tsx'
import { SPINE_MODEL } from './spine.ts'
import type { Context } from '@deepseek-ai/cordis'
import { installLearn } from '../../lib/learn/run/install.ts'
import type { LearnRunner } from '../../lib/learn/run/runner.ts'
import { boot, type Harness } from './memory-harness.ts'
import { routeMeta } from './http.ts'

/** The section mounted, and how to take it down (the locale bound for English is unbound too). */
export interface LearnPage {
  container: HTMLElement
  /** The page's client (its snapshot, its push channel). */
  client: ApiClient
  /** The routes' base URL (`…/__ap`), for what another tab or process sends. */
  base: string
  /**
   * How many of the page's questions of how the learning run stands (`GET …/learn/run`) it has read the answer of: a
   * spec waits on it where the page's answer, not a time, decides (a run shown or not).
   */
  runAnswers(): number
  close(): Promise<void>
}

/**
 * `fetch` for the page's client, counting each answer of `GET …/learn/run` once the client has read its body (the
 * page takes it into its state in the same turn).
 */
function countingRunAnswers(seen: { runAnswers: number }): typeof fetch {
  return async (input, init) => {
    const res = await globalThis.fetch(input, init)
    if (!String(input).split('?')[0]!.endsWith('/learn/run') || (init?.method ?? 'GET') !== 'GET') return res
    const read = res.text.bind(res)
    res.text = async () => {
      const body = await read()
      seen.runAnswers++
      return body
    }
    return res
  }
}

/** The section over the routes of `deps` (preview, meta and hosts filled in), in `lang`. */
export async function renderLearnPage(
  deps: Pick<RouteDeps, 'store' | 'log'> & Partial<RouteDeps>,
  lang: 'en' | 'zh',
): Promise<LearnPage> {
  const handler = createHandler({
    preview: (p, s) => renderProfile(p, s),
    // With the store's revision, as the host's meta has it: the push channel's events are told apart by it.
    meta: () => ({ ...routeMeta(deps.store), revision: deps.store.revision }),
    trustedHosts: () => [],
    ...deps,
  })
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const unbind =
    lang === 'en' ? bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} }) : () => {}
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/__ap`
  const seen = { runAnswers: 0 }
  const client = createApiClient(base, countingRunAnswers(seen))
  await client.refresh()
  const { container } = await render(
    <ApiContext.Provider value={client}>
      <LearnFromExport state={client.getSnapshot().state!} noteText={importNoteText} />
    </ApiContext.Provider>,
  )
  return {
    container,
    client,
    base,
    runAnswers: () => seen.runAnswers,
    close: async () => {
      unbind()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await handler.imports.close()
    },
  }
}

/** Wait (real time: the worker reads the file, the run asks the model) until `ok`; a timeout says what the page says. */
export async function until(ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out; the page says: ${text(document.body)}`)
    await settle(20)
  }
}

/** The host's model list: the one model the in-process scripted model serves. */
const mockModels = {
  catalog: async () => ({
    providers: [
      {
        id: SPINE_MODEL.provider,
        name: 'Mock',
        models: [{ id: SPINE_MODEL.model, name: 'M', efforts: [] }],
      },
    ],
    failures: [],
  }),
} as unknown as ModelChoiceApi

/** Choose the one model of the list in the Model select (labelled `label`). */
export async function chooseModel(page: HTMLElement, label = 'Model'): Promise<void> {
  const l = [...page.querySelectorAll('label')].find((x) => text(x) === label)!
  const select = document.getElementById(l.htmlFor) as HTMLSelectElement
  // The models are listed once the export is read.
  await until(() => select.options.length > 1)
  await chooseOption(select, '0')
}

/** Choose `value` in `select`, as the user does. */
export async function chooseOption(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value
    select.dispatchEvent(new Event('change', { bubbles: true }))
  })
}

/** A spec's in-process learning host and its section: set by `open`, taken down after each test. */
export interface LearningSpec {
  h: Harness
  /** The section open now. */
  page: LearnPage
  /**
   * Boot the host (spine, store, scripted model) with the learning run installed, run `before` on it (past
   * conversations, say), and mount the section over its routes (with `extra` parts) in `lang`.
   */
  open(
    lang: 'en' | 'zh',
    extra?: (h: Harness) => Partial<RouteDeps>,
    before?: (h: Harness) => Promise<void>,
  ): Promise<HTMLElement>
}

/** A {@link LearningSpec} for the calling spec, its host and page closed after each test. */
export function learningSpec(): LearningSpec {
  let page: LearnPage | undefined
  const spec = {
    async open(lang, extra = () => ({}), before = async () => undefined) {
      spec.h = await boot()
      const h = spec.h
      let runner: LearnRunner | undefined
      await h.ctx.plugin({
        name: 'ap-learn',
        apply: (ctx: Context) => {
          runner = installLearn(ctx, h.store, h.config, h.log)
        },
      })
      await before(h)
      page = await renderLearnPage(
        { store: h.store, log: h.log, models: () => mockModels, learn: () => runner, ...extra(h) },
        lang,
      )
      spec.page = page
      return page.container
    },
  } as LearningSpec
  afterEach(async () => {
    await cleanup()
    await page?.close()
    page = undefined
    await spec.h?.close()
  })
  return spec
}
