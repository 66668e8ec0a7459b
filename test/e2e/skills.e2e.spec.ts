/**
 * The profiles as skills through the real `dsh` (the pinned host, this plugin installed, offline model): the skill
 * catalog the model receives (the host's `<available_skills>` reminder message), loading a profile with the host's
 * `skill` tool, edits made between runs, a Chinese-only name, refused loads, and — in `dsh web`, over the host's own
 * `/api` — the replacement catalog the host sends within a conversation after a profile is renamed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasContent, type Profile } from '../../lib/state/model.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { Command } from '../../lib/store/store.ts'
import { makeHome, runHeadless, type Home } from '../support/dsh.ts'
import { bootHost, postJson, type Host } from '../support/host-api.ts'
import {
  isTitleRequest,
  startModelServer,
  textOf,
  type ModelServer,
  type RecordedRequest,
} from '../support/model-server.ts'
import type { SkillsStatus } from '../../lib/shared/diagnostics.ts'

/** The host's model-facing skill loader (`@deepseek-ai/dsh-tool-skill`) and its one argument. */
const SKILL_TOOL = 'skill'

let model: ModelServer
let home: Home
const ids = { reviewer: '', empty: '', chinese: '' }

/** Run store commands against the home's data file while no host is running (or through the same file format). */
async function edit(...commands: Command[]): Promise<Profile[]> {
  const store = await openStore({ file: home.dataFile })
  const made: Profile[] = []
  try {
    for (const cmd of commands) {
      const r = await store.command(cmd)
      if (r.profile) made.push(r.profile as Profile)
    }
  } finally {
    await store.close()
  }
  return made
}

async function profiles(): Promise<Profile[]> {
  const store = await openStore({ file: home.dataFile })
  const list = store.state.profiles
  await store.close()
  return list
}

