/**
 * Tool profiles benchmark.
 *  1. What it saves, on the real `dsh web` (this plugin built and installed, offline model): per agent preset
 *     (standard, code, cordis) and per tool profile (full, read-only, worker, custom with read/grep/glob), the bytes
 *     of the `tools` array the model request carried (UTF-8, as sent), the tool count, and the system prompt bytes
 *     (Code Mode carries its tool SDK there); the ratio is against `full` on the same preset. Sizes are deterministic,
 *     so each cell is one request.
 *  2. What it costs, in process on the real dsh spine (26 host-named tools): the median time of one prompt assembly
 *     for a conversation under `full` and under `read-only` with the part installed, against no part (baseline).
 * Run: `node --experimental-strip-types bench/tool-profiles.bench.ts` (Node 22), or `npm run bench`.
 * Writes bench/results/tool-profiles.json.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
// @ts-expect-error -- plain ESM build script shared with npm scripts; it has no type declarations.
import { build } from '../scripts/build.mjs'
import type { ToolSettings } from '../lib/state/model.ts'
import { installToolProfiles } from '../lib/tools/install.ts'
import { boot } from '../test/support/memory-harness.ts'
import { bootHost } from '../test/support/host-api.ts'
import { startModelServer } from '../test/support/model-server.ts'
import { median } from '../test/support/stats.ts'
import { STANDARD_TOOLS } from '../test/support/host-tools.ts'

const RESULTS = join(fileURLToPath(import.meta.url), '..', 'results')
const results: Record<string, unknown> = { node: process.version }

const PROFILES: Record<string, ToolSettings> = {
  full: { profile: 'full', add: [], remove: [] },
  'read-only': { profile: 'read-only', add: [], remove: [] },
  worker: { profile: 'worker', add: [], remove: [] },
  'custom(read,grep,glob)': { profile: 'custom', add: ['read', 'grep', 'glob'], remove: [] },
}
const PRESETS = ['standard', 'code', 'cordis']

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
const pad = (s: string, n: number) => s.padEnd(n)

async function onRealHost(): Promise<void> {
  await build({ minify: true })
  const model = await startModelServer()
  const host = await bootHost(model)
  try {
    const ids: Record<string, string> = {}
    for (const [label, tools] of Object.entries(PROFILES)) {
      const { profile } = await host.command<{ profile: { id: string } }>({
        op: 'profile.create',
        profile: { name: `bench ${label}`.slice(0, 40), role: '基准', tools },
      })
      ids[label] = profile.id
    }
    await host.command({ op: 'profile.activate', id: 'general' })
    console.log(
      `${pad('preset', 10)}${pad('profile', 24)}${pad('tools', 7)}${pad('tool bytes', 12)}${pad('vs full', 9)}system bytes`,
    )
    for (const preset of PRESETS) {
      const row: Record<string, unknown> = {}
      let fullBytes = 0
      for (const label of Object.keys(PROFILES)) {
        const sessionId = await host.conversation(preset)
        await host.command({ op: 'session.set', sessionId, patch: { profileId: ids[label] } })
        const marker = `BENCH ${preset} ${label} ${randomUUID()}`
        const [request] = await host.say(sessionId, marker)
        const bytes = request!.tools.length === 0 ? 0 : Buffer.byteLength(JSON.stringify(request!.body.tools))
        const system = Buffer.byteLength(request!.system)
        if (label === 'full') fullBytes = bytes
        const ratio = fullBytes === 0 ? 1 : bytes / fullBytes
        row[label] = { tools: request!.tools.length, toolBytes: bytes, systemBytes: system, ratioToFull: ratio }
        console.log(
          `${pad(preset, 10)}${pad(label, 24)}${pad(String(request!.tools.length), 7)}${pad(kb(bytes), 12)}${pad(ratio.toFixed(2), 9)}${kb(system)}`,
        )
      }
      results[`request.${preset}`] = row
    }
  } finally {
    await host.stop()
    await model.close()
  }
}

/** The host's own tools of a standard conversation, and web_fetch: 26 names, as the header says. */
const HOST_TOOLS = [...STANDARD_TOOLS.filter((name) => name !== 'memory_save'), 'web_fetch']

async function overhead(): Promise<void> {
  const ROUNDS = 3000
  const modes = ['no part', 'full', 'read-only'] as const
  const harnesses: Array<Awaited<ReturnType<typeof boot>>> = []
  const assemble: Array<() => Promise<unknown>> = []
  try {
    for (const mode of modes) {
      const h = await boot()
      harnesses.push(h)
      for (const name of HOST_TOOLS) {
        const definition: ToolDefinition = {
          name,
          description: `The host's ${name} tool. `.repeat(20),
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
          output: { schema: { type: 'object', additionalProperties: true }, render: () => [] },
          execute: async () => ({}),
        }
        h.ctx.tools.register(definition)
      }
      if (mode !== 'no part') {
        await h.ctx.plugin({
          name: 'bench-tool-profiles',
          apply: (ctx: Context) => {
            installToolProfiles(ctx, h.store, h.config, { warn: (m) => console.warn(m) })
          },
        })
        if (mode === 'read-only')
          await h.store.command({ op: 'profile.update', id: 'general', patch: { tools: PROFILES['read-only'] } })
      }
      const agent: Agent = await h.conversation(`bench-${mode}`)
      assemble.push(() =>
        h.ctx.systemPrompt.assemble({ scope: agent, agent } as Parameters<Context['systemPrompt']['assemble']>[0]),
      )
    }
    // Interleaved, so drift on a shared machine lands on every mode alike.
    const samples: number[][] = modes.map(() => [])
    for (let i = 0; i < ROUNDS + 200; i++) {
      for (let m = 0; m < modes.length; m++) {
        const t0 = performance.now()
        await assemble[m]!()
        if (i >= 200) samples[m]!.push(performance.now() - t0)
      }
    }
    const base = median(samples[0]!)
    const rows: Record<string, unknown> = {}
    modes.forEach((mode, m) => {
      const ms = median(samples[m]!)
      console.log(
        `assembly, ${pad(mode, 10)} median ${(ms * 1000).toFixed(1)} µs  (×${(ms / base).toFixed(2)} vs no part)`,
      )
      rows[mode] = { medianMs: ms, ratioToNoPart: ms / base, n: ROUNDS }
    })
    results.assembly = rows
  } finally {
    for (const h of harnesses) await h.close()
  }
}

await onRealHost()
await overhead()
mkdirSync(RESULTS, { recursive: true })
writeFileSync(join(RESULTS, 'tool-profiles.json'), `${JSON.stringify(results, null, 2)}\n`)
