/**
 * Benchmark of long-term memory's background work, in-process on the real dsh spine (scripted model, real store on
 * a temp file):
 *  - the latency a user sees on a turn (prompt sent → turn closed) with the extraction job on versus off, measured
 *    side by side in alternating blocks; the job on runs at the default every 5 turns and, as a stress case, every
 *    turn, with the model answering a new fact each time (so each run also writes the store). Target ratio ≤ 1.02;
 *  - characters and (estimated) tokens sent per extraction and per compression, against the targets: excerpt ≤ 6,000
 *    characters plus ≤ 1,500 characters of instructions and existing-memory context.
 * Run: `node --experimental-strip-types bench/memory.bench.ts` (Node 22), or `npm run bench`.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { approxTokens } from '../lib/prompt/tokens.ts'
import { installMemoryCompress } from '../lib/memory/compress.ts'
import { installMemoryJob } from '../lib/memory/job.ts'
import { boot, settle, type Harness } from '../test/support/memory-harness.ts'
import { median } from '../test/support/stats.ts'
import type { MemoryJobStatus } from '../lib/shared/diagnostics.ts'

const ROUNDS = 40
const BLOCK = 10

function p90(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))]!
}

interface Rig {
  h: Harness
  agent: Agent
  job: { status(): MemoryJobStatus }
}

async function rig(memory: Record<string, unknown>, id: string, modelMs: number): Promise<Rig> {
  const h = await boot({ memory })
  if (modelMs > 0) h.model.script('turn', ...Array.from({ length: 2000 }, () => ({ text: '好的', delayMs: modelMs })))
  let job!: Rig['job']
  await h.ctx.plugin({
    name: `bench-${id}`,
    apply: (ctx: Context) => {
      job = installMemoryJob(ctx, h.store, h.config, h.log)
    },
  })
  let n = 0
  // Every extraction answers one new fact, so each run goes all the way to a store write.
  h.model.script(
    'extract',
    ...Array.from({ length: 1000 }, () => ({ text: `- 用户提到的第${++n}件长期的事：偏好${n}号方案` })),
  )
  return { h, agent: await h.conversation(`bench-${id}`), job }
}

const USER = '帮我看看这个记账应用的分类逻辑该怎么改，最好能按月汇总。'.repeat(4)

async function timedTurn(r: Rig): Promise<number> {
  const t0 = performance.now()
  await r.h.turn(r.agent, USER)
  return performance.now() - t0
}

async function idle(r: Rig): Promise<void> {
  while (r.job.status().running.length > 0) await settle(2)
  await settle(5)
}

async function latency(
  everyTurns: number,
  modelMs: number,
  rounds: number,
): Promise<{ on: number[]; off: number[]; runs: number }> {
  const on = await rig({ everyTurns }, `on-${everyTurns}-${modelMs}`, modelMs)
  const off = await rig({ autoExtract: false }, `off-${everyTurns}-${modelMs}`, modelMs)
  const samples = { on: [] as number[], off: [] as number[] }
  for (let round = 0; round <= rounds; round++) {
    // Alternate which side goes first, and throw the first round away as warm-up.
    const order: Array<[Rig, number[]]> =
      round % 2 === 0
        ? [
            [on, samples.on],
            [off, samples.off],
          ]
        : [
            [off, samples.off],
            [on, samples.on],
          ]
    for (const [r, into] of order) {
      const block: number[] = []
      for (let i = 0; i < BLOCK; i++) block.push(await timedTurn(r))
      if (round > 0) into.push(...block)
      await idle(r)
    }
  }
  const runs = on.job.status().totals.runs
  await on.h.close()
  await off.h.close()
  return { ...samples, runs }
}

async function extractionRequest(): Promise<{ excerpt: number; rest: number; chars: number; tokens: number }> {
  const h = await boot({})
  await h.ctx.plugin({
    name: 'bench-extract',
    apply: (ctx: Context) => {
      installMemoryJob(ctx, h.store, h.config, h.log)
    },
  })
  const profileId = h.store.state.activeId
  // A well-used profile: 60 remembered facts, more than the request shows as context.
  await h.store.command({
    op: 'memory.add',
    target: { profileId },
    items: Array.from({ length: 60 }, (_, i) => ({
      text: `用户第${i}条长期偏好：回答先给结论，再列出理由和可执行的下一步`,
    })),
  })
  h.model.script('turn', ...Array.from({ length: 5 }, () => ({ text: '好的，下面是修改建议。'.repeat(80) })))
  const agent = await h.conversation('bench-extract')
  for (let i = 0; i < 5; i++) await h.turn(agent, USER.repeat(6))
  const [request] = await h.model.until('extract')
  const m = /<<<材料 ([0-9a-f]+)>>>\n([\s\S]*)\n<<<材料结束 \1>>>/.exec(request!.prompt)!
  const chars = request!.system.length + request!.prompt.length
  await h.close()
  return {
    excerpt: m[2]!.length,
    rest: chars - m[2]!.length,
    chars,
    tokens: approxTokens(request!.system) + approxTokens(request!.prompt),
  }
}

async function compressionRequest(items: number): Promise<{ memory: number; chars: number; tokens: number }> {
  const h = await boot({})
  await h.ctx.plugin({
    name: 'bench-compress',
    apply: (ctx: Context) => {
      installMemoryCompress(ctx, h.store, h.config, h.log)
    },
  })
  await h.turn(await h.conversation('bench-compress'), '你好')
  const profileId = h.store.state.activeId
  await h.store.command({
    op: 'memory.add',
    target: { profileId },
    items: Array.from({ length: items }, (_, i) => ({
      text: `第${i}条记忆：用户在第${i}个项目里用过这套工具链，对它的构建速度印象深刻，希望继续使用`,
    })),
  })
  const memory = h.store.state.profiles
    .find((p) => p.id === profileId)!
    .memory.items.reduce((n, it) => n + it.text.length, 0)
  const [request] = await h.model.until('compress')
  const chars = request!.system.length + request!.prompt.length
  await h.close()
  return { memory, chars, tokens: approxTokens(request!.system) + approxTokens(request!.prompt) }
}

const ms = (x: number) => `${x.toFixed(2)} ms`
const results: Record<string, unknown> = {}

// A model that answers at once makes the host's own work the whole turn: the strictest case for interference.
// 200 ms to first token is still faster than any real model, so the second case understates the real margin.
for (const [everyTurns, modelMs, rounds] of [
  [5, 0, ROUNDS],
  [1, 0, ROUNDS],
  [5, 200, 6],
  [1, 200, 6],
] as const) {
  const { on, off, runs } = await latency(everyTurns, modelMs, rounds)
  const ratio = median(on) / median(off)
  results[`latency_every${everyTurns}_model${modelMs}ms`] = {
    medianOn: median(on),
    medianOff: median(off),
    p90On: p90(on),
    p90Off: p90(off),
    ratio,
    turns: on.length,
    extractions: runs,
  }
  console.log(
    `turn latency, model ${modelMs} ms, extraction every ${everyTurns} turn(s): on ${ms(median(on))} (p90 ${ms(p90(on))}) vs off ` +
      `${ms(median(off))} (p90 ${ms(p90(off))}) over ${on.length} turns each, ${runs} extractions → ratio ${ratio.toFixed(3)} (target ≤ 1.02)`,
  )
}

const ex = await extractionRequest()
results.extraction = ex
console.log(
  `extraction request: ${ex.chars} chars (~${ex.tokens} tokens) = excerpt ${ex.excerpt} (≤ 6000) + instructions and context ${ex.rest} (≤ 1500)`,
)

for (const items of [150, 400]) {
  const c = await compressionRequest(items)
  results[`compression_${items}`] = c
  console.log(
    `compression request for ${items} items (${c.memory} chars of memory): ${c.chars} chars (~${c.tokens} tokens) sent; memory part capped at 2 × compressAt = 10000`,
  )
}

mkdirSync(join(import.meta.dirname, 'results'), { recursive: true })
writeFileSync(join(import.meta.dirname, 'results', 'memory.json'), JSON.stringify(results, null, 2) + '\n')
