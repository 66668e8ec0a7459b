/**
 * The background sync runs between turns: with the real dsh spine in process (its agent loop and status events) and
 * a model that holds its answer, a sync asked for while a turn runs starts only after the turn is over, and then
 * sends what was saved; a turn that begins while a run is under way (its fetch held by a git wrapper on PATH) goes
 * first: the run's commit and push wait for it.
 */
import { Context } from '@deepseek-ai/cordis'
import { createUserMessage, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { chmodSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../lib/sync/engine.ts'
import { TurnQuiet } from '../../lib/sync/turn-quiet.ts'
import { gitIn, syncWorld } from '../support/sync-machines.ts'
import { mountSpine, RecordingModel, SPINE_MODEL } from '../support/spine.ts'
import { perTest } from '../support/store-helpers.ts'

const world = syncWorld()
const t = perTest()
const path = process.env.PATH
afterEach(() => {
  process.env.PATH = path
})

/** Put a git on PATH whose fetch waits for the file `go` (and says it started in `started`, ended in `fetched`). */
async function holdFetch() {
  const bin = await t.dir('ap-git-held')
  const [go, started, fetched] = ['go', 'started', 'fetched'].map((n) => join(bin, n))
  const real = process.env.AP_REAL_GIT ?? '/usr/bin/git'
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\ncase " $* " in *" fetch "*) touch ${started}; while [ ! -e ${go} ]; do sleep 0.02; done;; esac\n` +
      `${real} "$@"\ncode=$?\ncase " $* " in *" fetch "*) touch ${fetched};; esac\nexit $code\n`,
  )
  chmodSync(join(bin, 'git'), 0o755)
  process.env.PATH = `${bin}:${path}`
  return { go: () => writeFileSync(go, ''), started: () => existsSync(started), fetched: () => existsSync(fetched) }
}

/** A model that answers only once released. */
class HeldModel extends RecordingModel {
  release: () => void = () => {}
  readonly #held = new Promise<void>((resolve) => (this.release = resolve))
  override async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    // The request is recorded (super's first step) before the answer is held.
    const answer = super.stream(options)[Symbol.asyncIterator]()
    const first = await answer.next()
    await this.#held
    if (first.done !== true) yield first.value
    for (let next = await answer.next(); next.done !== true; next = await answer.next()) yield next.value
  }
}

/** Whether the remote has a `main` branch (a sync pushed). */
const pushed = (remote: string) => {
  try {
    gitIn(remote, 'rev-parse', '--verify', '--quiet', 'refs/heads/main')
    return true
  } catch {
    return false
  }
}

async function spine(quiet: TurnQuiet) {
  const ctx = new Context()
  const model = new HeldModel()
  await mountSpine(ctx, model)
  quiet.watch(ctx)
  const { agent } = await ctx.agents.create({ sessionId: SessionId('s-quiet'), agentOptions: SPINE_MODEL })
  const idle = new Promise<number>((resolve) => {
    ctx.on('agent/status', ({ agent: a, status }) => {
      if (a === agent && status === 'idle') resolve(Date.now())
    })
  })
  agent.followup(createUserMessage({ content: [{ type: 'text', text: '你好' }], source: { kind: 'user' } }))
  // The turn is under way: its request reached the model (which holds the answer).
  await expect.poll(() => model.requests.length, { timeout: 15_000 }).toBe(1)
  return { ctx, model, idle }
}

/** `engine.now()` with the time it finished. */
const timedRun = (engine: SyncEngine) => engine.now().then((status) => ({ status, at: Date.now() }))

/**
 * While the model holds the turn the remote gets nothing (long enough for an unheld run to push: one takes well under
 * a second here, checked as it goes); once the turn is over the run ends, after it, having pushed the saved fact.
 */
async function pushedAfterTheTurn(
  remote: string,
  turn: { model: HeldModel; idle: Promise<number> },
  run: ReturnType<typeof timedRun>,
) {
  for (let i = 0; i < 40 && !pushed(remote); i++) await new Promise((r) => setTimeout(r, 50))
  expect(pushed(remote)).toBe(false)
  turn.model.release()
  const idleAt = await turn.idle
  const { status, at } = await run
  expect(status.error).toBeUndefined()
  expect(at).toBeGreaterThanOrEqual(idleAt)
  expect(gitIn(remote, 'log', '--format=%s', 'main')).toMatch(/memory: \+1/)
}

describe('sync between turns', () => {
  it('a sync asked for during a turn starts after the turn, then sends what was saved', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const quiet = new TurnQuiet()
    const engine = new SyncEngine({ store: a.store, repo: a.repo, log: { warn: () => {} }, quiet })
    const turn = await spine(quiet)
    try {
      await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户喜欢 Rust' }] })
      await pushedAfterTheTurn(remote, turn, timedRun(engine))
    } finally {
      turn.model.release()
      await engine.stop()
      await turn.ctx.fiber.dispose()
    }
  })

  it('a turn that begins while a run is under way goes first: the run commits and pushes after it', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户喜欢 Rust' }] })
    const fetch = await holdFetch()
    const quiet = new TurnQuiet()
    const engine = new SyncEngine({ store: a.store, repo: a.repo, log: { warn: () => {} }, quiet })
    const run = timedRun(engine)
    await expect.poll(fetch.started, { timeout: 15_000 }).toBe(true)
    const turn = await spine(quiet)
    try {
      fetch.go()
      // The run goes on past its fetch; unheld, its commit and push would follow at once.
      await expect.poll(fetch.fetched, { timeout: 15_000 }).toBe(true)
      await pushedAfterTheTurn(remote, turn, run)
    } finally {
      turn.model.release()
      await engine.stop()
      await turn.ctx.fiber.dispose()
    }
  })
})
