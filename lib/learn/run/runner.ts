/**
 * The learning run in the background: from a pick of the export last read, the extraction's calls one after another
 * (each within the extraction's bound of characters and shown the facts the learning memory holds now), each answer's
 * facts added at once as suggestions carrying the run's id (`memory.learn`), and the progress kept on disk after each
 * answered call (lib/store/learn-run-file.ts), so a dsh that stops mid-run resumes at the first call not answered.
 * A call waits for the conversations' turns under way to end: a run never slows a turn.
 * One run at a time per data: a second start is refused while one runs or waits paused. Pause and cancel take effect once the call out
 * is answered (what it cost is kept); a failed call or an answer that is no answer stops the run with nothing written
 * for that call, and resuming sends it again. It never throws into the host: every failure is a state and a log line.
 */
import { randomUUID } from 'node:crypto'
import { extractionRequest } from '../../memory/job.ts'
import type { ModelRoute } from '../../memory/model-call.ts'
import type { LearnFailure, LearnPick, LearnRunReply } from '../../shared/learn.ts'
import { errorText } from '../../shared/errors.ts'
import type { Log } from '../../shared/log.ts'
import type { ProfileStore } from '../../store/store.ts'
import { brokeRule, invalid } from '../../validate/core.ts'
import { knownOf, type Picked } from './exports.ts'
import { conversationTime, learnedFacts } from './learn-call.ts'
import { materialParts } from './plan.ts'
import { addLearned } from '../../store/learn-past-file.ts'
import {
  dropCalls,
  readCalls,
  readHead,
  writeCalls,
  writeWhole,
  type RunCall,
  type RunFiles,
  type RunHead,
} from '../../store/learn-run-file.ts'
import { StoreError } from '../../shared/errors.ts'

/** Model calls one run takes at most: a pick of more is refused, naming the limit (pick fewer conversations). */
const MAX_RUN_CALLS = 5000

/** What the runner needs of the host. */
export interface RunnerDeps {
  store: ProfileStore
  log: Pick<Log, 'warn'>
  files: RunFiles
  /** One extraction call's answer text; throws when the call fails. */
  ask(route: ModelRoute, prompt: string, signal: AbortSignal): Promise<string>
  /** The model when the pick names none (dsh's default); undefined when the host knows none. */
  defaultRoute(): ModelRoute | undefined
  /** Characters of material one call reads (the extraction's `excerptChars`). */
  excerptChars: number
  /**
   * Resolves once no conversation's turn is under way (or the turns have run long enough, or `signal` aborts): a call
   * and the facts it writes wait for it, so a run never shares the model and the store with a turn.
   */
  quiet(signal: AbortSignal): Promise<void>
}

/** Whether process `pid` is alive (a signal 0 probes without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The background learning run of one store's data. */
export class LearnRunner {
  readonly #deps: RunnerDeps
  #head: RunHead | undefined
  #calls: RunCall[] | undefined
  #loop: Promise<void> | undefined
  #starting = false
  readonly #stop = new AbortController()

  constructor(deps: RunnerDeps) {
    this.#deps = deps
  }

