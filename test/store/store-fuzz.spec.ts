import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import fc from 'fast-check'
import { LIMITS, type State } from '../../lib/state/model.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { state as validState } from '../../lib/validate/state.ts'
import { asStored, stateOf } from '../../lib/provenance/provenance.ts'
import { freshStore } from '../support/store-helpers.ts'
import { avatarFileNames, canonicalJson, pngAvatar } from '../support/store-fixtures.ts'
import { fcParams, genRng, type Rng } from '../support/fuzz.ts'
import { StoreError } from '../../lib/shared/errors.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>

const ROUNDS = 3000
/** The run's choices: drawn from the property's `fc.gen()`, so a failing run shrinks to fewer, simpler commands. */
let r: Rng

const OPS = [
  'profile.create',
  'profile.update',
  'profile.duplicate',
  'profile.delete',
  'profile.activate',
  'memory.add',
  'memory.update',
  'memory.remove',
  'memory.clear',
  'memory.compress',
  'memory.undo',
  'session.set',
  'session.clear',
  'sessions.clearAll',
  'state.import',
  'state.restoreDefaults',
  'turn.record',
] as const
const FIELDS = [
  'name',
  'emoji',
  'avatar',
  'role',
  'personality',
  'speakingStyle',
  'rules',
  'memoryEnabled',
  'memory',
  'id',
  'createdAt',
]
const LENGTHS = [0, 1, 5, 39, 40, 41, 999, 1000, 1001, 4000, 4001, 8000, 8001]
const CHARS = ['a', '中', '🙂', ' ', '\n', '\u0000', '\u0007', '{', '"', '<', '\\', '\u202e']

function str(): string {
  const n = r.pick(LENGTHS)
  const c = r.pick(CHARS)
  return r.next() < 0.5 ? c.repeat(n) : Array.from({ length: Math.min(n, 60) }, () => r.pick(CHARS)).join('')
}

/** An image two profiles may share (one file on disk), a new one, or none. */
const SHARED_AVATAR = pngAvatar()
const plausibleAvatar = (): string => r.pick(['', SHARED_AVATAR, pngAvatar()])

