/**
 * A profile's model through the real `dsh` (the pinned host, this plugin installed, the offline model answering under
 * the two model names the DeepSeek provider lists), asserting on the model each request named: a profile's model and
 * temperature reach the request and the `{{model}}` prompt variable, the composer shows it without changing the
 * user's global default, a composer pick wins until the next profile switch, a profile saved with a model the host
 * does not offer is refused, a model or a whole provider the host stopped offering falls back to the conversation's
 * model with a notice on the turn (and the composer of a conversation whose provider went is not blocked), and
 * headless runs on the profile's model too, and on the conversation's when the profile's provider has no API key.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ModelCatalog } from '../../lib/shared/models.ts'
import type { TurnsReply } from '../../lib/shared/wire-replies.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { makeHome, piAiProvider, runHeadless, type Home, type RunResult } from '../support/dsh.ts'
import { bootEchoing, bootHost, postJson, type Host } from '../support/host-api.ts'
import { isTitleRequest, type ModelServer, type Reply } from '../support/model-server.ts'

const PROVIDER = 'deepseek-official'
const FLASH = 'deepseek-v4-flash'
const PRO = 'deepseek-v4-pro'

let model: ModelServer
let host: Host

beforeAll(async () => {
  ;({ model, host } = await bootEchoing())
})

afterAll(async () => {
  await host?.stop()
  await model?.close()
})

/** A profile with `choice` as its model (validated by the host), left inactive. */
async function profileWith(name: string, choice: Record<string, unknown> | undefined): Promise<string> {
  const { profile } = await host.command<{ profile: { id: string } }>({
    op: 'profile.create',
    profile: { name, role: `${name}的角色`, ...(choice ? { model: choice } : {}) },
  })
  await host.command({ op: 'profile.activate', id: 'general' })
  return profile.id
}

async function pinned(profileId: string): Promise<string> {
  const sessionId = await host.conversation()
  await host.command({ op: 'session.set', sessionId, patch: { profileId } })
  return sessionId
}

/** What the composer shows for a conversation: the host's own `session.models` answer. */
async function composer(sessionId: string): Promise<{ provider: string; model: string }> {
  return (await host.rpc<{ current: { provider: string; model: string } }>('session.models', { sessionId })).current
}

async function turns(sessionId: string): Promise<TurnsReply> {
  return (await (await fetch(`${host.web.url}/__ap/turns/${encodeURIComponent(sessionId)}`)).json()) as TurnsReply
}

