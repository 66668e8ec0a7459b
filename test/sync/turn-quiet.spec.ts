/**
 * The background sync runs between turns: with the real dsh spine in process (its agent loop and status events) and
 * a model that holds its answer, a sync asked for while a turn runs starts only after the turn is over, and then
 * sends what was saved; a turn that begins while a run is under way goes first: no step of the run — a git call, the
 * reading of a git call's answer, the host's hashing, the store's command, the record of a push — starts until the
 * turn is over (a git wrapper on PATH holds the run's calls so that turns begin inside them); and turns that run long
 * delay a run by the wait's bound in all, not at each of its steps.
 */
import { Context } from '@deepseek-ai/cordis'
import { createUserMessage, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SyncEngine } from '../../lib/sync/engine.ts'
import { TurnQuiet } from '../../lib/sync/turn-quiet.ts'
import { Repo } from '../../lib/sync/repo.ts'
import { StateFiles } from '../../lib/sync/state-files.ts'
import { PendingCount } from '../../lib/sync/pending.ts'
import { LastPush } from '../../lib/sync/last-push.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { gitIn, syncWorld } from '../support/sync-machines.ts'
import { mountSpine, RecordingModel, SPINE_MODEL } from '../support/spine.ts'
import { perTest } from '../support/store-helpers.ts'

