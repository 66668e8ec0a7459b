/**
 * Speakers benchmark: what a change of speaker costs the prompt cache. A scripted 20-turn conversation on the real dsh
 * spine (agent loop, system prompt, tools; scripted model) with this plugin's speakers, prompt sections and tool
 * profiles installed as in the host, run twice with the same questions:
 *   one     — the conversation's own profile answers every turn;
 *   change  — the speaker changes every 4 turns: turns 5–8 and 13–16 name another profile (`@审阅员 …`), the others
 *             are the conversation's own (changes before turns 5, 9, 13, 17).
 * and, for `change`, with the other profile on the same tool profile (full) and on a narrower one (read-only).
 * Per run: the characters of each request after the prefix it shares with the previous request (system prompt, then
 * the tool schemas, then the messages, as a provider's prefix cache sees them), summed — what the model must process
 * again — the same after the longest prefix shared with any earlier request (a provider's cache keeps those too), and
 * how many requests had to reprocess any of the history. Between order 20 and the end of the system
 * prompt the host's tool guidance is stood in for by paragraphs of the sizes a real rc.8 request carried.
 * Run: `npm run bench -- speakers` (Node 22).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import type { GenerateOptions } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { DEFAULT_CONFIG } from '../lib/config/config.ts'
import { installPrompt } from '../lib/prompt/install.ts'
import { createSpeakers, installSpeakers } from '../lib/prompt/speakers-install.ts'
import { createTurnReader } from '../lib/turn/reader.ts'
import { installToolProfiles } from '../lib/tools/install.ts'
import type { ToolSettings } from '../lib/state/model.ts'
import { openStore } from '../lib/store/open-store.ts'
import {
  hostTool,
  mountSpine,
  RecordingModel,
  SPINE_MODEL,
  standInGuidance,
  turnToIdle,
} from '../test/support/spine.ts'
import { commonPrefix } from '../test/support/stats.ts'

const TURNS = 20
const HOST_TOOLS = ['read', 'grep', 'glob', 'write', 'edit', 'bash', 'web_search']

const answer = (n: number) => `第 ${n} 次回答：好的，这是一段普通长度的回答，用来让历史像真实对话一样增长。`.repeat(3)

/** A request as a prefix cache sees it. */
const whole = (r: GenerateOptions) =>
  `${r.system ?? ''}\u0000${JSON.stringify(r.tools ?? [])}\u0000${JSON.stringify(r.messages)}`
const historyStart = (r: GenerateOptions) => (r.system ?? '').length + 2 + JSON.stringify(r.tools ?? []).length

async function run(dir: string, name: string, mode: 'one' | 'change', otherTools: ToolSettings) {
  const store = await openStore({ file: join(dir, name, 'profiles.sqlite') })
  await store.command({
    op: 'memory.add',
    target: { profileId: 'general' },
    items: Array.from({ length: 20 }, (_, i) => ({
      text: `早先记下的第 ${i} 条：用户偏好简洁的中文回答，项目是前端。`,
    })),
  })
  const other = (
    (await store.command({
      op: 'profile.create',
      profile: {
        name: '审阅员',
        role: '你是一位严格的代码审阅员，只指出问题和风险。',
        personality: '直接、克制。',
        tools: otherTools,
      },
    })) as unknown as { profile: { id: string } }
  ).profile.id
  await store.command({
    op: 'memory.add',
    target: { profileId: other },
    items: Array.from({ length: 10 }, (_, i) => ({ text: `审阅员记得的第 ${i} 条：这个团队要求每个改动都有测试。` })),
  })
  await store.command({ op: 'profile.activate', id: 'general' })
  const adapter = new RecordingModel(answer)
  const ctx = await mountSpine(new Context(), adapter)
  standInGuidance(ctx)
  for (const tool of HOST_TOOLS)
    ctx.tools.register(
      hostTool(tool, [], `The host's ${tool} tool: a description of ordinary length for the schema. `.repeat(3)),
    )
  const speakers = createSpeakers(store)
  const turns = createTurnReader(store, speakers)
  const log = { warn: (m: string) => console.warn(m) }
  await ctx.plugin({
    name: 'bench-speakers',
    apply: (c: Context) => {
      installSpeakers(c, store, speakers, log)
      installPrompt(c, store, DEFAULT_CONFIG, log, { speakers, turns })
      installToolProfiles(c, store, DEFAULT_CONFIG, log, turns)
    },
  })
  const { agent, dispose } = await ctx.agents.create({ sessionId: SessionId('s-bench'), agentOptions: SPINE_MODEL })
  for (let turn = 1; turn <= TURNS; turn++) {
    const named = mode === 'change' && (turn - 1) % 8 >= 4
    await turnToIdle(ctx, agent, `${named ? '@审阅员 ' : ''}第 ${turn} 个问题：请解释一下这段代码为什么会重复渲染？`)
  }
  await dispose()
  await ctx.fiber.dispose()
  await store.close()

  let reprocessed = 0
  let anyEarlier = 0
  let historyRedone = 0
  const perTurn: number[] = []
  const texts = adapter.requests.map(whole)
  for (let i = 1; i < texts.length; i++) {
    const b = texts[i]!
    const shared = commonPrefix(texts[i - 1]!, b)
    reprocessed += b.length - shared
    perTurn.push(b.length - shared)
    // A provider's prefix cache keeps earlier prefixes too (DeepSeek's for hours): the longest shared with any.
    let best = 0
    for (let j = 0; j < i; j++) best = Math.max(best, commonPrefix(texts[j]!, b))
    anyEarlier += b.length - best
    if (shared < historyStart(adapter.requests[i - 1]!) + JSON.stringify(adapter.requests[i - 1]!.messages).length - 1)
      historyRedone++
  }
  return { name, requests: texts.length, reprocessed, anyEarlier, historyRedone, last: texts.at(-1)!.length, perTurn }
}

const dir = mkdtempSync(join(tmpdir(), 'ap-speakers-bench-'))
try {
  const full: ToolSettings = { profile: 'full', add: [], remove: [] }
  const readOnly: ToolSettings = { profile: 'read-only', add: [], remove: [] }
  console.log(
    `${TURNS}-turn conversation; characters of each request after the prefix it shares with the previous one, summed:`,
  )
  const one = await run(dir, 'one', 'one', full)
  const runs = [
    one,
    await run(dir, 'change-same-tools', 'change', full),
    await run(dir, 'change-read-only', 'change', readOnly),
  ]
  for (const r of runs) {
    console.log(
      `  ${r.name.padEnd(18)}: after the previous request's prefix ${String(r.reprocessed).padStart(6)} chars (${(r.reprocessed / one.reprocessed).toFixed(2)}× one speaker); ` +
        `after the longest prefix of any earlier request ${String(r.anyEarlier).padStart(6)} chars (${(r.anyEarlier / one.anyEarlier).toFixed(2)}×); ` +
        `${r.historyRedone}/${r.requests - 1} requests redo part of the history; last request ${r.last} chars`,
    )
    console.log(`    per request: ${r.perTurn.join(' ')}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