/** The latest skill catalog the request carried: name → description, and the message text. */
function catalogOf(r: RecordedRequest): { entries: Map<string, string>; text: string } {
  const catalogs = r.messages.filter((m) => m.role === 'user' && textOf(m).includes('<available_skills>'))
  const text = catalogs.length ? textOf(catalogs[catalogs.length - 1]!) : ''
  const entries = new Map([...text.matchAll(/^- `([^`]+)`: (.*)$/gm)].map((m) => [m[1]!, m[2]!] as [string, string]))
  return { entries, text }
}

function toolResults(r: RecordedRequest): string[] {
  return r.messages.filter((m) => m.role === 'tool').map(textOf)
}

const turns = () => model.requests.filter((r) => !isTitleRequest(r))

/** Script one headless run: the first step calls `skill` once per name, every later step answers in text. */
function loads(...names: string[]): void {
  model.reset()
  model.respond((r) => {
    if (isTitleRequest(r)) return undefined
    return r.messages.some((m) => m.role === 'tool')
      ? { text: '已加载。' }
      : { toolCalls: names.map((name) => ({ name: SKILL_TOOL, arguments: { name } })) }
  })
}

beforeAll(async () => {
  model = await startModelServer()
  home = makeHome(['headless', 'web'])
  const [reviewer, empty, chinese] = await edit(
    {
      op: 'profile.create',
      profile: {
        name: 'Code Reviewer',
        role: '你审查代码的正确性与可读性。只看改动的部分。',
        rules: '指出问题时给出改法。',
      },
    },
    { op: 'profile.create', profile: { name: 'Empty Draft' } },
    { op: 'profile.create', profile: { name: '翻译官', role: '你把中文翻译成地道的德语。' } },
    { op: 'profile.activate', id: 'general' },
  )
  Object.assign(ids, { reviewer: reviewer!.id, empty: empty!.id, chinese: chinese!.id })
})

afterAll(async () => {
  await model?.close()
  home?.cleanup()
})

describe('headless', () => {
  it('shows the model a catalog of the profiles with content, and loads one with its current text', async () => {
    loads('agent-profile-code-reviewer')
    const run = await runHeadless(home, model, '请用代码审查员的方式看一下')
    expect(run.code, run.stderr).toBe(0)
    const [first, second] = turns()
    expect(first!.tools.map((t) => t.function.name)).toContain(SKILL_TOOL)
    // The catalog reaches the model as an injected reminder message, never in the system prompt.
    expect(first!.system).not.toContain('<available_skills>')
    const { entries } = catalogOf(first!)
    const ours = [...entries.keys()].filter((n) => n.startsWith('agent-profile-'))
    expect(ours.sort()).toEqual(
      [
        'agent-profile-code-reviewer',
        'agent-profile-coder',
        'agent-profile-general',
        `agent-profile-${ids.chinese}`,
        'agent-profile-writer',
      ].sort(),
    )
    expect(catalogOf(first!).text).not.toContain('Empty Draft')
    expect(entries.get('agent-profile-code-reviewer')).toBe('Code Reviewer：你审查代码的正确性与可读性。')
    expect(entries.get(`agent-profile-${ids.chinese}`)).toBe('翻译官：你把中文翻译成地道的德语。')
    for (const [name, description] of entries) {
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect(description.length).toBeLessThanOrEqual(80)
    }
    const [loaded] = toolResults(second!)
    const reviewer = (await profiles()).find((p) => p.id === ids.reviewer)!
    expect(loaded).toContain('<skill_content name="agent-profile-code-reviewer">')
    expect(loaded).toContain(renderProfile(reviewer).text)
  })

  it('a user can load a profile by typing /<skill name>: the host injects the same text before the model answers', async () => {
    model.reset()
    const run = await runHeadless(home, model, '/agent-profile-coder 帮我看一下这个函数')
    expect(run.code, run.stderr).toBe(0)
    const [first] = turns()
    const injected = first!.messages.map(textOf).find((t) => t.startsWith('<skill_content name="agent-profile-coder">'))
    const coder = (await profiles()).find((p) => p.id === 'coder')!
    expect(injected).toContain(renderProfile(coder).text)
  })

  it('after the profiles are edited, the next run shows the new catalog and loads the new text; the Chinese name is unchanged', async () => {
    await edit(
      { op: 'profile.update', id: ids.reviewer, patch: { name: 'Security Auditor', role: '你只关心安全漏洞。' } },
      { op: 'profile.update', id: ids.chinese, patch: { name: '校对员', role: '你逐字校对德语译文。' } },
      { op: 'profile.update', id: ids.empty, patch: { personality: '终于有内容了' } },
      { op: 'profile.update', id: 'writer', patch: { role: '', personality: '', speakingStyle: '', rules: '' } },
    )
    loads(`agent-profile-${ids.chinese}`)
    const run = await runHeadless(home, model, '请校对')
    expect(run.code, run.stderr).toBe(0)
    const [first, second] = turns()
    const { entries } = catalogOf(first!)
    expect(entries.has('agent-profile-security-auditor')).toBe(true)
    expect(entries.has('agent-profile-code-reviewer')).toBe(false)
    expect(entries.has('agent-profile-empty-draft')).toBe(true)
    expect(entries.has('agent-profile-writer')).toBe(false)
    expect(entries.get(`agent-profile-${ids.chinese}`)).toBe('校对员：你逐字校对德语译文。')
    const [loaded] = toolResults(second!)
    expect(loaded).toContain(`<skill_content name="agent-profile-${ids.chinese}">`)
    expect(loaded).toContain('你是「校对员」。\n你逐字校对德语译文。')
    expect(loaded).not.toContain('翻译官')
  })

  it('a load the model gets wrong is a tool error it can read, and the turn still completes', async () => {
    await edit({ op: 'profile.create', profile: { name: 'Blank Slate' } }, { op: 'profile.activate', id: 'general' })
    loads('agent-profile-does-not-exist', 'agent-profile-blank-slate', 'Agent Profile!', 'agent-profile-general')
    const run = await runHeadless(home, model, '加载几个技能')
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('已加载。')
    const results = toolResults(turns()[1]!)
    expect(results).toHaveLength(4)
    expect(results[0]).toMatch(/agent-profile-does-not-exist.*(unknown|no longer available)/)
    expect(results[1]).toMatch(/agent-profile-blank-slate.*(unknown|no longer available)/)
    expect(results[2]).toMatch(/invalid skill name/)
    expect(results[3]).toContain('你是「通用助手」。')
    expect(run.stderr).not.toMatch(/agent-profiles.*skill .*failed/)
  })
})

describe('web: within one conversation', () => {
  let host: Host
  /** What the conversation holds from the user message `text` on, in one request. */
  const from = (r: RecordedRequest, text: string) => {
    const i = r.messages.findLastIndex((m) => m.role === 'user' && textOf(m).includes(text))
    return i < 0 ? undefined : r.messages.slice(i)
  }
  /** Send `text`; resolves with every request that carried it, once the model has seen the skill tool's answer. */
  async function say(sessionId: string, text: string): Promise<RecordedRequest[]> {
    await host.prompt(sessionId, text)
    await model.waitFor(
      (r) => !isTitleRequest(r) && (from(r, text)?.some((m) => m.role === 'tool') ?? false),
      1,
      60_000,
    )
    return model.requests.filter((r) => !isTitleRequest(r) && from(r, text) !== undefined)
  }

  beforeAll(async () => {
    model.reset()
    // "加载 <name> [tag]" asks for one skill load; once its result is in, the model answers in text.
    model.respond((r) => {
      if (isTitleRequest(r)) return undefined
      const asked = [...r.messages].reverse().find((m) => m.role === 'user' && textOf(m).startsWith('加载 '))
      if (asked === undefined) return undefined
      const name = textOf(asked).slice('加载 '.length).split(' ')[0]!
      return from(r, textOf(asked))!.some((m) => m.role === 'tool')
        ? { text: '已加载。' }
        : { toolCalls: [{ name: SKILL_TOOL, arguments: { name } }] }
    })
    host = await bootHost(model, { home })
  })
  afterAll(async () => {
    await host?.stop()
  })

  it('a rename saved mid-conversation reaches the model as a replacement catalog before its next step', async () => {
    const created = await fetch(
      `${host.web.url}/__ap/command`,
      postJson({ op: 'profile.create', profile: { name: 'Scout', role: '你负责侦察。' } }),
    )
    expect(created.status, await created.clone().text()).toBe(200)
    const { profile } = (await created.json()) as { profile: Profile }
    const sessionId = await host.conversation()
    const [before] = await say(sessionId, '加载 agent-profile-scout')
    expect(catalogOf(before!).entries.get('agent-profile-scout')).toBe('Scout：你负责侦察。')
    // A change that leaves every name and description as it was sends no new catalog: the history stays byte-stable.
    const remembered = await fetch(
      `${host.web.url}/__ap/command`,
      postJson({ op: 'memory.add', target: { profileId: profile.id }, items: [{ text: '目标是内网' }] }),
    )
    expect(remembered.status, await remembered.clone().text()).toBe(200)
    const again = await say(sessionId, '加载 agent-profile-scout #2')
    expect(again[0]!.messages.filter((m) => textOf(m).includes('<available_skills>'))).toHaveLength(1)
    expect(toolResults(again.at(-1)!).at(-1)).toContain('目标是内网')
    const res = await fetch(
      `${host.web.url}/__ap/command`,
      postJson({ op: 'profile.update', id: profile.id, patch: { name: 'Pen Tester', role: '你做渗透测试。' } }),
    )
    expect(res.status, await res.clone().text()).toBe(200)
    const requests = await say(sessionId, '加载 agent-profile-pen-tester')
    const first = requests[0]!
    const { entries, text } = catalogOf(first)
    expect(text).toContain('The available skill catalog changed')
    expect(entries.get('agent-profile-pen-tester')).toBe('Pen Tester：你做渗透测试。')
    expect(entries.has('agent-profile-scout')).toBe(false)
    const loaded = toolResults(requests.at(-1)!).at(-1)
    expect(loaded).toContain('<skill_content name="agent-profile-pen-tester">')
    expect(loaded).toContain('你是「Pen Tester」。\n你做渗透测试。')
    // The settings page's diagnostics see the part running, with these loads counted.
    const { meta } = await host.read<{ meta: { skills?: SkillsStatus } }>()
    expect(meta.skills).toMatchObject({ available: true, failures: 0 })
    expect(meta.skills!.loaded).toBeGreaterThanOrEqual(3)
    expect(meta.skills!.listed).toBe((await host.profiles()).filter(hasContent).length)
  })
})