/** One headless run of `task` on `home`: it succeeds, and every request of its turn names `expected`, {{model}} too. */
async function runsOn(home: Home, task: string, expected: string): Promise<RunResult> {
  const run = await runHeadless(home, model, task)
  expect(run.code, run.stderr).toBe(0)
  const asked = model.requests.filter((r) => !isTitleRequest(r) && r.lastUser.includes(task))
  expect(asked.length).toBeGreaterThan(0)
  expect(asked.every((r) => r.model === expected)).toBe(true)
  expect(asked[0]!.system).toContain(`powered by the ${expected} model`)
  return run
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`)
    await new Promise((r) => setTimeout(r, 150))
  }
}

describe('a profile brings its model (web)', () => {
  it("lists the host's providers and models for the editor", async () => {
    const catalog = (await (await fetch(`${host.web.url}/__ap/models`)).json()) as ModelCatalog
    const deepseek = catalog.providers.find((p) => p.id === PROVIDER)
    expect(deepseek?.models.map((m) => m.id)).toEqual([FLASH, PRO])
    expect(deepseek?.models[1]!.efforts.length).toBeGreaterThan(0)
  })

  it('refuses to save a model the host does not offer, naming the field and the rule', async () => {
    const res = await fetch(
      `${host.web.url}/__ap/command`,
      postJson({
        op: 'profile.create',
        profile: { name: '坏模型', model: { provider: PROVIDER, model: 'deepseek-v9-imaginary' } },
      }),
    )
    expect(res.status).toBe(400)
    // The rule is what the page words the refusal from, in the user's language.
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      code: 'invalid',
      field: 'profile.model',
      rule: 'model.not-listed',
    })
    const { state } = await host.read()
    expect(state.profiles.some((p) => p.name === '坏模型')).toBe(false)
  })

  it("answers on the profile's model and temperature, says it in {{model}}, and shows it in the composer", async () => {
    const reviewer = await profileWith('审阅', { provider: PROVIDER, model: PRO, temperature: 0.3 })
    const sessionId = await pinned(reviewer)
    // The composer of the pinned conversation shows the profile's model before anything is sent …
    await until(
      () => composer(sessionId),
      (c) => c.model === PRO,
      'the composer before the first turn',
    )
    const [request] = await host.say(sessionId, 'MODEL-ONE')
    expect(request!.model).toBe(PRO)
    expect(request!.body.temperature).toBe(0.3)
    expect(request!.system).toContain(`powered by the ${PRO} model`)
    expect(request!.system).not.toContain(`powered by the ${FLASH} model`)
    // … and the user's global default is untouched: a new conversation following the default starts on flash.
    const plain = await host.conversation()
    expect((await composer(plain)).model).toBe(FLASH)
    const [other] = await host.say(plain, 'MODEL-PLAIN')
    expect(other!.model).toBe(FLASH)
    const ledger = await until(
      () => turns(sessionId),
      (t) => t.models?.[1] !== undefined,
      'the turn record',
    )
    expect(ledger.models![1]).toMatchObject({ provider: PROVIDER, model: PRO, source: 'profile' })
  })

  it("lets the user's composer pick win until the next profile switch", async () => {
    const reviewer = await profileWith('审阅二', { provider: PROVIDER, model: PRO })
    const careful = await profileWith('细心', { provider: PROVIDER, model: PRO, temperature: 0.7 })
    const sessionId = await pinned(reviewer)
    expect((await host.say(sessionId, 'PICK-ONE'))[0]!.model).toBe(PRO)
    // The user picks flash in the composer: it answers the next turns, and the composer keeps showing it.
    await host.rpc('session.selectModel', { sessionId, provider: PROVIDER, model: FLASH })
    expect((await host.say(sessionId, 'PICK-TWO'))[0]!.model).toBe(FLASH)
    expect((await host.say(sessionId, 'PICK-THREE'))[0]!.model).toBe(FLASH)
    expect((await composer(sessionId)).model).toBe(FLASH)
    const ledger = await until(
      () => turns(sessionId),
      (t) => t.models?.[3] !== undefined,
      'the turn record',
    )
    expect(ledger.models![3]!.source).toBe('user')
    // A profile switch brings that profile's model back, in the composer and in the request.
    await host.command({ op: 'session.set', sessionId, patch: { profileId: careful } })
    await until(
      () => composer(sessionId),
      (c) => c.model === PRO,
      'the composer after the switch',
    )
    const [after] = await host.say(sessionId, 'PICK-FOUR')
    expect(after!.model).toBe(PRO)
    expect(after!.body.temperature).toBe(0.7)
  })

  it("retries on the conversation's model when the profile's provider refuses the call (HTTP 401), never a failed turn", async () => {
    const strict = await profileWith('严格', { provider: PROVIDER, model: PRO })
    const sessionId = await pinned(strict)
    model.respond((r): Reply | undefined =>
      isTitleRequest(r)
        ? undefined
        : r.model === PRO
          ? { status: 401, message: 'Authentication Fails (invalid api key)' }
          : { text: `已收到：${r.lastUser}` },
    )
    try {
      const asked = await host.say(sessionId, 'REFUSED-ONE', 2)
      expect(asked.map((r) => r.model)).toEqual([PRO, FLASH])
      const ledger = await until(
        () => turns(sessionId),
        (t) => t.models?.[1]?.source === 'fallback',
        'the turn record',
      )
      expect(ledger.models![1]).toMatchObject({
        model: FLASH,
        source: 'fallback',
        wanted: { provider: PROVIDER, model: PRO },
        why: 'call-failed',
      })
      // The next turn falls back before calling the refusing route again.
      const [next] = await host.say(sessionId, 'REFUSED-TWO')
      expect(next!.model).toBe(FLASH)
      expect(model.requests.filter((r) => r.lastUser.includes('REFUSED-TWO')).map((r) => r.model)).toEqual([FLASH])
    } finally {
      model.respond((r): Reply | undefined => (isTitleRequest(r) ? undefined : { text: `已收到：${r.lastUser}` }))
    }
  })

  it("falls back to the conversation's model with a notice when the host stops offering the profile's", async () => {
    const reviewer = await profileWith('审阅三', { provider: PROVIDER, model: PRO })
    await host.command({ op: 'profile.activate', id: reviewer })
    // The user removes the pro model from the provider's catalog; the host comes back without it.
    const port = host.web.port
    await host.web.stop()
    writeFileSync(
      join(host.home.dir, 'settings.yaml'),
      `ui-onboarding:\n  welcomeNoticeVersion: 2026-08-13.1\nllm-deepseek:\n  models:\n    - id: ${FLASH}\n      name: Flash\n`,
    )
    host = await bootHost(model, { home: host.home, port })
    const sessionId = await host.conversation()
    const [request] = await host.say(sessionId, 'GONE-ONE')
    expect(request!.model).toBe(FLASH)
    const ledger = await until(
      () => turns(sessionId),
      (t) => t.models?.[1] !== undefined,
      'the turn record',
    )
    expect(ledger.models![1]).toMatchObject({
      model: FLASH,
      source: 'fallback',
      wanted: { provider: PROVIDER, model: PRO },
      why: 'not-listed',
    })
    expect(ledger.models![1]!.reason).toContain(PRO)
    // The turn was answered, not failed.
    const { meta } = await host.read<{ meta: { modelChoice: { totals: { fallback: number } } } }>()
    expect(meta.modelChoice.totals.fallback).toBeGreaterThanOrEqual(1)
    await host.command({ op: 'profile.activate', id: 'general' })
  })
})

describe('a provider the host stops offering (web)', () => {
  it("answers on the conversation's model with a notice, and the composer is not blocked", async () => {
    // A second provider, as a user adds one in Settings → Models: an OpenAI-compatible route to the offline model.
    process.env.AP_OFFLINE_B_KEY = 'offline-b-key'
    const home = makeHome(['web'])
    const settings = (withB: boolean) =>
      `ui-onboarding:\n  welcomeNoticeVersion: 2026-08-13.1\n${withB ? piAiProvider('offline-b', 'AP_OFFLINE_B_KEY', 'offline-large', model.url) : ''}`
    writeFileSync(join(home.dir, 'settings.yaml'), settings(true))
    let b = await bootHost(model, { home })
    try {
      const { profile } = await b.command<{ profile: { id: string } }>({
        op: 'profile.create',
        profile: { name: '外部', model: { provider: 'offline-b', model: 'offline-large' } },
      })
      const sessionId = await b.conversation()
      await b.command({ op: 'session.set', sessionId, patch: { profileId: profile.id } })
      const [first] = await b.say(sessionId, 'B-ONE')
      expect(first!.model).toBe('offline-large')
      // The user removes the provider; the host comes back without it, and the conversation's log names it.
      const port = b.web.port
      await b.web.stop()
      writeFileSync(join(home.dir, 'settings.yaml'), settings(false))
      b = await bootHost(model, { home, port })
      // Opening the conversation (the composer reads its model list) lets the plugin put the fallback in place.
      await b.rpc('session.models', { sessionId })
      const shown = await until(
        () =>
          b.rpc<{ current: { provider: string; model: string }; routable: boolean }>('session.models', { sessionId }),
        (v) => v.routable && v.current.model === FLASH,
        'the composer of a conversation whose provider went',
      )
      expect(shown.current.provider).toBe(PROVIDER)
      const [second] = await b.say(sessionId, 'B-TWO')
      expect(second!.model).toBe(FLASH)
      const ledger = await until(
        async () =>
          (await (await fetch(`${b.web.url}/__ap/turns/${encodeURIComponent(sessionId)}`)).json()) as TurnsReply,
        (t) => t.models?.[2] !== undefined,
        'the turn record',
      )
      expect(ledger.models![2]).toMatchObject({
        model: FLASH,
        source: 'fallback',
        wanted: { provider: 'offline-b', model: 'offline-large' },
        why: 'no-provider',
      })
    } finally {
      await b.web.stop()
      home.cleanup()
      delete process.env.AP_OFFLINE_B_KEY
    }
  })
})

describe('a profile brings its model (headless)', () => {
  it("runs on the active profile's model, and on the conversation's when the host lacks it", async () => {
    const home = makeHome(['headless'])
    try {
      const store = await openStore({ file: home.dataFile })
      const { profile } = (await store.command({
        op: 'profile.create',
        profile: { name: '审阅', role: '审阅代码', model: { provider: PROVIDER, model: PRO } },
      })) as unknown as { profile: { id: string } }
      await store.close()
      model.reset()
      model.respond((r): Reply | undefined => (isTitleRequest(r) ? undefined : { text: `已收到：${r.lastUser}` }))
      await runsOn(home, 'HEADLESS-ONE', PRO)

      const again = await openStore({ file: home.dataFile })
      await again.command({
        op: 'profile.update',
        id: profile.id,
        patch: { model: { provider: 'gone-provider', model: 'gone-model' } },
      })
      await again.close()
      const fallback = await runsOn(home, 'HEADLESS-TWO', FLASH)
      expect(fallback.stdout).toContain('已收到：HEADLESS-TWO')
    } finally {
      home.cleanup()
    }
  })

  it("answers on the conversation's model when the profile's provider has no API key, and the run succeeds", async () => {
    const home = makeHome(['headless'])
    try {
      delete process.env.AP_NOKEY_H
      writeFileSync(join(home.dir, 'settings.yaml'), piAiProvider('nokey-h', 'AP_NOKEY_H', 'nokey-large', model.url))
      const store = await openStore({ file: home.dataFile })
      await store.command({
        op: 'profile.create',
        profile: { name: '无钥', role: '助手', model: { provider: 'nokey-h', model: 'nokey-large' } },
      })
      await store.close()
      model.reset()
      model.respond((r): Reply | undefined => (isTitleRequest(r) ? undefined : { text: `已收到：${r.lastUser}` }))
      const run = await runsOn(home, 'HEADLESS-NOKEY', FLASH)
      expect(run.stdout).toContain('已收到：HEADLESS-NOKEY')
    } finally {
      home.cleanup()
    }
  })
})
