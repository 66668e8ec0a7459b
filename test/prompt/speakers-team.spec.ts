/**
 * A team profile as a speaker, on the real dsh spine in process: @-mentioned it answers with its persona and at
 * most the read-only tools (whatever its repository asked for; a writer it calls anyway is refused and not run);
 * cast in a conversation it answers `@all` in its place; when its library is removed the conversation's cast and
 * pin lose it, and the next `@all` no longer reaches it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { GenerateOptions } from '@deepseek-ai/dsh-llm'
import type { Harness } from '../support/memory-harness.ts'
import { bootSpeakers } from '../support/speakers-harness.ts'
import { toolResult } from '../support/spine.ts'

let h: Harness
let ran: string[]
const TEAM = 't-lib0000001-abcdef012345'
const LIBRARY = { id: 'lib0000001', name: '平台组' }

const names = (o: GenerateOptions) => (o.tools ?? []).map((t) => t.name).sort()
const turns = () => h.model.of('turn').map((s) => s.options)

beforeEach(async () => {
  ran = []
  h = await bootSpeakers(ran)
  const own = h.store.state.profiles.find((p) => p.id === 'general')!
  // The team's files ask for every tool; a team profile runs with read-only at most.
  await h.store.command({
    op: 'library.apply',
    library: LIBRARY,
    profiles: [
      {
        ...own,
        id: TEAM,
        name: '审查员',
        role: '你是团队的审查员，暗号 T-9。',
        tools: { profile: 'full', add: [], remove: [] },
        memory: { summary: '', items: [] },
      },
    ],
  })
  await h.store.command({ op: 'profile.activate', id: 'general' })
})
afterEach(async () => {
  await h.close()
})

describe('a team profile as a speaker', () => {
  it('@-mentioned, it answers with its persona and read-only tools; a writer it calls is refused and not run', async () => {
    const agent = await h.conversation('s-mention')
    h.model.script('turn', { tool: 'write', args: { path: 'a.txt' } }, { text: '我不能写' })
    await h.turn(agent, '@审查员 把结论写进文件')
    const [asked, after] = turns()
    expect(asked!.system).toContain('T-9')
    expect(names(asked!)).toEqual(['memory_save', 'read'])
    expect(ran).toEqual([])
    expect(toolResult(after!)).toMatch(/工具「write」不在当前智能体配置「审查员」的工具档（只读）允许的范围内/)
    expect(h.store.turnsOf('s-mention')).toEqual({ 1: TEAM })
  })

  it('cast in a conversation it answers @all; once its library is removed the cast and pin lose it', async () => {
    await h.store.command({ op: 'session.set', sessionId: 's-cast', patch: { profileId: TEAM, cast: [TEAM, 'coder'] } })
    const agent = await h.conversation('s-cast')
    await h.turn(agent, '@all 说说看')
    const [first, second] = turns()
    expect(first!.system).toContain('T-9')
    expect(names(first!)).toEqual(['memory_save', 'read'])
    expect(second!.system).not.toContain('T-9')
    expect(Object.values(h.store.turnsOf('s-cast'))).toContain(TEAM)

    await h.store.command({ op: 'library.apply', library: LIBRARY, profiles: [], remove: true })
    const setting = h.store.state.sessions.get('s-cast')
    expect(setting?.profileId ?? null).toBeNull()
    expect(setting?.cast ?? []).not.toContain(TEAM)
    const before = turns().length
    await h.turn(agent, '@all 再说说')
    const later = turns().slice(before)
    expect(later.length).toBeGreaterThan(0)
    for (const o of later) expect(o.system).not.toContain('T-9')
  })
})
