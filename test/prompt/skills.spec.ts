/**
 * The skill provider in process: the real `@deepseek-ai/dsh-skill` registry on a Cordis context and the real store on
 * a temp file. Pins the names, the descriptions, load-time rendering, invalidation after saved changes only, and that
 * no input — hostile candidates included — makes `list`/`get` throw or costs the host its catalog.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import SkillRegistry, {
  isSkillName,
  type SkillCandidate,
  type SkillLookupOptions,
  type SkillProvider,
} from '@deepseek-ai/dsh-skill'
import { DEFAULT_CONFIG } from '../../lib/config/config.ts'
import type { Profile } from '../../lib/state/model.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { DESCRIPTION_MAX, installSkills, SKILL_PROVIDER } from '../../lib/prompt/skills.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import type { SkillsStatus } from '../../lib/shared/diagnostics.ts'

let ctx: Context
let store: ProfileStore
let dispose: () => Promise<void>
let warnings: string[]
/** The provider exactly as the registry received it, for calling list/get with inputs the registry never sends. */
let provider: SkillProvider
let status: () => SkillsStatus
let unload: () => Promise<void>
let changes: number

/** Mount our part the way index.ts does: inside a plugin that injects the skills service. */
async function mount(source: Pick<ProfileStore, 'state' | 'onChange'> = store): Promise<void> {
  const fiber = await ctx.plugin({
    name: 'ap-skills',
    inject: ['skills'],
    apply: (c: Context) => {
      // Forward to the real registry, keeping a handle on the provider it is given.
      const skills = {
        registerProvider: (create: Parameters<Context['skills']['registerProvider']>[0]) =>
          c.skills.registerProvider((control) => (provider = create(control))),
      }
      const view = { skills, effect: c.effect.bind(c) } as unknown as Context
      status = installSkills(
        view,
        source,
        { memoryBudget: DEFAULT_CONFIG.memoryBudget },
        { warn: (m) => warnings.push(m) },
      ).status
    },
  })
  unload = () => fiber.dispose()
}

beforeEach(async () => {
  const fresh = await freshStore()
  store = fresh.store
  dispose = fresh.dispose
  warnings = []
  changes = 0
  ctx = new Context()
  await ctx.plugin(SkillRegistry)
  ctx.on('skills/change', () => {
    changes++
  })
})

afterEach(async () => {
  await ctx.fiber.dispose()
  await dispose()
})

async function create(profile: Partial<Profile>): Promise<Profile> {
  const r = await store.command({ op: 'profile.create', profile })
  return r.profile as Profile
}

async function names(): Promise<string[]> {
  return (await ctx.skills.list()).filter((s) => s.provider === SKILL_PROVIDER).map((s) => s.name)
}

/** What our provider lists, as the registry would receive it. */
async function candidates(options: unknown = {}): Promise<readonly SkillCandidate[]> {
  const out = await provider.list(options as SkillLookupOptions)
  return 'candidates' in out ? out.candidates : out
}

async function nameOf(id: string): Promise<string | undefined> {
  return (await candidates()).find((c) => (c.locator as { profileId: string }).profileId === id)?.name
}

