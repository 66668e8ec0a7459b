// Recall on the real dsh spine in process: the plugin's prompt and recall parts wired as lib/index.ts wires them, a
// real store on a temp file, and a scripted model that records every request the conversation makes.
import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import type { GenerateOptions } from '@deepseek-ai/dsh-llm'
import { installPrompt } from '../../lib/prompt/install.ts'
import { installRecall, type RecallPart } from '../../lib/memory/recall-install.ts'
import { installMemoryCompress } from '../../lib/memory/compress.ts'
import { TurnLedger } from '../../lib/turn/ledger.ts'
import { TurnRecords } from '../../lib/turn/record.ts'
import { boot, settle, type Harness } from '../support/memory-harness.ts'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

async function rig(
  config: Record<string, unknown> = {},
): Promise<{ h: Harness; recall: () => RecallPart; reload(): Promise<void> }> {
  h = await boot(config)
  const harness = h
  let recall: RecallPart | undefined
  const load = () =>
    harness.ctx.plugin({
      name: 'agent-profiles-recall-spec',
      apply: (c: Context) => {
        // The ledger writes what the turn's record holds, as lib/index.ts wires it.
        const records = new TurnRecords(new TurnLedger(harness.store, harness.log))
        const p = installPrompt(c, harness.store, harness.config, harness.log, { records })
        recall = installRecall(c, harness.store, harness.config, harness.log, (agent) => p.core(agent), records)
      },
    })
  let fiber = await load()
  // A restart of the plugin with the conversation still there: what this process remembered is gone, the log is not.
  const reload = async () => {
    await fiber.dispose()
    fiber = await load()
  }
  return { h: harness, recall: () => recall!, reload }
}

/** The runtime-context messages a request carried (the loop's snapshots, in the order of the log). */
function contexts(o: GenerateOptions): string[] {
  return o.messages
    .filter((m) => m.role === 'user' && m.source.kind === 'plugin')
    .map((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''))
}

const turns = (h: Harness) => h.model.of('turn').map((s) => s.options)

/**
 * Fill the active profile with a pinned fact, `old` facts saved long ago and `n` unrelated newer ones (months of
 * them): more than the memory budget, so the memory half carries the core (the pinned fact), then return its id.
 */
async function filler(h: Harness, n: number, old: string[] = []): Promise<string> {
  const id = h.store.state.activeId
  const items = [
    // Pinned: the core every request carries, whatever the conversation is about.
    {
      id: 'pin',
      text: '用户希望回答先给结论',
      source: 'user' as const,
      at: Date.UTC(2024, 0, 1),
      pinned: true as const,
    },
    ...old.map((text, i) => ({ id: `o${i}`, text, source: 'user' as const, at: Date.UTC(2024, 5, 1 + i) })),
    ...Array.from({ length: n }, (_, i) => ({
      id: `f${i}`,
      text: `第${i}条记录：项目${i % 37}的会议纪要，讨论了进度与预算`,
      source: 'auto' as const,
      at: Date.UTC(2025, 0, 1) + i * 3_600_000,
    })),
  ]
  await h.store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items } } })
  return id
}

