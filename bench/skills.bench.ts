/**
 * Skills benchmark, in-process on the real dsh spine with the real skill registry and the host's own `tool-skill`
 * (the plugin that turns the registry into the `<available_skills>` reminder and the `skill` tool), real store on a
 * temp file, scripted model:
 *  1. What the model sees: characters and estimated tokens of the catalog message with the factory profiles and with
 *     200 profiles at the name/role limits — our entry lines versus the host's fixed framing around them — and of
 *     one loaded skill (the tool result) for a factory profile and for a profile at every limit.
 *  2. Cost of our provider: `list()` right after a change (the catalog is recomputed) versus unchanged (the same
 *     frozen state, served from our memo), for 3 and 200 profiles; `get()` (render at load time) for a factory profile
 *     and one at every limit. Baseline for the ratio: the unchanged `list()`.
 * Run: `node --experimental-strip-types bench/skills.bench.ts` (Node 22), or `npm run bench`.
 */
import { performance } from 'node:perf_hooks'
import type { Context } from '@deepseek-ai/cordis'
import SkillRegistry, { type SkillProvider } from '@deepseek-ai/dsh-skill'
import * as ToolSkill from '@deepseek-ai/dsh-tool-skill'
import { DEFAULT_CONFIG } from '../lib/config/config.ts'
import { LIMITS } from '../lib/state/model.ts'
import { approxTokens } from '../lib/prompt/tokens.ts'
import { installSkills } from '../lib/prompt/skills.ts'
import { boot, type Harness } from '../test/support/memory-harness.ts'
import { median } from '../test/support/stats.ts'

const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`

async function mount(h: Harness): Promise<SkillProvider> {
  let provider: SkillProvider | undefined
  await h.ctx.plugin(SkillRegistry)
  await h.ctx.plugin(ToolSkill)
  await h.ctx.plugin({
    name: 'ap-skills-bench',
    inject: ['skills'],
    apply: (c: Context) => {
      const skills = {
        registerProvider: (create: Parameters<Context['skills']['registerProvider']>[0]) =>
          c.skills.registerProvider((control) => (provider = create(control))),
      }
      installSkills({ skills, effect: c.effect.bind(c) } as unknown as Context, h.store, DEFAULT_CONFIG, {
        warn: (m) => console.warn(m),
      })
    },
  })
  return provider!
}

/** The catalog message and the loaded skill of one conversation turn in which the model loads `name`. */
async function seen(
  h: Harness,
  session: string,
  name: string,
): Promise<{ catalog: string; lines: string; loaded: string }> {
  const agent = await h.conversation(session)
  h.model.script('turn', { tool: 'skill', args: { name } }, { text: '好的' })
  const before = h.model.of('turn').length
  await h.turn(agent, '加载')
  const [first, second] = h.model.of('turn').slice(before)
  const texts = (o: typeof first) =>
    o!.options.messages.flatMap((m) =>
      m.content.flatMap((b) => {
        if (b.type === 'text') return [b.text]
        if (b.type === 'tool-result') return [b.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('')]
        return []
      }),
    )
  const catalog = texts(first).find((t) => t.includes('<available_skills>')) ?? ''
  const lines = catalog
    .split('\n')
    .filter((l) => l.startsWith('- `agent-profile-'))
    .join('\n')
  const loaded = texts(second).find((t) => t.startsWith('<skill_content name=')) ?? ''
  return { catalog, lines, loaded }
}

const size = (label: string, text: string) => `${label} ${text.length} chars ≈ ${approxTokens(text)} tokens`

async function timeList(
  provider: SkillProvider,
  change: () => Promise<unknown>,
): Promise<{ changed: number; unchanged: number }> {
  for (let i = 0; i < 200; i++) await provider.list({})
  const unchanged: number[] = []
  for (let b = 0; b < 100; b++) {
    const t0 = performance.now()
    for (let i = 0; i < 100; i++) await provider.list({})
    unchanged.push((performance.now() - t0) / 100)
  }
  const changed: number[] = []
  for (let i = 0; i < 60; i++) {
    await change()
    const t0 = performance.now()
    await provider.list({})
    changed.push(performance.now() - t0)
  }
  return { changed: median(changed), unchanged: median(unchanged) }
}

async function timeGet(provider: SkillProvider, name: string): Promise<number> {
  const candidate = ((await provider.list({})) as readonly { name: string }[]).find((c) => c.name === name)!
  for (let i = 0; i < 100; i++) await provider.get(candidate as never, {})
  const runs: number[] = []
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now()
    await provider.get(candidate as never, {})
    runs.push(performance.now() - t0)
  }
  return median(runs)
}

const h = await boot()
try {
  const provider = await mount(h)
  let n = 0
  const touch = () => h.store.command({ op: 'profile.update', id: 'coder', patch: { emoji: ++n % 2 ? '🛠' : '💻' } })

  console.log('1. what the model sees')
  const factory = await seen(h, 's-factory', 'agent-profile-general')
  console.log(
    `  factory profiles (3): ${size('catalog message', factory.catalog)}; ${size('our lines', factory.lines)}; ` +
      `${size('host framing', factory.catalog.replace(factory.lines, ''))}`,
  )
  console.log(`  ${size('loaded agent-profile-general (tool result)', factory.loaded)}`)
  const small = await timeList(provider, touch)
  const smallGet = await timeGet(provider, 'agent-profile-general')

  const fill = (ch: string, len: number) => ch.repeat(len)
  await h.store.command({
    op: 'profile.create',
    profile: {
      name: 'Limit Profile',
      role: fill('角', LIMITS.role),
      personality: fill('性', LIMITS.personality),
      speakingStyle: fill('说', LIMITS.speakingStyle),
      rules: fill('规', LIMITS.rules),
      memory: {
        summary: fill('摘', LIMITS.summary),
        items: Array.from({ length: LIMITS.memoryItems }, (_, i) => ({ text: `${i}`.padEnd(LIMITS.memoryItem, '记') })),
      },
    },
  })
  for (let i = h.store.state.profiles.length; i < LIMITS.profiles; i++) {
    await h.store.command({
      op: 'profile.create',
      profile: { name: `Agent ${i} ${'x'.repeat(LIMITS.name - 10)}`.slice(0, LIMITS.name), role: fill('长', 200) },
    })
  }
  const full = await seen(h, 's-full', 'agent-profile-limit-profile')
  const count = full.lines.split('\n').length
  console.log(
    `  ${count} profiles at the name/role limits: ${size('our lines', full.lines)} (${Math.round(approxTokens(full.lines) / count)} tokens per profile); ` +
      `${size('host framing', full.catalog.replace(full.lines, ''))}`,
  )
  console.log(
    `  ${size('loaded profile at every limit (tool result, memory budget ' + DEFAULT_CONFIG.memoryBudget + ')', full.loaded)}`,
  )
  const large = await timeList(provider, touch)
  const largeGet = await timeGet(provider, 'agent-profile-limit-profile')

  console.log('2. provider cost (median)')
  console.log(
    `  list(), 3 profiles: after a change ${us(small.changed)}, unchanged ${us(small.unchanged)} (×${(small.changed / small.unchanged).toFixed(0)})`,
  )
  console.log(
    `  list(), ${count} profiles: after a change ${us(large.changed)}, unchanged ${us(large.unchanged)} (×${(large.changed / large.unchanged).toFixed(0)})`,
  )
  console.log(`  get(): factory profile ${us(smallGet)}; profile at every limit among ${count} ${us(largeGet)}`)
} finally {
  await h.close()
}