describe('the catalog', () => {
  beforeEach(() => mount())

  it('lists every profile with content under a valid agent-profile- name, and no empty profile', async () => {
    const reviewer = await create({ name: 'Code Reviewer', role: '你审查代码。' })
    const cafe = await create({ name: 'Café Bot', personality: '热情' })
    const empty = await create({ name: 'Empty One' })
    const blank = await create({ name: '空白', role: '   \n  ' })
    const listed = await names()
    expect(listed).toEqual(
      expect.arrayContaining([
        'agent-profile-code-reviewer',
        'agent-profile-cafe-bot',
        // The factory profiles have Chinese names, so their names come from their ids.
        'agent-profile-general',
        'agent-profile-coder',
        'agent-profile-writer',
      ]),
    )
    expect(listed).toHaveLength(5)
    expect(await nameOf(empty.id)).toBeUndefined()
    expect(await nameOf(blank.id)).toBeUndefined()
    expect(await nameOf(reviewer.id)).toBe('agent-profile-code-reviewer')
    expect(await nameOf(cafe.id)).toBe('agent-profile-cafe-bot')
    for (const name of listed) expect(isSkillName(name), name).toBe(true)
    expect(status()).toMatchObject({ available: true, listed: 5, failures: 0 })
  })

  it('names a Chinese-only profile from its id, and keeps that name through renames', async () => {
    const p = await create({ name: '翻译官', role: '你把中文译成德语。' })
    const first = await nameOf(p.id)
    expect(first).toBe(`agent-profile-${p.id}`)
    expect(isSkillName(first!)).toBe(true)
    await store.command({ op: 'profile.update', id: p.id, patch: { name: '校对员' } })
    await store.command({ op: 'profile.update', id: p.id, patch: { name: '二〇二四年 · 审校' } })
    expect(await nameOf(p.id)).toBe(first)
    // The catalog description follows the rename even though the name does not.
    expect((await ctx.skills.list()).find((s) => s.name === first)?.description).toMatch(/^二〇二四年 · 审校：/)
  })

  it('gives every profile a unique name; a new profile never takes an existing one', async () => {
    const a = await create({ name: 'Reviewer', role: 'A' })
    const b = await create({ name: 'reviewer!', role: 'B' })
    const c = await create({ name: 'REVIEWER.', role: 'C' })
    // A profile literally named like the suffixed form another one got.
    const d = await create({ name: (await nameOf(b.id))!.slice('agent-profile-'.length), role: 'D' })
    // The user's own "Coder" is newer than the factory profile whose id is "coder": the older keeps the plain name.
    const e = await create({ name: 'Coder', role: 'E' })
    expect(await nameOf(a.id)).toBe('agent-profile-reviewer')
    expect(await nameOf('coder')).toBe('agent-profile-coder')
    const all = await Promise.all([a, b, c, d, e].map((p) => nameOf(p.id)))
    expect(new Set(all).size).toBe(5)
    for (const name of all) expect(isSkillName(name!), name).toBe(true)
    expect(all[1]).toMatch(/^agent-profile-reviewer-[0-9a-f]{6}$/)
    expect(all[4]).toMatch(/^agent-profile-coder-[0-9a-f]{6}$/)
    // Once the older namesake is gone, the next oldest takes the plain name.
    await store.command({ op: 'profile.delete', id: a.id })
    expect(await nameOf(b.id)).toBe('agent-profile-reviewer')
  })

  it('describes each skill in one line of at most 80 characters: the name, then the role’s first sentence', async () => {
    const short = await create({ name: '研究员', role: '你负责查资料。然后写成报告。' })
    const english = await create({ name: 'Planner', role: 'You plan trips. You also book them.' })
    const lines = await create({ name: '多行', role: '第一行没有句号\n第二行' })
    const long = await create({ name: 'L'.repeat(40), role: '很'.repeat(3000) })
    const emoji = await create({ name: 'E', role: `${'x'.repeat(76)}😀😀😀` })
    const noRole = await create({ name: '无角色', rules: '只说实话。' })
    const describe = async (id: string) => {
      const name = await nameOf(id)
      return (await ctx.skills.list()).find((s) => s.name === name)?.description
    }
    expect(await describe(short.id)).toBe('研究员：你负责查资料。')
    expect(await describe(english.id)).toBe('Planner：You plan trips.')
    expect(await describe(lines.id)).toBe('多行：第一行没有句号')
    expect(await describe(noRole.id)).toBe('无角色：智能体配置')
    const cut = (await describe(long.id))!
    expect(cut.length).toBe(DESCRIPTION_MAX)
    expect(cut.endsWith('…')).toBe(true)
    const pair = (await describe(emoji.id))!
    expect(pair.length).toBeLessThanOrEqual(DESCRIPTION_MAX)
    expect(pair).not.toMatch(/[\uD800-\uDBFF]…$/)
    for (const s of await ctx.skills.list()) {
      expect(s.description.length).toBeGreaterThan(0)
      expect(s.description.length).toBeLessThanOrEqual(DESCRIPTION_MAX)
      expect(s.description).not.toMatch(/[\r\n]/)
    }
  })
})