/** A random value: usually JSON, sometimes something JSON cannot carry, sometimes a prototype-reaching key. */
function junk(depth = 0): unknown {
  switch (r.int(depth > 2 ? 7 : 11)) {
    case 0:
      return str()
    case 1:
      return r.pick([0, -1, 1.5, 1e300, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53 + 1])
    case 2:
      return r.pick([true, false, null, undefined])
    case 3:
      return r.pick(['general', 'coder', 'writer', 'ghost', '__proto__', 'constructor', '../x', ''])
    case 4:
      return r.pick([
        pngAvatar(),
        'data:image/svg+xml;base64,PHN2Zz4=',
        'data:image/png;base64,AAAA',
        'javascript:alert(1)',
      ])
    case 5:
      return r.pick([() => 1, Symbol('s'), 10n, new Date(), new Map()])
    case 6:
      return JSON.parse(
        r.pick(['{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '{"a":{"__proto__":null}}']),
      )
    case 7:
      return Array.from({ length: r.int(4) }, () => junk(depth + 1))
    default:
      return Object.fromEntries(
        Array.from({ length: r.int(4) }, () => [r.pick([...FIELDS, 'text', 'items', 'summary', 'x']), junk(depth + 1)]),
      )
  }
}

/** Either a plausible value for `kind` (so many commands do apply) or junk. */
function arg(store: ProfileStore, kind: string): unknown {
  if (r.next() < 0.25) return junk()
  const { profiles } = store.state
  const p = r.pick(profiles)
  switch (kind) {
    case 'id':
    case 'profileId':
      return p.id
    case 'sessionId':
      return `session-${r.int(30)}`
    case 'itemId':
      return p.memory.items.length > 0 ? r.pick(p.memory.items).id : 'm-none'
    case 'target':
      return r.next() < 0.6 ? { profileId: p.id } : { sessionId: `session-${r.int(30)}` }
    case 'items':
      return Array.from({ length: 1 + r.int(3) }, () => ({ text: r.next() < 0.8 ? `fact ${r.int(50)}` : str() }))
    case 'text':
      return r.next() < 0.8 ? `edited ${r.int(50)}` : str()
    case 'patch':
      return Object.fromEntries(
        Array.from({ length: 1 + r.int(3) }, () => {
          const f = r.pick([...FIELDS, 'note', 'profileId', 'memories'])
          return [
            f,
            r.next() < 0.5
              ? junk()
              : f === 'memoryEnabled'
                ? r.next() < 0.5
                : f === 'profileId'
                  ? p.id
                  : f === 'avatar'
                    ? plausibleAvatar()
                    : `v${r.int(100)}`,
          ]
        }),
      )
    case 'profile':
      return { name: `new ${r.int(1000)}` }
    case 'memory':
      return { summary: `summary ${r.int(9)}`, items: [{ text: `merged ${r.int(9)}` }] }
    case 'mode':
      return r.pick(['merge', 'replace'])
    case 'turn':
      return r.int(1000)
    case 'payload':
      return mutate(JSON.parse(JSON.stringify(store.exportEnvelope())) as unknown)
    default:
      return junk()
  }
}

const ARGS: Record<string, string[]> = {
  'profile.create': ['profile'],
  'profile.update': ['id', 'patch'],
  'profile.duplicate': ['id'],
  'profile.delete': ['id'],
  'profile.activate': ['id'],
  'memory.add': ['target', 'items'],
  'memory.update': ['target', 'itemId', 'text'],
  'memory.remove': ['target', 'itemId'],
  'memory.clear': ['target'],
  'memory.compress': ['profileId', 'memory'],
  'memory.undo': ['profileId'],
  'session.set': ['sessionId', 'patch'],
  'session.clear': ['sessionId'],
  'sessions.clearAll': [],
  'state.import': ['payload', 'mode'],
  'state.restoreDefaults': [],
  'turn.record': ['sessionId', 'turn', 'profileId'],
}

/** A valid export with one random spot replaced by junk (or left intact). */
function mutate(envelope: unknown): unknown {
  if (r.next() < 0.3) return envelope
  let node = envelope as Record<string, unknown>
  for (let depth = 0; depth < 6; depth++) {
    const keys = Object.keys(node)
    if (keys.length === 0) break
    const key = r.pick(keys)
    const child = node[key]
    if (typeof child !== 'object' || child === null || r.next() < 0.3) {
      node[key] = junk()
      return envelope
    }
    node = child as Record<string, unknown>
  }
  return envelope
}

function command(store: ProfileStore): unknown {
  if (r.next() < 0.03) return junk()
  const op = r.next() < 0.04 ? junk() : r.pick(OPS)
  const cmd: Record<string, unknown> = { op }
  const names = typeof op === 'string' && Object.hasOwn(ARGS, op) ? ARGS[op]! : []
  for (const name of names) if (r.next() < 0.95) cmd[name] = arg(store, name)
  // An own key named like a prototype member, as JSON.parse would make it.
  if (r.next() < 0.04)
    Object.defineProperty(cmd, r.pick(['extra', '__proto__', 'constructor']), { value: junk(), enumerable: true })
  return cmd
}

function assertValid(state: State): void {
  stateOf(validState(JSON.parse(JSON.stringify(state)), 'state'), 'state', asStored(0))
  expect(state.profiles.length).toBeGreaterThanOrEqual(1)
  expect(state.profiles.length).toBeLessThanOrEqual(LIMITS.profiles)
}

it(`${ROUNDS} random and malformed commands: each applies validly or is refused clearly; the state stays valid`, async () => {
  // One run of ROUNDS commands on a fresh store per attempt; fast-check prints the seed and the shrunk case's path on
  // a failure (FC_SEED and FC_PATH replay it), shrinking for at most a minute so that it reports before the timeout.
  let counts = { applied: 0, refused: 0 }
  await fc.assert(
    fc.asyncProperty(fc.gen(), async (g) => {
      r = genRng(g)
      const fresh = await freshStore()
      ctx = fresh
      try {
        counts = await fuzzOnce()
      } finally {
        await fresh.dispose()
      }
    }),
    fcParams(1, { timeLimitMs: 60_000 }),
  )
  // Outside the property: a shrunk case is meant to be short and simple, so these hold of the full run only.
  console.info(`fuzz: ${counts.applied} applied, ${counts.refused} refused`)
  expect(counts.applied).toBeGreaterThan(ROUNDS * 0.15)
  expect(counts.refused).toBeGreaterThan(ROUNDS * 0.15)
}, 120_000)

/** ROUNDS commands on `ctx`'s store, each checked as it is answered, then the store reopened from disk. */
async function fuzzOnce(): Promise<{ applied: number; refused: number }> {
  const avatarFiles = async () => (await readdir(join(ctx.dir, 'profiles.avatars')).catch(() => [] as string[])).sort()
  const { store } = ctx
  let applied = 0
  let refused = 0
  for (let i = 0; i < ROUNDS; i++) {
    const cmd = command(store)
    const before = { state: store.state, revision: store.revision }
    // An applied command's checks run apart from the refusal's: a state left invalid must fail as that, not pass for
    // a refusal that changed the state.
    const outcome = await store.command(cmd as Command).then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    )
    if ('reply' in outcome) {
      const res = outcome.reply
      applied++
      expect(res.state).toBe(store.state)
      expect(store.revision - before.revision).toBe(res.state === before.state ? 0 : 1)
      if (res.state !== before.state) assertValid(res.state)
    } else {
      const e = outcome.error
      refused++
      if (!(e instanceof StoreError)) throw new Error(`round ${i} threw a non-StoreError: ${String(e)}`)
      expect(['invalid', 'not-found', 'conflict']).toContain(e.code)
      expect(e.message.length).toBeGreaterThan(5)
      expect(e.field, e.message).toBeTypeOf('string')
      expect(store.state).toBe(before.state)
      expect(store.revision).toBe(before.revision)
    }
    // Every image the state holds is on disk, and nothing else: a replaced, cleared or deleted avatar's file is gone.
    if (i % 25 === 0) expect(await avatarFiles(), `round ${i}`).toEqual(avatarFileNames(store.state))
  }
  expect(({} as Record<string, unknown>).x).toBeUndefined()
  await store.close()
  const again = await openStore({ file: ctx.file })
  expect(again.lastError).toBeNull()
  expect(canonicalJson(again.state)).toBe(canonicalJson(store.state))
  await again.close()
  return { applied, refused }
}