describe('recall', () => {
  it('a fact saved in turn 2 reaches the model in turn 4, after the question, while the system prompt stays byte-identical', async () => {
    const { h, recall } = await rig()
    const owner = await filler(h, 300)
    const agent = await h.conversation('sess-recall-1')
    await h.turn(agent, '你好，今天想聊聊旅行')
    await h.turn(agent, '对了，我住在杭州西湖区')
    // What the background job or the tool would save from turn 2.
    await h.store.command({
      op: 'memory.add',
      target: { profileId: owner },
      items: [{ text: '用户住在杭州西湖区', source: 'auto', sessionId: 'sess-recall-1' }],
    })
    await h.turn(agent, '推荐一部电影吧')
    await h.turn(agent, '我住在哪个城市来着？')
    const [t1, t2, t3, t4] = turns(h)
    expect(new Set([t1!.system, t2!.system, t3!.system, t4!.system]).size).toBe(1)
    // Turn 3 is about something else: nothing is recalled for it.
    expect(contexts(t3!)).toEqual([])
    expect(t4!.system).not.toContain('杭州西湖区')
    const last = contexts(t4!).at(-1)!
    expect(last).toContain('用户住在杭州西湖区')
    expect(last).toMatch(/（\d{4}-\d{2}-\d{2} 记下 · 记忆）用户住在杭州西湖区/)
    // After the question: the runtime context is the request's last message.
    expect(t4!.messages.at(-1)!.source.kind).toBe('plugin')
    // The ledger marks it recalled, beside the core items.
    await settle(50)
    const used = h.store.turnMemories('sess-recall-1', 4) ?? []
    expect(used.filter((u) => u.recalled === true).map((u) => u.text)).toEqual(['用户住在杭州西湖区'])
    expect(used.some((u) => u.recalled !== true)).toBe(true)
    expect(recall().status().last).toMatchObject({ sessionId: 'sess-recall-1', items: 1 })
  })

  it('sends each item once per conversation, and nothing when nothing new is relevant', async () => {
    const { h } = await rig()
    await filler(h, 300, ['用户养了一只叫豆豆的柯基犬'])
    const agent = await h.conversation('sess-recall-2')
    await h.turn(agent, '我的柯基犬叫什么名字？')
    await h.turn(agent, '柯基犬豆豆今天有点没精神')
    await h.turn(agent, '谢谢')
    const [a, b, c] = turns(h)
    expect(contexts(a!).at(-1)).toContain('豆豆')
    // The block is in the log once: later requests carry that same message and no new one.
    expect(contexts(b!)).toEqual(contexts(a!))
    expect(contexts(c!)).toEqual(contexts(a!))
  })

  it('after a restart, what the log holds counts as sent: nothing is sent again and nothing is cleared', async () => {
    const { h, reload } = await rig()
    await filler(h, 300, ['用户养了一只叫豆豆的柯基犬', '用户的女儿叫小满'])
    const agent = await h.conversation('sess-recall-restart')
    await h.turn(agent, '我的柯基犬叫什么名字？')
    await reload()
    // Nothing relevant: the snapshot in the log stands (no new one, none saying the old ones no longer apply).
    await h.turn(agent, '谢谢')
    // Both facts relevant: only the one not sent yet goes.
    await h.turn(agent, '柯基犬豆豆和女儿小满今天玩得很开心')
    const [a, b, c] = turns(h)
    expect(contexts(a!).at(-1)).toContain('豆豆')
    expect(contexts(b!)).toEqual(contexts(a!))
    const added = contexts(c!).slice(contexts(a!).length)
    expect(added).toHaveLength(1)
    expect(added[0]).toContain('小满')
    expect(added[0]).not.toContain('豆豆')
  })

  it("never recalls another profile's items, nor a suggestion, nor what the core already carries", async () => {
    const { h } = await rig()
    const owner = await filler(h, 400)
    const other = (await h.store.command({ op: 'profile.create', profile: { name: '另一个', role: '助手' } }))
      .profile as { id: string }
    await h.store.command({ op: 'profile.activate', id: owner })
    await h.store.command({
      op: 'memory.add',
      target: { profileId: other.id },
      items: [{ text: '另一个配置的秘密：用户的银行卡密码提示是杭州' }],
    })
    await h.store.command({ op: 'profile.update', id: owner, patch: { memoryMode: 'ask' } })
    await h.store.command({
      op: 'memory.add',
      target: { profileId: owner },
      items: [{ text: '待确认：用户想去杭州', source: 'tool' }],
    })
    const agent = await h.conversation('sess-recall-3')
    await h.turn(agent, '杭州有什么好玩的？银行卡密码提示是什么？')
    const all = contexts(turns(h)[0]!).join('\n')
    expect(all).not.toContain('秘密')
    expect(all).not.toContain('待确认')
    // The pinned fact is the core (memory half) and is never repeated by recall; the newest filler is not core.
    const core = turns(h)[0]!.system
    await h.turn(agent, '第399条记录说了什么？项目28的会议纪要')
    await h.turn(agent, '我希望回答先给结论，你还记得吗？')
    expect(core).toContain('用户希望回答先给结论')
    expect(core).not.toContain('第399条记录')
    expect(contexts(turns(h)[1]!).at(-1)).toContain('第399条记录')
    expect(contexts(turns(h)[2]!).join('\n')).not.toContain('用户希望回答先给结论')
  })

  it('spends one budget: what the core leaves of the memory budget goes to what the turn is about', async () => {
    const { h, recall } = await rig({ memoryBudget: 1_000, recallBudget: 200 })
    const owner = await filler(h, 300)
    const facts = Array.from(
      { length: 8 },
      (_, i) => `用户在杭州的第${i + 1}个常去的地方：${'西湖边的一家小店'.repeat(2)}`,
    )
    await h.store.command({
      op: 'memory.add',
      target: { profileId: owner },
      items: facts.map((text) => ({ text, source: 'auto' as const })),
    })
    const agent = await h.conversation('sess-recall-budget')
    await h.turn(agent, '我在杭州常去哪些地方？')
    const [t1] = turns(h)
    const system = t1!.system ?? ''
    const core = system.slice(system.indexOf('# 长期记忆'))
    const recalled = contexts(t1!).at(-1) ?? ''
    // More than recallBudget alone, never more than the one budget.
    expect(recalled.length).toBeGreaterThan(200)
    expect(core.length + recalled.length).toBeLessThanOrEqual(1_000 + 200 + 400)
    expect(facts.filter((f) => recalled.includes(f)).length).toBeGreaterThan(2)
    // Diagnostics say how it was spent: the core's characters, what that left recall, the items ranked.
    const last = recall().status().last!
    expect(last.core).toBe(core.length)
    expect(last.budget).toBe(1_000 + 200 - core.length)
    expect(last.chars).toBeLessThanOrEqual(last.budget!)
    expect(last.considered).toBeGreaterThanOrEqual(facts.length)
  })

  it('recalls what the conversation has been circling before the user names it again', async () => {
    const { h } = await rig()
    const owner = await filler(h, 300)
    const agent = await h.conversation('sess-recall-circling')
    await h.turn(agent, '下周要去青岛出差三天')
    // Saved while the conversation runs (another conversation's tool, the background job): out of this one's core.
    await h.store.command({
      op: 'memory.add',
      target: { profileId: owner },
      items: [{ text: '用户对贝类海鲜过敏，上次在青岛出差吃了蛤蜊进了医院', source: 'auto' }],
    })
    await h.turn(agent, '那边有什么要注意的？')
    const [t1, t2] = turns(h)
    expect(t1!.system).toBe(t2!.system)
    expect(contexts(t2!).at(-1)).toContain('用户对贝类海鲜过敏')
  })

  it('an unrelated new message recalls nothing: not what the turn before named, nor items sharing only a common word', async () => {
    const { h } = await rig()
    const owner = await filler(h, 300)
    // Twenty notes about the user's recommender project: "推荐" is a common word of this memory.
    await h.store.command({
      op: 'memory.add',
      target: { profileId: owner },
      items: Array.from({ length: 20 }, (_, i) => ({
        text: `推荐系统第${i}版的接口文档还没写完`,
        source: 'auto' as const,
      })),
    })
    const agent = await h.conversation('sess-recall-unrelated')
    await h.turn(agent, '我的柯基豆豆刚打完疫苗')
    await h.store.command({
      op: 'memory.add',
      target: { profileId: owner },
      items: [{ text: '用户养了一只柯基犬，名字叫豆豆，每年秋天打疫苗', source: 'auto' }],
    })
    await h.turn(agent, '推荐一部电影吧')
    const [t1, t2] = turns(h)
    expect(contexts(t1!)).toEqual([])
    expect(contexts(t2!)).toEqual([])
    // A message that carries on the subject ("它") still gets what the conversation named before.
    await h.turn(agent, '它最近有点掉毛，要不要带去看看？')
    const t3 = turns(h)[2]!
    expect(t3.system).toBe(t2!.system)
    expect(contexts(t3).at(-1)).toContain('用户养了一只柯基犬')
  })

  it('a lorebook entry keyed by a word every entry shares is recalled when that word comes up (the glade)', async () => {
    const { h } = await rig()
    const id = h.store.state.activeId
    const entry = (n: number, text: string, keys: string) => ({
      id: `lore${n}`,
      text,
      keys,
      archived: true,
      source: 'import' as const,
      at: Date.UTC(2025, 0, 1 + n),
    })
    await h.store.command({
      op: 'profile.update',
      id,
      patch: {
        memory: {
          summary: '',
          items: [
            entry(1, 'Seraphina guards the glade and the forest of Eldoria around it.', 'Seraphina'),
            entry(2, 'The glade is hidden by old magic; only the lost and the wounded find it.', 'glade'),
            entry(3, 'Shadowfangs prowl the forest beyond the glade at night.', 'Shadowfang beast'),
            entry(4, 'Eldoria is the forest realm where the glade lies.', 'Eldoria'),
          ],
        },
      },
    })
    const agent = await h.conversation('sess-recall-glade')
    await h.turn(agent, 'What is this glade?')
    const recalled = contexts(turns(h)[0]!).at(-1) ?? ''
    expect(recalled).toContain('The glade is hidden by old magic')
    // The keyed entry comes first.
    expect(recalled.split('\n').find((l) => l.startsWith('- '))).toContain('The glade is hidden')
  })

  it('after a compression, the fact it wrote is recalled by a key the user typed on the fact it condensed', async () => {
    const { h } = await rig({ memory: { compressAt: 500 } })
    await h.ctx.plugin({
      name: 'agent-profiles-recall-compress-spec',
      apply: (c: Context) => {
        installMemoryCompress(c, h.store, h.config, h.log)
      },
    })
    const merged = '用户的女儿小满今年上三年级，喜欢画画'
    h.model.script('compress', { text: `摘要：用户是一位家长。\n- ${merged}` })
    const agent = await h.conversation('sess-recall-compress')
    await h.turn(agent, '你好')
    const id = h.store.state.activeId
    // The user typed "Molly" as the key of the fact: a name its text never says. The months after it fill the memory.
    const keyed = [
      { id: 'k1', text: '用户的女儿叫小满', keys: 'Molly', source: 'user' as const, at: Date.UTC(2024, 0, 1) },
      { id: 'k2', text: '小满今年上三年级，喜欢画画', source: 'auto' as const, at: Date.UTC(2024, 0, 2) },
    ]
    const months = Array.from({ length: 300 }, (_, i) => ({
      text: `第${i}条记录：项目${i % 37}的会议纪要，讨论了进度与预算`,
      source: 'auto' as const,
      at: Date.UTC(2025, 0, 1) + i * 3_600_000,
    }))
    await h.store.command({
      op: 'profile.update',
      id,
      patch: { memory: { summary: '', items: [...keyed, ...months] } },
    })
    const items = () => h.store.state.profiles.find((p) => p.id === id)!.memory.items
    for (let i = 0; i < 500 && !items().some((it) => it.text === merged); i++) await settle(10)
    expect(items().find((it) => it.text === merged)).toMatchObject({ source: 'compress' })
    expect(items().find((it) => it.id === 'k1')).toMatchObject({ archived: true, keys: 'Molly' })
    await h.turn(agent, 'Molly 最近怎么样？')
    const recalled = contexts(turns(h).at(-1)!).at(-1) ?? ''
    // The compressed fact, which says what holds now, not only its archived original.
    expect(recalled).toContain(merged)
  })

  it('recallBudget 0 turns it off; memory off sends nothing', async () => {
    const { h } = await rig({ recallBudget: 0 })
    const owner = await filler(h, 20)
    await h.store.command({ op: 'memory.add', target: { profileId: owner }, items: [{ text: '用户喜欢爬山' }] })
    const agent = await h.conversation('sess-recall-4')
    await h.turn(agent, '我喜欢什么运动，爬山吗？')
    expect(contexts(turns(h)[0]!)).toEqual([])
  })
})