  /** Read the run kept on disk; one this process's predecessor left running goes on where it stood. */
  async load(): Promise<void> {
    const head = await readHead(this.#deps.files.head)
    if (head === undefined) return
    this.#head = head
    if (head.state !== 'running' || (head.pid !== process.pid && alive(head.pid))) return
    head.pid = process.pid
    this.#kick()
  }

  /**
   * The run as the page shows it, read again from disk unless this process is sending its calls: another dsh on the
   * same data (a second `dsh web`) may run one, started after this one read the disk, and keeps its progress there
   * after each answered call. A run this process took is shown as it holds it (its head on disk may lag, when the
   * disk refused a write).
   */
  async current(): Promise<LearnRunReply> {
    if (this.#loop !== undefined) return this.status()
    const disk = await readHead(this.#deps.files.head).catch(() => undefined)
    return disk === undefined || this.#holds(disk) ? this.status() : LearnRunner.#reply(disk)
  }

  /**
   * Whether the head on disk is the run this process holds and last took (its own head may be newer: a write the disk
   * refused); one another dsh took since (resumed there) is that dsh's.
   */
  #holds(disk: RunHead): boolean {
    return this.#head?.id === disk.id && disk.pid === process.pid
  }

  /** The run as the page shows it, as this process holds it. */
  status(): LearnRunReply {
    return LearnRunner.#reply(this.#head)
  }

  static #reply(h: RunHead | undefined): LearnRunReply {
    if (h === undefined) return {}
    const { id, state, into, service, next, total, facts, failure } = h
    const conversations =
      h.conversations === undefined ? {} : { conversations: { done: h.conversationsDone ?? 0, total: h.conversations } }
    return {
      run: {
        id,
        state,
        into,
        service,
        done: next,
        total,
        ...conversations,
        facts,
        ...(failure === undefined ? {} : { failure }),
      },
    }
  }

  /**
   * Start learning `picked` (the conversations of `pick`); refused while another run runs or waits paused, or while
   * another start is cutting its pick (that is seconds of work for a whole export, done a slice at a time: a second
   * start in between would otherwise see no run yet and start one beside it).
   */
  async start(picked: Picked, pick: LearnPick): Promise<LearnRunReply> {
    if (this.#starting) throw LearnRunner.#underWay()
    this.#starting = true
    try {
      return await this.#start(picked, pick)
    } finally {
      this.#starting = false
    }
  }

  static #underWay(): Error {
    return brokeRule('conflict', 'a learning run is under way: cancel it first', 'run', 'learn.running')
  }

  async #start(picked: Picked, pick: LearnPick): Promise<LearnRunReply> {
    // Read from disk too: another dsh on the same data may have started one since this one read it.
    const h = (await readHead(this.#deps.files.head).catch(() => undefined)) ?? this.#head
    const underWay = h !== undefined && (h.state === 'running' || h.state === 'paused')
    if (underWay && (h.pid === process.pid || alive(h.pid) || this.#head?.id === h.id)) throw LearnRunner.#underWay()
    const route = pick.model ?? this.#deps.defaultRoute()
    if (route === undefined)
      throw brokeRule('conflict', 'model: dsh has no default model to learn with', 'model', 'learn.no-model')
    const calls = await this.#cut(picked)
    if (calls.length === 0) throw invalid('pick', 'picks no words of yours to learn from')
    if (calls.length > MAX_RUN_CALLS)
      throw invalid('pick', `takes more model calls than the limit of ${MAX_RUN_CALLS}`, MAX_RUN_CALLS)
    const head: RunHead = {
      id: `learn-${randomUUID().slice(0, 8)}`,
      into: pick.into,
      route,
      service: picked.service,
      state: 'running',
      next: 0,
      total: calls.length,
      conversations: (calls.at(-1)?.conversation ?? -1) + 1,
      conversationsDone: 0,
      facts: 0,
      pid: process.pid,
    }
    try {
      await writeCalls(this.#deps.files.calls, head.id, calls)
      await writeWhole(this.#deps.files.head, JSON.stringify(head))
    } catch (error) {
      throw new StoreError('io', `the learning run could not be kept on disk: ${errorText(error)}`)
    }
    this.#head = head
    this.#calls = calls
    this.#kick()
    return this.status()
  }

  /**
   * The calls of `picked`: each conversation parsed as it is reached (a slice at a time) and let go once cut; the cut
   * stops at the first slice that takes it past the limit (a pick of a whole export need not be cut and held to be refused).
   */
  async #cut(picked: Picked): Promise<RunCall[]> {
    const calls: RunCall[] = []
    let conversation = 0
    for await (const slice of picked.picked) {
      for (const c of slice) {
        const before = calls.length
        for (const material of materialParts(c, this.#deps.excerptChars))
          calls.push({
            material,
            service: picked.service,
            title: c.title,
            at: conversationTime(c),
            // A past dsh conversation is remembered as learned once its last call is answered (see #one).
            ...(picked.service === 'dsh' ? { session: c.id } : {}),
            conversation,
          })
        // A conversation with no words of the user's takes no call, and is not one the run counts.
        if (calls.length > before) conversation++
      }
      if (calls.length > MAX_RUN_CALLS) break
    }
    return calls
  }

  /** Pause, resume or cancel the run; refused (not-found) when there is none, (conflict) when it cannot. */
  async control(action: 'pause' | 'resume' | 'cancel'): Promise<LearnRunReply> {
    if (this.#loop === undefined) await this.#adopt()
    const h = this.#head
    if (h === undefined) throw new StoreError('not-found', 'run: there is no learning run', 'run')
    const from: Record<typeof action, readonly string[]> = {
      pause: ['running'],
      resume: ['paused', 'failed'],
      cancel: ['running', 'paused', 'failed'],
    }
    if (!from[action].includes(h.state))
      throw new StoreError('conflict', `action: a run that is ${h.state} cannot ${action}`, 'action')
    if (action === 'resume') {
      delete h.failure
      h.state = 'running'
      h.pid = process.pid
    } else h.state = action === 'pause' ? 'paused' : 'canceled'
    await this.#save()
    if (action === 'cancel') await this.#dropCalls()
    if (action === 'resume') this.#kick()
    return this.status()
  }

  /**
   * Take the run kept on disk as this process's when this process is not sending calls: another dsh on the same data
   * may have started or finished one since, or stopped with one left (which this process then resumes). One another
   * live dsh holds (running, paused or failed) is refused: a paused run's last call may still be out there, and that
   * dsh writes its head over whatever is written here.
   */
  async #adopt(): Promise<void> {
    const disk = await readHead(this.#deps.files.head).catch(() => undefined)
    if (disk === undefined || this.#holds(disk)) return
    const held = disk.state === 'running' || disk.state === 'paused' || disk.state === 'failed'
    if (held && disk.pid !== process.pid && alive(disk.pid))
      throw brokeRule(
        'conflict',
        'run: another dsh on this data holds it: pause, resume or cancel it there',
        'run',
        'learn.elsewhere',
      )
    if (this.#head?.id !== disk.id) this.#calls = undefined
    this.#head = disk
  }

  /** Stop sending (the plugin unloads): the call out is abandoned, and the run stays running on disk to resume. */
  async close(): Promise<void> {
    this.#stop.abort()
    await this.#loop
  }

  /** Run the loop unless it runs already (one loop per runner: never two calls at once). */
  #kick(): void {
    if (this.#loop !== undefined) return
    this.#loop = this.#drive()
      .catch((error: unknown) => this.#deps.log.warn(`agent-profiles: learn: the run stopped: ${errorText(error)}`))
      .finally(() => {
        this.#loop = undefined
        // Resumed while the loop was on its way out (its last call failed or was paused): it goes on.
        const h = this.#head
        if (h?.state === 'running' && h.next < h.total && !this.#stop.signal.aborted) this.#kick()
      })
  }

  async #drive(): Promise<void> {
    const h = this.#head!
    this.#calls ??= await readCalls(this.#deps.files.calls, h.id, h.total)
    const calls = this.#calls
    if (calls === undefined || calls.length !== h.total) {
      await this.#fail('disk')
      return
    }
    while (h.state === 'running' && h.next < h.total && !this.#stop.signal.aborted) {
      if (!(await this.#one(h, calls))) return
    }
    if (h.state === 'running' && h.next >= h.total) {
      h.state = 'done'
      await this.#save()
      await this.#dropCalls()
    }
  }

  /** Send one call and keep what it found; false when the run stopped (a failure, or the plugin unloading). */
  async #one(h: RunHead, calls: readonly RunCall[]): Promise<boolean> {
    const { store } = this.#deps
    await this.#deps.quiet(this.#stop.signal)
    // Paused or canceled while a turn ran: nothing is sent.
    if (h.state !== 'running' || this.#stop.signal.aborted) return true
    const call = calls[h.next]!
    const state = store.state
    const known = knownOf(state, h.into)
    const profile =
      'profileId' in h.into
        ? state.profiles.find((p) => p.id === (h.into as { profileId: string }).profileId)
        : undefined
    if (known === undefined || profile?.memoryEnabled === false) return this.#fail('target')
    const request = extractionRequest(call.material, known)
    let answer: string
    try {
      answer = await this.#deps.ask(h.route, request.prompt, this.#stop.signal)
    } catch (error) {
      if (this.#stop.signal.aborted) return false
      this.#deps.log.warn(`agent-profiles: learn: call ${h.next + 1} of ${h.total} failed: ${errorText(error)}`)
      return this.#fail('model')
    }
    const conversation = { id: '', title: call.title, at: call.at, messages: [] }
    const facts = learnedFacts(answer, request, known, { service: call.service, conversation })
    if (facts === undefined) return this.#fail('answer')
    if (facts.length > 0) {
      try {
        const items = facts.map(({ text, origin, at, replaces, keys }) => ({
          text,
          origin,
          ...(at > 0 ? { at } : {}),
          ...(replaces === undefined ? {} : { replaces }),
          ...(keys === undefined ? {} : { keys }),
        }))
        const r = await store.command({ op: 'memory.learn', target: h.into, importId: h.id, items })
        h.facts += r.added.length
      } catch (error) {
        this.#deps.log.warn(`agent-profiles: learn: the facts of call ${h.next + 1} were refused: ${errorText(error)}`)
        return this.#fail('target')
      }
    }
    h.next++
    // The next call's conversation is the first not done (the calls run in conversation order); none left: all done.
    if (h.conversations !== undefined) h.conversationsDone = calls[h.next]?.conversation ?? h.conversations
    await this.#save()
    if (call.session !== undefined && calls[h.next]?.session !== call.session) await this.#learned(call.session, h.id)
    return true
  }

  /**
   * Remember a past conversation as learned by run `runId` (undoing the run offers it again); a disk that refuses is
   * logged (a later run may offer it again).
   */
  async #learned(sessionId: string, runId: string): Promise<void> {
    try {
      await addLearned(this.#deps.files.learned, sessionId, runId)
    } catch (error) {
      this.#deps.log.warn(`agent-profiles: learn: a learned conversation could not be kept: ${errorText(error)}`)
    }
  }

  async #fail(failure: LearnFailure): Promise<false> {
    const h = this.#head!
    if (h.state === 'running') {
      h.state = 'failed'
      h.failure = failure
    }
    await this.#save()
    return false
  }

  /** Keep the head on disk; a disk that refuses is logged (the facts are in the store; a restart may ask again). */
  async #save(): Promise<void> {
    try {
      await writeWhole(this.#deps.files.head, JSON.stringify(this.#head))
    } catch (error) {
      this.#deps.log.warn(`agent-profiles: learn: the run's progress could not be kept: ${errorText(error)}`)
    }
  }

  async #dropCalls(): Promise<void> {
    this.#calls = undefined
    await dropCalls(this.#deps.files.calls).catch(() => undefined)
  }
}
