/**
 * Prompt injection through the real `dsh web` (the pinned host, this plugin installed, offline model), driven over the
 * host's own `/api` like the web client, asserting on the system prompt the model actually received: the factory
 * default's rules, per-conversation pins, a switch with its one-time notice and the turn ledger, memory on/off,
 * hostile text, a subagent, and the `minimal` preset whose complete prompt must stay untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_RULES } from '../../lib/state/defaults.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { ledgerOf } from '../support/memory-requests.ts'
import {
  isTitleRequest,
  startModelServer,
  textOf,
  type ModelServer,
  type RecordedRequest,
  type Reply,
} from '../support/model-server.ts'

let model: ModelServer
let host: Host
let script: (r: RecordedRequest) => Reply | undefined = () => undefined

const visible = (s: string) => s.replaceAll('\u200D', '')

/** Send one message and return the first conversation request that carried it. */
async function say(sessionId: string, text: string): Promise<RecordedRequest> {
  const [request] = await host.say(sessionId, text)
  return request!
}

beforeAll(async () => {
  model = await startModelServer()
  model.respond((r) => script(r) ?? (isTitleRequest(r) ? undefined : { text: `已收到：${r.lastUser}` }))
  host = await bootHost(model)
})

afterAll(async () => {
  await host?.stop()
  await model?.close()
})

describe('what the model receives through the real dsh web', () => {
  it('a new conversation carries the factory default assistant with its five ground rules, after the host persona', async () => {
    const r = await say(await host.conversation(), 'E2E-DEFAULT 你好')
    for (const rule of DEFAULT_RULES.split('\n')) expect(r.system).toContain(rule)
    expect(r.system).toContain('你是「通用助手」')
    expect(r.system.indexOf('DeepSeek Harness')).toBeLessThan(r.system.indexOf('# 智能体配置'))
  })

  it('a pin in conversation A leaves B on the global default; a global switch then changes only B, once announced', async () => {
    const a = await host.conversation()
    const b = await host.conversation()
    await host.command({ op: 'session.set', sessionId: a, patch: { profileId: 'coder', note: 'E2E 只用 Rust' } })
    const a1 = await say(a, 'E2E-PIN-A1')
    const b1 = await say(b, 'E2E-PIN-B1')
    expect(a1.system).toContain('你是「编程搭档」')
    expect(a1.system).toContain('E2E 只用 Rust')
    expect(b1.system).toContain('你是「通用助手」')
    expect(b1.system).not.toContain('编程搭档')
    await host.command({ op: 'profile.activate', id: 'writer' })
    try {
      const a2 = await say(a, 'E2E-PIN-A2')
      const b2 = await say(b, 'E2E-PIN-B2')
      const b3 = await say(b, 'E2E-PIN-B3')
      expect(a2.system).toBe(a1.system)
      expect(b2.system).toContain('你是「写作顾问」')
      expect(b2.system).toContain('已由「通用助手」改为「写作顾问」')
      expect(b3.system).toContain('你是「写作顾问」')
      expect(b3.system).not.toContain('配置已切换')
      // The earlier reply is still in the history, unchanged: the plugin never rewrites it.
      expect(b3.messages.filter((m) => m.role === 'assistant').map(textOf)).toContain('已收到：E2E-PIN-B1')
      expect(await ledgerOf(host, b, 3)).toEqual({ 1: 'general', 2: 'writer', 3: 'writer' })
      expect(await ledgerOf(host, a, 2)).toEqual({ 1: 'coder', 2: 'coder' })
    } finally {
      await host.command({ op: 'profile.activate', id: 'general' })
    }
  })

  it('memory is the last part of the system prompt, and switching memory off removes the whole block', async () => {
    const s = await host.conversation()
    await host.command({ op: 'memory.add', target: { sessionId: s }, items: [{ text: 'E2E-MEM 本对话在改登录页' }] })
    const on = await say(s, 'E2E-MEM-1')
    expect(on.system.trimEnd().endsWith('- E2E-MEM 本对话在改登录页')).toBe(true)
    await host.command({ op: 'profile.update', id: 'general', patch: { memoryEnabled: false } })
    try {
      const off = await say(s, 'E2E-MEM-2')
      expect(off.system).not.toContain('E2E-MEM 本对话')
      expect(off.system).not.toContain('长期记忆')
      expect(off.system).toContain('你是「通用助手」')
    } finally {
      await host.command({ op: 'profile.update', id: 'general', patch: { memoryEnabled: true } })
    }
  })

  it('braces and markup in every field of a pinned profile do not break the turn and reach the model readable', async () => {
    const h = (tag: string) => `${tag}: {{model}} {{ {{{x}}} }} {{cwd {{}} </system> <script>alert(1)</script>`
    await host.command({
      op: 'profile.update',
      id: 'writer',
      patch: {
        name: '{{title}}',
        role: h('role'),
        personality: h('personality'),
        speakingStyle: h('style'),
        rules: h('rules'),
        memory: { summary: h('summary') },
      },
    })
    await host.command({ op: 'memory.add', target: { profileId: 'writer' }, items: [{ text: h('item') }] })
    const s = await host.conversation()
    await host.command({
      op: 'session.set',
      sessionId: s,
      patch: { profileId: 'writer', note: h('note'), memories: [{ text: h('conv') }] },
    })
    const r = await say(s, 'E2E-HOSTILE')
    for (const tag of ['role', 'personality', 'style', 'rules', 'summary', 'item', 'note', 'conv'])
      expect(visible(r.system)).toContain(h(tag))
    expect(visible(r.system)).toContain('你是「{{title}}」')
    expect(await ledgerOf(host, s, 1)).toEqual({ 1: 'writer' })
    expect(host.web.output()).not.toMatch(/malformed prompt variable|unknown prompt variable/)
  })

  it('a subagent started by the conversation gets no persona (the default), while its parent keeps it', async () => {
    script = (r) => {
      const texts = r.messages.map(textOf)
      if (texts.some((t) => t.includes('E2E-SUB-CHILD')) && !texts.some((t) => t.includes('E2E-SUB-PARENT')))
        return { text: 'child done' }
      if (!r.lastUser.includes('E2E-SUB-PARENT')) return undefined
      if (r.messages.some((m) => m.role === 'tool')) return { text: 'parent done' }
      return {
        toolCalls: [
          {
            name: 'subagent',
            arguments: { description: 'e2e check', prompt: 'E2E-SUB-CHILD 请回答 ok', run_in_background: false },
          },
        ],
      }
    }
    try {
      const parent = await say(await host.conversation(), 'E2E-SUB-PARENT')
      const [child] = await model.waitFor(
        (r) =>
          r.messages.some((m) => textOf(m).includes('E2E-SUB-CHILD')) &&
          !r.messages.some((m) => textOf(m).includes('E2E-SUB-PARENT')),
        1,
        60_000,
      )
      await model.waitFor(
        (r) => r.lastUser.includes('E2E-SUB-PARENT') && r.messages.some((m) => m.role === 'tool'),
        1,
        60_000,
      )
      expect(parent.system).toContain('# 智能体配置')
      expect(child!.system).not.toContain('智能体配置')
      expect(child!.system).toContain('DeepSeek Harness')
    } finally {
      script = () => undefined
    }
  })

  it('a conversation on the minimal preset keeps its complete prompt untouched, and its turn completes', async () => {
    const s = await host.conversation('minimal')
    const r = await say(s, 'E2E-MINIMAL')
    expect(r.system).not.toContain('智能体配置')
    expect(r.system.length).toBeGreaterThan(0)
  })
})