describe('loading a skill', () => {
  beforeEach(() => mount())

  it('returns the profile rendered as it is at load time, memory included', async () => {
    const p = await create({ name: 'Mentor', role: '你是导师。', personality: '耐心' })
    const skill = await ctx.skills.get('agent-profile-mentor')
    expect(skill?.content).toBe(renderProfile(store.state.profiles.find((x) => x.id === p.id)!).text)
    expect(skill?.content).toContain('你是导师。')
    await store.command({ op: 'profile.update', id: p.id, patch: { role: '你是严格的导师。' } })
    await store.command({ op: 'memory.add', target: { profileId: p.id }, items: [{ text: '用户在学 Rust' }] })
    const again = await ctx.skills.get('agent-profile-mentor')
    expect(again?.content).toContain('你是严格的导师。')
    expect(again?.content).toContain('用户在学 Rust')
    expect(again).toMatchObject({
      name: 'agent-profile-mentor',
      provider: SKILL_PROVIDER,
      invocation: { modelInvocable: true },
    })
    expect(status().loaded).toBe(2)
  })

  it('renders at get() time: a candidate listed before an edit loads the edited text', async () => {
    const p = await create({ name: 'Mentor', role: '旧角色。' })
    const [candidate] = (await candidates()).filter((c) => c.name === 'agent-profile-mentor')
    await store.command({ op: 'profile.update', id: p.id, patch: { role: '新角色。' } })
    const loaded = await provider.get(candidate!, {})
    expect(loaded?.content).toContain('新角色。')
    expect(loaded?.content).not.toContain('旧角色。')
  })

  it('has no such skill once the profile is emptied or deleted', async () => {
    const p = await create({ name: 'Mentor', role: '你是导师。' })
    const [candidate] = (await candidates()).filter((c) => c.name === 'agent-profile-mentor')
    await store.command({ op: 'profile.update', id: p.id, patch: { role: '' } })
    expect(await ctx.skills.get('agent-profile-mentor')).toBeUndefined()
    expect(await provider.get(candidate!, {})).toBeUndefined()
    await store.command({ op: 'profile.update', id: p.id, patch: { role: '回来了。' } })
    expect(await ctx.skills.get('agent-profile-mentor')).toBeDefined()
    await store.command({ op: 'profile.delete', id: p.id })
    expect(await ctx.skills.get('agent-profile-mentor')).toBeUndefined()
  })
})

describe('invalidation', () => {
  beforeEach(() => mount())

  it('invalidates the host catalog after each saved change, and never after a refused one', async () => {
    expect(await names()).not.toContain('agent-profile-scout')
    const base = changes
    const p = await create({ name: 'Scout', role: '你侦察。' })
    expect(changes).toBe(base + 1)
    expect(await names()).toContain('agent-profile-scout')
    await store.command({ op: 'profile.update', id: p.id, patch: { name: 'Ranger' } })
    expect(changes).toBe(base + 2)
    const after = await names()
    expect(after).toContain('agent-profile-ranger')
    expect(after).not.toContain('agent-profile-scout')
    await expect(store.command({ op: 'profile.update', id: p.id, patch: { name: 'x'.repeat(41) } })).rejects.toThrow()
    await expect(store.command({ op: 'profile.update', id: 'nope', patch: { name: 'y' } })).rejects.toThrow()
    expect(changes).toBe(base + 2)
    expect(await names()).toContain('agent-profile-ranger')
  })

  it('stops when the part unloads: no provider, no more invalidations', async () => {
    await unload()
    expect(await names()).toEqual([])
    const base = changes
    await create({ name: 'Late', role: '迟到。' })
    expect(changes).toBe(base)
    expect(await names()).toEqual([])
  })
})