const world = syncWorld()
const t = perTest()
const path = process.env.PATH
afterEach(() => {
  process.env.PATH = path
  vi.restoreAllMocks()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The state letters of the processes in group `group` (its leader's first), from /proc/<pid>/stat. */
function groupStates(group: number): string[] {
  const states: string[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8')
    } catch {
      continue // ended between the listing and the read
    }
    // The fields after the command's closing parenthesis: state, parent, group.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(pgrp) !== group) continue
    if (Number(name) === group) states.unshift(state!)
    else states.push(state!)
  }
  return states
}

/**
 * Put a git on PATH that notes each call of a sync clone (`start <command>`, then `end <command>`) and holds the first
 * call of each command in `held` until `go(command)`; `waiting()` names the command held now.
 */
async function holdGit(held: readonly string[]) {
  const bin = await t.dir('ap-git-held')
  const real = process.env.AP_REAL_GIT ?? '/usr/bin/git'
  const log = join(bin, 'calls')
  writeFileSync(log, '')
  writeFileSync(
    join(bin, 'git'),
    [
      '#!/bin/sh',
      // The command is the word after `--git-dir <dir>` (how git.ts calls git; the spec's own calls have none).
      'state=0; cmd=',
      'for a in "$@"; do case $state in 0) [ "$a" = --git-dir ] && state=1;; 1) state=2;; 2) cmd=$a; state=3;; esac; done',
      `[ -n "$cmd" ] && echo "start $cmd" >> ${log}`,
      `if [ -n "$cmd" ] && [ -e "${bin}/hold-$cmd" ]; then rm "${bin}/hold-$cmd"; echo $$ > "${bin}/waiting-$cmd"`,
      `  while [ ! -e "${bin}/go-$cmd" ]; do sleep 0.02; done; rm "${bin}/waiting-$cmd"; fi`,
      `${real} "$@"`,
      'code=$?',
      `[ -n "$cmd" ] && echo "end $cmd" >> ${log}`,
      'exit $code',
      '',
    ].join('\n'),
  )
  chmodSync(join(bin, 'git'), 0o755)
  for (const c of held) writeFileSync(join(bin, `hold-${c}`), '')
  process.env.PATH = `${bin}:${path}`
  /** The wrapper holding `command`: its process id, which is its group's (git-spawn.ts starts each call as a group). */
  const pid = (c: string) => Number(readFileSync(join(bin, `waiting-${c}`), 'utf8').trim())
  return {
    waiting: () => held.find((c) => existsSync(join(bin, `waiting-${c}`))),
    go: (c: string) => writeFileSync(join(bin, `go-${c}`), ''),
    /**
     * The state of the process group holding `command` now, from /proc: `T` when any of its processes is stopped,
     * otherwise the wrapper's own (`S`, `R`: going on). The group, not the wrapper alone: sh starts each `sleep` with
     * vfork, and a wrapper stopped while its child is between vfork and exec waits in `D` until the child runs again.
     */
    state: (c: string) => {
      const states = groupStates(pid(c))
      return states.includes('T') ? 'T' : (states[0] ?? '')
    },
    pid,
    calls: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
  }
}

/** A model that holds each answer until released (each turn its own hold). */
class HeldModel extends RecordingModel {
  #release: () => void = () => {}
  #held = this.#hold()
  #hold(): Promise<void> {
    return new Promise<void>((resolve) => (this.#release = resolve))
  }
  /** Let the answer held now go (a later request is held again). */
  release(): void {
    this.#release()
    this.#held = this.#hold()
  }
  override async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    const held = this.#held
    // The request is recorded (super's first step) before the answer is held.
    const answer = super.stream(options)[Symbol.asyncIterator]()
    const first = await answer.next()
    await held
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

/** The spine with `quiet` following its turns, and one conversation whose turns a spec starts. */
async function spine(quiet: TurnQuiet) {
  const ctx = new Context()
  const model = new HeldModel()
  await mountSpine(ctx, model)
  quiet.watch(ctx)
  const { agent } = await ctx.agents.create({ sessionId: SessionId('s-quiet'), agentOptions: SPINE_MODEL })
  /** Start a turn; resolves once its request reached the model (which holds the answer), with the turn's end. */
  const turn = async (text: string): Promise<{ idle: Promise<number> }> => {
    const idle = new Promise<number>((resolve) => {
      const off = ctx.on('agent/status', ({ agent: a, status }) => {
        if (a !== agent || status !== 'idle') return
        off()
        resolve(Date.now())
      })
    })
    const asked = model.requests.length
    agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
    await expect.poll(() => model.requests.length, { timeout: 15_000 }).toBe(asked + 1)
    return { idle }
  }
  return { ctx, model, turn }
}

/** `engine.now()` with the time it finished. */
const timedRun = (engine: SyncEngine) => engine.now().then((status) => ({ status, at: Date.now() }))

/**
 * While the model holds the turn the remote gets nothing (long enough for an unheld run to push: one takes well under
 * a second here, checked as it goes); once the turn is over the run ends, after it, having pushed the saved fact.
 */
async function pushedAfterTheTurn(
  remote: string,
  model: HeldModel,
  turn: { idle: Promise<number> },
  run: ReturnType<typeof timedRun>,
) {
  for (let i = 0; i < 40 && !pushed(remote); i++) await sleep(50)
  expect(pushed(remote)).toBe(false)
  model.release()
  const idleAt = await turn.idle
  const { status, at } = await run
  expect(status.error).toBeUndefined()
  expect(at).toBeGreaterThanOrEqual(idleAt)
  expect(gitIn(remote, 'log', '--format=%s', 'main')).toMatch(/memory: \+1/)
}

/**
 * Note, as `noted`, each step of a sync run the host takes while `during()`: a clone method called or answering (its
 * git call's answer, read by the run), the hashing of the state's files, the pending look, a store command and the
 * record of a push.
 */
function noteSteps(store: ProfileStore, during: () => boolean, noted: string[]): void {
  const wrap = (o: object, name: string, label: string) => {
    const original = (o as Record<string, (...args: unknown[]) => unknown>)[name]!
    vi.spyOn(o as Record<string, (...args: unknown[]) => unknown>, name).mockImplementation(function (
      this: unknown,
      ...args: unknown[]
    ) {
      if (during()) noted.push(`${label} called`)
      const r = original.apply(this, args)
      if (!(r instanceof Promise)) return r
      return r.then((v: unknown) => {
        if (during()) noted.push(`${label} answered`)
        return v
      })
    })
  }
  for (const m of Object.getOwnPropertyNames(Repo.prototype))
    if (m !== 'constructor' && m !== 'waitBetween') wrap(Repo.prototype, m, `repo.${m}`)
  wrap(StateFiles.prototype, 'of', 'state files')
  wrap(PendingCount.prototype, 'look', 'pending look')
  wrap(LastPush.prototype, 'pushed', 'push record')
  wrap(store, 'command', 'store command')
}

describe('sync between turns', () => {
  it('turns that run long delay a sync by the bound in all, not at each of its steps', async () => {
    vi.useFakeTimers()
    try {
      // The host's status events, told by hand (fake timers stand for a turn of minutes).
      const on = new Map<string, (e: { agent: { id: string }; status: string }) => void>()
      const ctx = { on: (name: string, f: never) => void on.set(name, f), effect: () => undefined }
      const quiet = new TurnQuiet()
      quiet.watch(ctx as unknown as Context)
      const status = (s: string) => on.get('agent/status')!({ agent: { id: 'a' }, status: s })
      const waits = (): { done: boolean } => {
        const w = { done: false }
        void quiet.settled(1_000).then(() => (w.done = true))
        return w
      }
      status('running')
      const first = waits()
      await vi.advanceTimersByTimeAsync(999)
      expect(first.done).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      expect(first.done).toBe(true)
      // The same turns still run: the run's next steps go at once.
      const next = waits()
      await vi.advanceTimersByTimeAsync(0)
      expect(next.done).toBe(true)
      // Turns that begin after them are waited for again.
      status('idle')
      status('running')
      const later = waits()
      await vi.advanceTimersByTimeAsync(500)
      expect(later.done).toBe(false)
      status('idle')
      await vi.advanceTimersByTimeAsync(0)
      expect(later.done).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })

  it('a sync asked for during a turn starts after the turn, then sends what was saved', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const quiet = new TurnQuiet()
    const engine = new SyncEngine({ store: a.store, repo: a.repo, log: { warn: () => {} }, quiet })
    const s = await spine(quiet)
    try {
      const turn = await s.turn('你好')
      await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户喜欢 Rust' }] })
      await pushedAfterTheTurn(remote, s.model, turn, timedRun(engine))
    } finally {
      s.model.release()
      await engine.stop()
      await s.ctx.fiber.dispose()
    }
  })

  it('a turn that begins while a run is under way goes first: the run commits and pushes after it', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户喜欢 Rust' }] })
    const git = await holdGit(['fetch'])
    const quiet = new TurnQuiet()
    const engine = new SyncEngine({ store: a.store, repo: a.repo, log: { warn: () => {} }, quiet })
    const run = timedRun(engine)
    await expect.poll(git.waiting, { timeout: 15_000 }).toBe('fetch')
    const s = await spine(quiet)
    try {
      const turn = await s.turn('你好')
      // The fetch let go (stopped while the turn runs, or ending and its answer waiting): unheld, the run's commit
      // and push would follow at once.
      git.go('fetch')
      await pushedAfterTheTurn(remote, s.model, turn, run)
    } finally {
      s.model.release()
      await engine.stop()
      await s.ctx.fiber.dispose()
    }
  })

  it('a git call under way when a turn begins is stopped until the turns end, and goes on after them', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户喜欢 Rust' }] })
    const git = await holdGit(['fetch'])
    const quiet = new TurnQuiet()
    const engine = new SyncEngine({ store: a.store, repo: a.repo, log: { warn: () => {} }, quiet })
    const run = engine.now()
    await expect.poll(git.waiting, { timeout: 15_000 }).toBe('fetch')
    const s = await spine(quiet)
    try {
      // The fetch (held by the wrapper, so that it is under way) is stopped while the turn runs…
      expect(git.state('fetch')).not.toBe('T')
      const turn = await s.turn('你好')
      await expect.poll(() => git.state('fetch'), { timeout: 15_000 }).toBe('T')
      s.model.release()
      await turn.idle
      // …and goes on once it is over; the run then ends as any other.
      await expect.poll(() => git.state('fetch'), { timeout: 15_000 }).not.toBe('T')
      const pid = git.pid('fetch')
      git.go('fetch')
      expect((await run).error).toBeUndefined()
      expect(gitIn(remote, 'log', '--format=%s', 'main')).toMatch(/memory: \+1/)
      // No git process of the run is left, stopped or running.
      expect(existsSync(`/proc/${pid}`)).toBe(false)
    } finally {
      s.model.release()
      git.go('fetch')
      await engine.stop()
      await s.ctx.fiber.dispose()
    }
  })

  it('a git call stopped for a turn goes on when the plugin goes away during the turn', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const git = await holdGit(['fetch'])
    // The host's status events told by hand, and the plugin's disposal (its effect's cleanup) called as the host would.
    const on = new Map<string, (e: { agent: { id: string }; status: string }) => void>()
    let dispose: () => void = () => {}
    const ctx = {
      on: (name: string, f: never) => void on.set(name, f),
      effect: (f: () => () => void) => void (dispose = f()),
    }
    const quiet = new TurnQuiet()
    quiet.watch(ctx as unknown as Context)
    const engine = new SyncEngine({ store: a.store, repo: a.repo, log: { warn: () => {} }, quiet })
    const run = engine.now()
    try {
      await expect.poll(git.waiting, { timeout: 15_000 }).toBe('fetch')
      on.get('agent/status')!({ agent: { id: 'a' }, status: 'running' })
      await expect.poll(() => git.state('fetch'), { timeout: 15_000 }).toBe('T')
      dispose()
      await expect.poll(() => git.state('fetch'), { timeout: 15_000 }).not.toBe('T')
      git.go('fetch')
      expect((await run).error).toBeUndefined()
    } finally {
      git.go('fetch')
      await engine.stop()
    }
  })

  it('no step of a run starts during a turn, wherever in the run the turn began', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const b = await world.machine(remote)
    expect((await a.engine.now()).error).toBeUndefined()
    expect((await b.engine.now()).error).toBeUndefined()
    await b.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户用 Neovim' }] })
    expect((await b.engine.now()).error).toBeUndefined()
    await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户喜欢 Rust' }] })
    // A's run fetches, commits its fact, merges B's, hands it to its store and pushes: a turn begins inside its fetch,
    // a git call of its commit, one of its merge and its push, each held until the turn is under way.
    const held = ['fetch', 'write-tree', 'diff-tree', 'push']
    const git = await holdGit(held)
    const quiet = new TurnQuiet()
    const engine = new SyncEngine({ store: a.store, repo: a.repo, log: { warn: () => {} }, quiet })
    const s = await spine(quiet)
    const noted: string[] = []
    // The turns as the host tells them: the git calls that started from a turn's start to its end are noted there.
    let from = -1
    s.ctx.on('agent/status', ({ status }) => {
      if (status === 'running') from = git.calls().length
      else if (from >= 0) {
        for (const line of git.calls().slice(from)) if (line.startsWith('start ')) noted.push(`git ${line.slice(6)}`)
        from = -1
      }
    })
    noteSteps(a.store, () => from >= 0, noted)
    try {
      const run = engine.now()
      for (const command of held) {
        await expect.poll(git.waiting, { timeout: 15_000 }).toBe(command)
        const turn = await s.turn(`第 ${command} 轮`)
        // The call let go (stopped while the turn runs, or ending and its answer waiting): unheld, the run's next
        // step would follow it at once (a git call started ends this look early).
        git.go(command)
        const calls = git.calls().length
        for (let i = 0; i < 20 && git.calls().length === calls; i++) await sleep(50)
        s.model.release()
        await turn.idle
        await expect.poll(git.calls, { timeout: 15_000 }).toContain(`end ${command}`)
      }
      expect((await run).error).toBeUndefined()
      expect(noted).toEqual([])
      // Every step ran, after the turns: B's fact is in A's store, and A's merge of both is on the remote.
      const coder = a.store.state.profiles.find((p) => p.id === 'coder')!
      expect(coder.memory.items.map((i) => i.text)).toEqual(expect.arrayContaining(['用户用 Neovim', '用户喜欢 Rust']))
      expect(gitIn(remote, 'log', '-1', '--format=%s', 'main')).toMatch(/^merge: /)
    } finally {
      s.model.release()
      await engine.stop()
      await s.ctx.fiber.dispose()
    }
  }, 60_000)
})
