/**
 * What the background extraction specs (test/memory/job*.spec.ts) share: the memory harness booted with the job
 * installed, the conversation's active profile, a run of turns, the excerpt a request framed, and waiting for the
 * job's Nth recorded run. `h` and `job` are the current test's (ES module exports are live); the harness is closed
 * after each test of a spec file that calls {@link closeJobEachTest}.
 */
import { afterEach, expect } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { installMemoryJob } from '../../lib/memory/job.ts'
import type { MemoryJobStatus } from '../../lib/shared/diagnostics.ts'
import { boot, settle, type Harness, type Seen } from './memory-harness.ts'

/** The current test's harness. */
export let h: Harness
/** The current test's extraction job. */
export let job: { status(): MemoryJobStatus }

/** Boot the harness with `config` and install the job in it; resolves with the job's plugin, to unload it. */
export async function start(config: unknown = {}): Promise<{ dispose(): Promise<unknown> }> {
  h = await boot(config)
  return await h.ctx.plugin({
    name: 'ap-memory-job',
    apply: (ctx: Context) => {
      job = installMemoryJob(ctx, h.store, h.config, h.log)
    },
  })
}

/**
 * A second extraction job in the current harness, on (a run after every turn, no quiet wait), whatever the first's
 * config: once it has recorded a run for a turn, every trigger of that turn has fired, so a spec can then assert what
 * the first job did not do.
 */
export async function probeJob(): Promise<{ status(): MemoryJobStatus }> {
  let probe: { status(): MemoryJobStatus } | undefined
  const memory = { ...h.config.memory, autoExtract: true, everyTurns: 1, idleMs: 0 }
  await h.ctx.plugin({
    name: 'ap-memory-job-probe',
    apply: (ctx: Context) => {
      probe = installMemoryJob(ctx, h.store, { ...h.config, memory }, h.log)
    },
  })
  return probe!
}

/** Close the harness after each test of the calling spec file. */
export function closeJobEachTest(): void {
  afterEach(async () => {
    await h.close()
  })
}

/** The store's active profile now. */
export function active() {
  return h.store.state.profiles.find((p) => p.id === h.store.state.activeId)!
}

/** `n` completed turns of `agent`, the i-th saying `text(i)`. */
export async function turns(
  agent: Agent,
  n: number,
  text = (i: number) => `第 ${i} 轮：我在写一个记账应用`,
): Promise<void> {
  for (let i = 1; i <= n; i++) await h.turn(agent, text(i))
}

/** The excerpt between the request's markers, and everything else the request carried. */
export function split(seen: Seen): { excerpt: string; rest: number } {
  const m = /<<<材料 ([0-9a-f]+)>>>\n([\s\S]*)\n<<<材料结束 \1>>>/.exec(seen.prompt)
  expect(m, 'the excerpt sits between matching markers').not.toBeNull()
  const excerpt = m![2]!
  return { excerpt, rest: seen.system.length + seen.prompt.length - excerpt.length }
}

/** Wait until the job has recorded `n` runs. */
export async function runs(n: number): Promise<MemoryJobStatus> {
  for (let i = 0; i < 500 && job.status().totals.runs < n; i++) await settle(10)
  expect(job.status().totals.runs).toBe(n)
  return job.status()
}
