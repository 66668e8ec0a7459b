// Registration, in-process on the real dsh spine with the real store and a model that records every request: what
// the model receives, per conversation, across switches, memory changes, hostile text, subagents, presets and reloads.
// The rig is support/prompt-rig.ts; the memory block's cache stability and per-turn attribution are install-memory.spec.ts's.
import { describe, expect, it, vi } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import { SessionId } from '@deepseek-ai/dsh-session'
import { DEFAULT_CONFIG } from '../../lib/config/config.ts'
import { DEFAULT_RULES } from '../../lib/state/defaults.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { installPrompt, type PromptStore } from '../../lib/prompt/install.ts'
import { warningLine } from '../../lib/log/warnings.ts'
import type { PromptDiagnostics } from '../../lib/shared/diagnostics.ts'
import { rig, lines, visible } from '../support/prompt-rig.ts'

describe('installPrompt on the real agent loop', () => {
  it('the factory default general assistant, with its five ground rules, reaches a new conversation', async () => {
    const r = await rig()
    await r.load()
    const system = await r.turn(await r.agent('s-a'))
    for (const rule of lines(DEFAULT_RULES)) expect(system).toContain(rule)
    expect(system).toContain('你是「通用助手」')
    expect(system.indexOf('You are an AI agent powered by DeepSeek Harness')).toBeLessThan(
      system.indexOf('# 智能体配置'),
    )
    expect(system).not.toContain('长期记忆')
  })

  it('a pin in conversation A leaves conversation B on the global default', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    const b = await r.agent('s-b')
    await r.store.command({ op: 'session.set', sessionId: 's-a', patch: { profileId: 'coder', note: '只用 Rust。' } })
    const sa = await r.turn(a)
    const sb = await r.turn(b)
    expect(sa).toContain('你是「编程搭档」')
    expect(sa).toContain('只用 Rust。')
    expect(sa).not.toContain('通用助手')
    expect(sb).toContain('你是「通用助手」')
    expect(sb).not.toContain('编程搭档')
    expect(sb).not.toContain('只用 Rust')
  })

  it('conversations already alive when the plugin loads get their own sections too', async () => {
    const r = await rig()
    const a = await r.agent('s-early')
    await r.store.command({ op: 'session.set', sessionId: 's-early', patch: { profileId: 'writer' } })
    await r.load()
    expect(await r.turn(a)).toContain('你是「写作顾问」')
    expect(r.diagnostics().assemblies.conversation).toBe(1)
    expect(r.diagnostics().assemblies.global).toBe(0)
  })

  it('a switch between turns changes only the next request, with the notice exactly once, and the ledger follows', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    const b = await r.agent('s-b')
    await r.store.command({ op: 'session.set', sessionId: 's-b', patch: { profileId: 'coder' } })
    const a1 = await r.turn(a)
    const b1 = await r.turn(b)
    await r.store.command({ op: 'profile.activate', id: 'writer' })
    const a2 = await r.turn(a)
    const a3 = await r.turn(a)
    const b2 = await r.turn(b)
    expect(a1).toContain('你是「通用助手」')
    expect(a2).toContain('你是「写作顾问」')
    expect(a2).toContain('已由「通用助手」改为「写作顾问」')
    expect(a3).toContain('你是「写作顾问」')
    expect(a3).not.toContain('配置已切换')
    // B is pinned: the global switch does not touch it, and it gets no notice.
    expect(b2).toBe(b1)
    // The history the model gets is the session's, untouched: turn 1's reply is still there as it was.
    const history = r.adapter.requests.at(-2)!.messages
    expect(history.filter((m) => m.role === 'assistant')).toHaveLength(2)
    await vi.waitFor(() => expect(r.store.turnsOf('s-a')).toEqual({ 1: 'general', 2: 'writer', 3: 'writer' }))
    await vi.waitFor(() => expect(r.store.turnsOf('s-b')).toEqual({ 1: 'coder', 2: 'coder' }))
  })

  it('after a restart the ledger tells which profile answered last, so a switch made meanwhile is announced', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    await r.turn(a)
    await vi.waitFor(() => expect(r.store.turnsOf('s-a')).toEqual({ 1: 'general' }))
    await r.plugin!.dispose()
    await r.store.command({ op: 'profile.activate', id: 'coder' })
    await r.load()
    const next = await r.turn(a)
    expect(next).toContain('已由「通用助手」改为「编程搭档」')
  })

  it('memory sits at the end of the system prompt; a memory change leaves every byte before it untouched', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户叫小王' }] })
    const s1 = await r.turn(a)
    await r.store.command({ op: 'memory.add', target: { sessionId: 's-a' }, items: [{ text: '本对话在改登录页' }] })
    const s2 = await r.turn(a)
    const start = s1.indexOf('# 长期记忆')
    expect(start).toBeGreaterThan(s1.indexOf('# 智能体配置'))
    expect(s1.endsWith('- 用户叫小王')).toBe(true)
    expect(s2.slice(0, start)).toBe(s1.slice(0, start))
    expect(s2.endsWith('- 本对话在改登录页')).toBe(true)
  })

  it('memory off removes the whole memory block from the next request', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户叫小王' }] })
    await r.store.command({ op: 'memory.add', target: { sessionId: 's-a' }, items: [{ text: '本对话在改登录页' }] })
    expect(await r.turn(a)).toContain('用户叫小王')
    await r.store.command({ op: 'profile.update', id: 'general', patch: { memoryEnabled: false } })
    const off = await r.turn(a)
    expect(off).not.toMatch(/记忆|小王|登录页/)
    expect(off).toContain('你是「通用助手」')
  })

  it('hostile braces and markup in every field never break the turn and reach the model readable', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    const h = (tag: string) => `${tag}: {{model}} {{ {{{x}}} }} {{cwd {{}} <script>alert(1)</script> \${x}`
    await r.store.command({
      op: 'profile.update',
      id: 'general',
      patch: {
        name: '{{name}}',
        role: h('role'),
        personality: h('personality'),
        speakingStyle: h('style'),
        rules: h('rules'),
        memory: { summary: h('summary') },
      },
    })
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: h('item') }] })
    await r.store.command({
      op: 'session.set',
      sessionId: 's-a',
      patch: { note: h('note'), memories: [{ text: h('conv') }] },
    })
    const system = await r.turn(a)
    for (const tag of ['role', 'personality', 'style', 'rules', 'summary', 'item', 'note', 'conv'])
      expect(visible(system)).toContain(h(tag))
    expect(system).not.toContain('deepseek') // {{model}} was not substituted
    // A switch notice naming the hostile profile is just as safe.
    await r.store.command({ op: 'session.set', sessionId: 's-a', patch: { profileId: 'coder' } })
    await r.store.command({ op: 'profile.update', id: 'coder', patch: { name: '}}{{' } })
    expect(visible(await r.turn(a))).toContain('由「{{name}}」改为「}}{{」')
    expect(r.warnings).toEqual([])
  })

  it('a subagent gets no persona by default, even though the global default would reach it', async () => {
    const r = await rig()
    await r.load()
    const parent = await r.agent('s-parent')
    await r.store.command({ op: 'session.set', sessionId: 's-parent', patch: { profileId: 'coder' } })
    const child = await r.agent('s-child', { meta: { origin: 'subagent', parentSession: SessionId('s-parent') } })
    const system = await r.turn(child)
    expect(system).not.toContain('智能体配置')
    expect(system).toContain('DeepSeek Harness')
    expect(await r.turn(parent)).toContain('编程搭档')
    expect(r.diagnostics().assemblies.subagent).toBe(1)
    // The parent's turn reaches the ledger: the child's, a turn earlier, would have reached it first.
    await expect.poll(() => r.store.turnsOf('s-parent')).toEqual({ 1: 'coder' })
    expect(r.store.turnsOf('s-child')).toEqual({})
  })

  it("with subagents: inherit, a subagent gets its parent conversation's profile, without a switch notice", async () => {
    const r = await rig()
    await r.load({ subagents: 'inherit' })
    await r.agent('s-parent')
    await r.store.command({
      op: 'session.set',
      sessionId: 's-parent',
      patch: { profileId: 'coder', note: '父对话的补充' },
    })
    const child = await r.agent('s-child', { meta: { origin: 'subagent', parentSession: SessionId('s-parent') } })
    const c1 = await r.turn(child)
    expect(c1).toContain('你是「编程搭档」')
    expect(c1).toContain('父对话的补充')
    await r.store.command({ op: 'session.set', sessionId: 's-parent', patch: { profileId: 'writer' } })
    const c2 = await r.turn(child)
    expect(c2).toContain('你是「写作顾问」')
    expect(c2).not.toContain('配置已切换')
  })

  it('an agent whose preset owns a complete prompt keeps exactly that prompt', async () => {
    const r = await rig()
    await r.load()
    const preset = 'You are the minimal agent.'
    const a = await r.agent('s-min', {
      setup: (agentCtx) => {
        agentCtx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: preset, complete: true })
      },
    })
    expect(await r.turn(a)).toBe(preset)
    expect(r.warnings).toEqual([])
  })

  it("counts assemblies per layer and keeps each conversation's last rendered size", async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    await r.store.command({ op: 'session.set', sessionId: 's-a', patch: { note: '补充' } })
    await r.turn(a)
    await r.turn(a)
    await r.ctx.systemPrompt.assemble()
    const d = r.diagnostics()
    expect(d.assemblies).toEqual({ conversation: 2, global: 1, subagent: 0 })
    const expected = renderProfile(r.store.effective('s-a').profile, r.store.effective('s-a').setting, {
      memoryBudget: DEFAULT_CONFIG.memoryBudget,
    })
    expect(d.sessions['s-a']).toMatchObject({
      profileId: 'general',
      chars: expected.chars,
      tokens: expected.tokens,
      memoryCut: false,
    })
    expect(d.agents).toBe(1)
  })

  it('unload removes every section, global and per conversation; a reload registers again without duplicate-name errors', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    expect(await r.turn(a)).toContain('智能体配置')
    await r.plugin!.dispose()
    const bare = await r.turn(a)
    expect(bare).not.toContain('智能体配置')
    expect((await r.ctx.systemPrompt.assemble()).sections.map((s) => s.name)).not.toContain('agent-profiles:persona')
    await r.load()
    expect(await r.turn(a)).toContain('你是「通用助手」')
    const b = await r.agent('s-b')
    expect(await r.turn(b)).toContain('你是「通用助手」')
    expect(r.warnings).toEqual([])
  })

  it('a store that throws degrades to no injection with one warning, and the turn still completes', async () => {
    const r = await rig()
    const broken: PromptStore = {
      get state(): never {
        throw new Error('boom')
      },
      effective: () => {
        throw new Error('store unavailable')
      },
      command: () => Promise.reject(new Error('nope')),
      turnsOf: () => ({}),
      readOnly: undefined,
      file: '/nonexistent/profiles.sqlite',
    }
    await r.load({}, broken)
    const a = await r.agent('s-a')
    const s1 = await r.turn(a)
    const s2 = await r.turn(a)
    expect(s1).not.toContain('智能体配置')
    expect(s2).toBe(s1)
    expect(r.warnings.filter((w) => w.includes('store unavailable'))).toHaveLength(2) // persona and memory, once each
  })

  it('without a systemPrompt service it warns once and stays inert', async () => {
    const ctx = new Context()
    const warnings: string[] = []
    let handle: { diagnostics(): PromptDiagnostics } | undefined
    await ctx.plugin({
      name: 'bare',
      apply: (c: Context) => {
        handle = installPrompt(c, {} as PromptStore, DEFAULT_CONFIG, { warn: (m) => warnings.push(m) })
      },
    })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/systemPrompt/)
    // The diagnostics keep the warning as a key the page words; the log has the one English line made from it.
    expect(handle!.diagnostics().degraded).toEqual([{ key: 'no-system-prompt' }])
    expect(handle!.diagnostics().degraded.map(warningLine)).toEqual(warnings)
    await ctx.fiber.dispose()
  })
})
