/**
 * A profile's model benchmark: what the part costs per turn, in process on the real dsh spine (llm, session,
 * system-prompt, agent, agent-loop) with the host's own model selection installed on each agent and the real store.
 * Three setups in interleaved rounds, each timing one turn (assembly, the `agent/request` waterfall, a one-chunk model
 * answer, settling): no part (baseline), the part with a profile that brings no model, and the part with a profile
 * that brings one (the model check before each step: provider list, the cached model list, `resolveCallConfig`).
 * Run: `node --experimental-strip-types bench/model-choice.bench.ts` (Node 22), or `npm run bench -- model-choice`.
 * Writes bench/results/model-choice.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { Context } from '@deepseek-ai/cordis'
import { SessionId } from '@deepseek-ai/dsh-session'
import { installModelSelection } from '@deepseek-ai/dsh-agent'
import type { LlmModelInfo } from '@deepseek-ai/dsh-llm'
import { openStore } from '../lib/store/open-store.ts'
import { installModelChoice } from '../lib/prompt/model-choice.ts'
import { mountSpine, RecordingModel, SPINE_MODEL, turnToIdle } from '../test/support/spine.ts'
import { median } from '../test/support/stats.ts'

const RESULTS = join(fileURLToPath(import.meta.url), '..', 'results')
const ROUNDS = 5
const TURNS = 60

class TwoModels extends RecordingModel {
  override async listModels(provider: string): Promise<readonly LlmModelInfo[]> {
    return [
      { provider, id: 'm', name: 'M' },
      { provider, id: 'big', name: 'Big' },
    ]
  }
}

type Setup = 'baseline' | 'part, no model' | 'part, profile model'

async function rig(setup: Setup): Promise<{ turn(): Promise<number>; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'ap-bench-model-'))
  const store = await openStore({ file: join(dir, 'profiles.sqlite') })
  const adapter = new TwoModels()
  const ctx = await mountSpine(new Context(), adapter)
  if (setup !== 'baseline') {
    await ctx.plugin({
      name: 'agent-profiles-models',
      apply: (c: Context) => {
        installModelChoice(c, store, { warn: () => {} })
      },
    })
  }
  if (setup === 'part, profile model')
    await store.command({
      op: 'profile.create',
      profile: { name: '审阅', role: '审阅', model: { provider: 'mock', model: 'big' } },
    })
  const selection = { current: { ...SPINE_MODEL }, assembled: undefined }
  const { agent, dispose } = await ctx.agents.create({
    sessionId: SessionId(`bench-${setup.length}`),
    agentOptions: SPINE_MODEL,
    setup: (a) => {
      installModelSelection(a, selection)
    },
  })
  const want = setup === 'part, profile model' ? 'big' : 'm'
  return {
    async turn() {
      const t0 = performance.now()
      await turnToIdle(ctx, agent, '你好')
      const ms = performance.now() - t0
      if (adapter.requests.at(-1)!.model !== want)
        throw new Error(`${setup}: the request named ${adapter.requests.at(-1)!.model}, not ${want}`)
      // Keep the history short so that every turn costs the same.
      adapter.requests.length = 0
      return ms
    },
    async close() {
      await dispose()
      await ctx.fiber.dispose()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const setups: Setup[] = ['baseline', 'part, no model', 'part, profile model']
const times: Record<Setup, number[]> = { baseline: [], 'part, no model': [], 'part, profile model': [] }
for (let round = 0; round < ROUNDS; round++) {
  for (const setup of setups) {
    const r = await rig(setup)
    for (let i = 0; i < 5; i++) await r.turn()
    for (let i = 0; i < TURNS; i++) times[setup].push(await r.turn())
    await r.close()
  }
}
const base = median(times.baseline)
const results: Record<string, unknown> = { node: process.version, rounds: ROUNDS, turnsPerRound: TURNS }
for (const setup of setups) {
  const m = median(times[setup])
  results[setup] = { medianMs: m, ratio: m / base }
  console.log(`${setup.padEnd(22)} median turn ${m.toFixed(3)} ms  (${(m / base).toFixed(2)}× baseline)`)
}
mkdirSync(RESULTS, { recursive: true })
writeFileSync(join(RESULTS, 'model-choice.json'), JSON.stringify(results, null, 2) + '\n')