/** Values a broken registry or a foreign caller could hand to get(). */
function hostileCandidates(): unknown[] {
  const throwing = new Proxy(
    {},
    {
      get() {
        throw new Error('field read exploded')
      },
      has() {
        throw new Error('has exploded')
      },
      getPrototypeOf() {
        throw new Error('prototype exploded')
      },
    },
  )
  const { proxy: revoked, revoke } = Proxy.revocable({}, {})
  revoke()
  const unprintable = {
    toString() {
      throw new Error('no string')
    },
  }
  return [
    undefined,
    null,
    0,
    'agent-profile-general',
    Symbol('s'),
    () => 1,
    [],
    {},
    { locator: null },
    { locator: 'general' },
    { locator: { profileId: 42 } },
    { locator: { profileId: 'no-such' } },
    {
      name: 'agent-profile-general',
      get locator() {
        throw new Error('locator getter exploded')
      },
    },
    {
      locator: {
        get profileId() {
          throw unprintable
        },
      },
    },
    { locator: throwing },
    throwing,
    revoked,
    { locator: revoked },
  ]
}

describe('hostile input', () => {
  beforeEach(() => mount())

  it('get() resolves to "no such skill" for every hostile candidate, and logs each distinct failure once', async () => {
    for (const candidate of hostileCandidates()) {
      await expect(provider.get(candidate as never, {})).resolves.toBeUndefined()
      await expect(provider.get(candidate as never, {})).resolves.toBeUndefined()
    }
    const { failures } = status()
    expect(failures).toBe(hostileCandidates().length * 2)
    expect(new Set(warnings).size).toBe(warnings.length)
    expect(warnings.some((w) => w.includes('locator getter exploded'))).toBe(true)
    expect(warnings.some((w) => w.includes('no-such'))).toBe(true)
    // The provider still works afterwards.
    expect((await ctx.skills.get('agent-profile-general'))?.content).toContain('通用助手')
  })

  it('list() ignores whatever options it is given', async () => {
    for (const options of hostileCandidates()) {
      expect((await candidates(options)).map((c) => c.name)).toContain('agent-profile-general')
    }
  })

  it('a registry name lookup of anything unknown is undefined, and the whole catalog stays complete', async () => {
    for (const name of ['agent-profile-nope', 'AGENT-PROFILE-GENERAL', '', '../x'])
      expect(await ctx.skills.get(name)).toBeUndefined()
    expect((await ctx.skills.snapshot()).complete).toBe(true)
  })
})

describe('failure containment', () => {
  it('a store that cannot be read empties only our part of the catalog; other providers keep theirs', async () => {
    let broken = false
    await mount({
      get state() {
        if (broken) throw new Error('state unreadable')
        return store.state
      },
      onChange: (fn) => store.onChange(fn),
    })
    ctx.skills.registerProvider(() => ({
      name: 'other',
      list: async () => [
        {
          name: 'other-skill',
          description: 'another provider',
          invocation: { modelInvocable: true, userInvocable: true },
          source: 'custom',
          provider: 'other',
          rank: 600,
          locator: null,
        },
      ],
      get: async () => undefined,
    }))
    expect(await names()).toHaveLength(3)
    broken = true
    await store.command({ op: 'profile.create', profile: { name: 'Trigger', role: '触发。' } })
    const snapshot = await ctx.skills.snapshot()
    expect(snapshot.complete).toBe(true)
    expect(snapshot.skills.map((s) => s.name)).toEqual(['other-skill'])
    expect(await ctx.skills.get('agent-profile-general')).toBeUndefined()
    expect(warnings.filter((w) => w.includes('state unreadable'))).toHaveLength(1)
    expect(status()).toMatchObject({ available: true, listed: 0 })
    broken = false
    await store.command({ op: 'profile.update', id: 'general', patch: { emoji: '🧭' } })
    expect(await names()).toHaveLength(4)
  })

  it('a second provider of the same name is reported, not thrown', async () => {
    await mount()
    const first = status
    await mount()
    expect(first()).toMatchObject({ available: true })
    expect(status()).toMatchObject({ available: false })
    expect(status().reason).toMatch(/already registered/)
    expect(warnings.some((w) => w.includes('could not be registered'))).toBe(true)
    expect(await names()).toHaveLength(3)
  })
})
