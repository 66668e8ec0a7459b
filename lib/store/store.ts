/**
 * The profile store: the one owner of the plugin's data. Owns the live state snapshot, the single queue every
 * mutation goes through, the disk-first group commit, change notification and the turn ledger. It never renders
 * prompt text and never talks HTTP; the commands live in lib/commands/, reading and writing the data in persist.ts
 * (the files are listed in README, "Where data lives").
 *
 * Group commit: while one write is in flight, arriving commands wait; the next batch applies all of them in order to
 * a draft and persists the draft with ONE atomic write + fsync. Each caller still gets its own notice and extras; a
 * refused command is refused alone (the draft skips it); a failed write fails the whole batch and leaves memory and
 * disk at the previous state. Why: with one fsync per command, each of 16 concurrent writers waited out 15 others'.
 */
import { randomBytes } from 'node:crypto'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Envelope, Profile, SessionSetting, State } from '../shared/model.ts'
import { factoryState } from './defaults.ts'
import { TurnLedger } from './ledger.ts'
import { applyCommand } from '../commands/dispatch.ts'
import { Disk, layoutOf, type Loaded } from './persist.ts'
import { exportEnvelope } from '../commands/transfer.ts'
import { StoreError, invalid, onlyKeys, record, sessionId as sessionIdOf } from '../validate/state.ts'
import { errorText } from '../errors.ts'
import { WriterLock, heldBy } from './writer-lock.ts'
import { findProfile, notice } from '../commands/kit.ts'
import type { Command, Notice } from '../shared/contract.ts'
export type { Command, MemoryInput, MemoryItemInput, MemoryTarget, Notice, ProfileInput } from '../shared/contract.ts'

export { StoreError } from '../validate/state.ts'
export type { StoreErrorCode } from '../validate/state.ts'

/** What every successful command returns: the new state, a notice, and the operation's own extra fields. */
export interface CommandResult {
  state: State
  notice: Notice
  [extra: string]: unknown
}

/** Where the store keeps its data and where it reports trouble. */
export interface StoreOptions {
  file: string
  log?: { warn(msg: string): void; error(msg: string): void }
  /** How long this process keeps the writer lock after its last save before another dsh process may take it (ms). */
  lockIdleMs?: number
  /** How long a change waits for another dsh process to let the writer lock go before it is refused (ms). */
  lockWaitMs?: number
  /** False leaves memory writes out of the history; only bench/history.bench.ts sets it, to measure what it costs. */
  recordHistory?: boolean
}

const LOCK_IDLE_MS = 1_000
const LOCK_WAIT_MS = 3_000
const LOCK_POLL_MS = 50

/** The store's public face. */
export interface ProfileStore {
  /** The data file (absolute). */
  readonly file: string
  /** Deep-frozen snapshot; replaced, never mutated, on each successful change. */
  readonly state: State
  /** +1 per successful change; persisted, so it keeps counting across restarts. */
  readonly revision: number
  /** The last load or write problem, for the UI. */
  readonly lastError: { message: string; at: number; keptAs?: string } | null
  /**
   * Run one command through the queue: disk first, memory after. Throws StoreError; then nothing changed. Commands
   * that waited together are written together; each result's `state` is the state that write made durable.
   */
  command(cmd: Command): Promise<CommandResult>
  /** Called after each successful write (once per batch) with the new state; returns an unsubscribe function. */
  onChange(fn: (state: State) => void): () => void
  /** The profile a conversation uses now: its pin when it has one, else the global active profile. */
  effective(sessionId?: string): { profile: Profile; pinned: boolean; setting?: SessionSetting }
  /** The export envelope of `ids` (all profiles when omitted). Never carries conversation settings. */
  exportEnvelope(ids?: string[]): Envelope
  /** Short content hash of a profile's avatar, '' when it has none. */
  avatarHash(profileId: string): string
  /** Turn number → id of the profile that answered it, for one conversation. */
  turnsOf(sessionId: string): Record<number, string>
  /** Finish queued commands, then refuse new ones. */
  close(): Promise<void>
}

/**
 * The data file when the caller has no configured one: `$DSH_AGENT_PROFILES_DATA/profiles.json` when that variable is
 * set (it names a directory, because the store keeps its avatars and turn ledger beside the data file), else
 * `<dshHome>/agent-profiles/profiles.json` (outside the plugin, so it survives uninstall and reinstall).
 */
export function defaultDataFile(dshHome: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.DSH_AGENT_PROFILES_DATA?.trim()
  return dir ? join(resolve(dir), 'profiles.json') : join(dshHome, 'agent-profiles', 'profiles.json')
}

const silent = { warn() {}, error() {} }


/** Freeze what is not frozen yet; unchanged subtrees of the previous snapshot already are, so this is O(change). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const v of Object.values(value)) deepFreeze(v)
  return value
}

function newId(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`
}

/** A command's own answer, before the batch it joined is written. */
type Reply = { notice: Notice; [extra: string]: unknown }

/** One command waiting in the queue, with its caller's promise. */
interface Waiting {
  cmd: unknown
  resolve(result: CommandResult): void
  reject(error: unknown): void
}

/** What opening found: the disk and what it loaded, how the files looked then, the ledger, and the writer lock. */
interface Opened {
  disk: Disk
  ledger: TurnLedger
  loaded: Loaded
  seen: string
  lock: WriterLock
  timing: { idleMs: number; waitMs: number }
  recordHistory?: boolean
}

/** Loads that found the files unusable while another process saves them are tried again this often, this far apart. */
const LOAD_ATTEMPTS = 5
const LOAD_RETRY_MS = 40

/** What a batch will do for one caller: answer now, refuse, or answer after the batch's write. */
type Outcome =
  | { caller: Waiting; now: CommandResult }
  | { caller: Waiting; error: unknown }
  | { caller: Waiting; done: () => Promise<Reply> }

/** A batch applied to the current state: the state it makes, how many commands changed it, and every outcome. */
interface Draft {
  state: State
  changes: number
  outcomes: Outcome[]
}

class Store implements ProfileStore {
  readonly file: string
  // Both set by #adopt, from the constructor on.
  #state!: State
  #revision!: number
  #lastError: ProfileStore['lastError'] = null
  /** Set when the data file must not be written (a bad file could not be moved aside). */
  #blocked: string | undefined
  /** Set when the store could not open at all: nothing at all is written, not even the turn ledger. */
  readonly #offline: boolean
  /** Taken for a change and let go when idle, so that dsh processes sharing the data take turns writing it. */
  readonly #lock: WriterLock
  /** The data files as this store last saw them (loaded or left them), to see whether another process wrote since. */
  #seen: string
  readonly #timing: { idleMs: number; waitMs: number }
  readonly #recordHistory: boolean
  /** Lets the lock go once no batch has come for `idleMs`, counted from `#lastBatch`. */
  #idle: NodeJS.Timeout | undefined
  #lastBatch = 0
  /** The hand-over in progress; the next batch waits for it. */
  #handingOver: Promise<void> | undefined
  #closing = false
  /** Commands waiting for the next batch, in arrival order. */
  readonly #waiting: Waiting[] = []
  /** The batch loop while it runs (it drains `#waiting`, one batch at a time); never rejects. */
  #draining: Promise<void> | undefined
  readonly #listeners = new Set<(state: State) => void>()
  #disk: Disk
  readonly #ledger: TurnLedger
  readonly #log: NonNullable<StoreOptions['log']>

  constructor(opened: Opened, log: NonNullable<StoreOptions['log']>, offline = false) {
    const { disk, ledger, loaded, seen, lock, timing } = opened
    this.#timing = timing
    this.#recordHistory = opened.recordHistory !== false
    this.file = disk.layout.file
    this.#disk = disk
    this.#lock = lock
    this.#seen = seen
    this.#ledger = ledger
    this.#log = log
    this.#adopt(loaded)
    this.#offline = offline
    // A repair at open made this process the saver; it lets go like after any save.
    if (lock.held) this.#armHandOver()
  }

  /** Take what a load of the data files found as the store's state, reporting its problem. */
  #adopt(loaded: Loaded): void {
    this.#state = deepFreeze(loaded.state)
    this.#revision = loaded.revision
    if (loaded.problem !== undefined) this.#fail(loaded.problem.message, loaded.problem.keptAs)
    if (loaded.blocked) this.#blocked = loaded.problem?.message ?? 'the data file cannot be written'
  }

  get state(): State {
    return this.#state
  }

  get revision(): number {
    return this.#revision
  }

  get lastError(): ProfileStore['lastError'] {
    return this.#lastError
  }

  #fail(message: string, keptAs?: string): void {
    this.#lastError = keptAs === undefined ? { message, at: Date.now() } : { message, at: Date.now(), keptAs }
    this.#log.error(message)
  }

  command(cmd: Command): Promise<CommandResult> {
    if (this.#closing) return Promise.reject(new StoreError('io', 'the profile store is closed'))
    return new Promise((resolve, reject) => {
      this.#waiting.push({ cmd, resolve, reject })
      this.#draining ??= this.#drain()
    })
  }

  async #drain(): Promise<void> {
    // One microtask first, so commands sent in the same tick as the first one share its batch.
    await undefined
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0)
      // #commit settles every caller itself; this only covers a fault it did not foresee (settling twice is a no-op).
      await this.#commit(batch).catch((e: unknown) => batch.forEach((caller) => caller.reject(e)))
    }
    this.#draining = undefined
  }

  /** Apply `batch` in order to a draft, write the draft once, then settle every caller. Never throws. */
  async #commit(batch: Waiting[]): Promise<void> {
    if (this.#handingOver !== undefined) await this.#handingOver
    let draft = this.#draft(batch)
    if (draft.changes > 0 && !this.#lock.held) {
      // A change while another process may save: become the data's one writer, and start from what is on disk.
      const claim = await this.#claim(true)
      draft = this.#draft(batch, claim)
    }
    const accepted: { caller: Waiting; done: () => Promise<Reply> }[] = []
    for (const o of draft.outcomes) {
      if ('now' in o) o.caller.resolve(o.now)
      else if ('error' in o) o.caller.reject(o.error)
      else accepted.push(o)
    }
    if (draft.changes > 0) {
      const next = deepFreeze(draft.state)
      // Still +1 per change, not per write: the revision counts changes across restarts.
      const revision = this.#revision + draft.changes
      try {
        await this.#disk.write(next, revision)
      } catch (e) {
        const message = `not saved, nothing changed: ${errorText(e)}`
        this.#fail(message)
        for (const { caller } of accepted) caller.reject(new StoreError('io', message))
        return
      }
      this.#state = next
      this.#revision = revision
      const leftovers = await this.#disk.collect(next).catch((e: unknown) => [errorText(e)])
      if (leftovers.length > 0) this.#log.warn(`unused avatar files not removed: ${leftovers.join('; ')}`)
      this.#notify(next)
    }
    for (const { caller, done } of accepted) {
      await done().then((reply) => caller.resolve({ ...reply, state: this.#state }), caller.reject)
    }
    if (this.#lock.held) this.#armHandOver()
  }

  /**
   * Let the writer lock go once no batch has come for `idleMs`, so another dsh process can save too. One timer at a
   * time, pushed back when it fires early, so a busy store pays one clock read per batch.
   */
  #armHandOver(): void {
    this.#lastBatch = Date.now()
    if (this.#idle !== undefined) return
    const check = (): void => {
      const rest = this.#lastBatch + this.#timing.idleMs - Date.now()
      if (rest > 0) {
        this.#idle = setTimeout(check, rest).unref()
        return
      }
      this.#idle = undefined
      // A batch in flight arms again when it ends.
      if (this.#draining === undefined && this.#lock.held && !this.#closing) this.#handingOver = this.#handOver()
    }
    this.#idle = setTimeout(check, this.#timing.idleMs).unref()
  }

  async #handOver(): Promise<void> {
    try {
      // The files as this process leaves them: its next claim reloads only if another process wrote after this.
      this.#seen = await this.#disk.fingerprint()
      await this.#lock.release()
    } catch (e) {
      this.#log.warn(`agent-profiles: letting the writer lock go failed: ${errorText(e)}`)
    } finally {
      this.#handingOver = undefined
    }
  }

  /** Apply `batch` in order to the current state without settling anyone; `refusal` refuses every change. */
  #draft(batch: Waiting[], refusal?: StoreError): Draft {
    let draft = this.#state
    let changes = 0
    const outcomes: Outcome[] = []
    for (const caller of batch) {
      try {
        const cmd = record(caller.cmd, 'command')
        if (cmd.op === 'turn.record') {
          const turn = this.#turnOf(draft, cmd)
          outcomes.push({ caller, done: () => this.#recordTurn(turn) })
          continue
        }
        const result = applyCommand(draft, cmd, { now: Date.now(), newId, recordHistory: this.#recordHistory })
        const reply = { ...result.extra, notice: result.notice }
        if (!result.changed && draft === this.#state) {
          // Nothing before it in this batch changed anything: its answer does not hang on the write.
          outcomes.push({ caller, now: { ...reply, state: draft } })
          continue
        }
        if (result.changed && this.#blocked !== undefined) throw new StoreError('io', `not saved: ${this.#blocked}`)
        if (result.changed && refusal !== undefined) throw refusal
        if (result.changed) {
          draft = result.state
          changes++
        }
        outcomes.push({ caller, done: async () => reply })
      } catch (e) {
        outcomes.push({ caller, error: e })
      }
    }
    return { state: draft, changes, outcomes }
  }

  /**
   * Take the writer lock; with `wait`, give another live dsh process that holds it up to `waitMs` to let it go. When it
   * does not, answers the refusal for this batch's changes. Once taken, when the data files are not as this store last
   * saw them (another process wrote meanwhile), loads them again, so this process's change applies to that data
   * instead of overwriting it.
   */
  async #claim(wait: boolean): Promise<StoreError | undefined> {
    try {
      let holder = await this.#lock.acquire()
      for (const until = Date.now() + (wait ? this.#timing.waitMs : 0); holder !== undefined && Date.now() < until;) {
        await sleep(LOCK_POLL_MS)
        holder = await this.#lock.acquire()
      }
      if (holder !== undefined) return new StoreError('locked', `not saved: ${heldBy(holder, this.#lock.path)}`)
      const now = await this.#disk.fingerprint()
      if (now !== this.#seen) {
        const disk = new Disk(this.#disk.layout)
        const loaded = await disk.load(Date.now())
        await this.#disk.close()
        this.#disk = disk
        this.#seen = now
        this.#adopt(loaded)
        this.#log.warn(`another dsh process changed the profile data; reloaded it at revision ${loaded.revision}`)
        this.#notify(this.#state)
      }
      await this.#disk.tidy()
      return undefined
    } catch (e) {
      const message = `not saved, nothing changed: the data could not be locked or reloaded (${errorText(e)})`
      this.#fail(message)
      await this.#lock.release()
      return new StoreError('io', message)
    }
  }

  /** Validate a `turn.record` against the draft it will follow. */
  #turnOf(draft: State, cmd: Record<string, unknown>): { key: string; turn: number; profile: Profile } {
    onlyKeys(cmd, ['op', 'sessionId', 'turn', 'profileId'], 'command')
    const key = sessionIdOf(cmd.sessionId, 'sessionId')
    const turn = cmd.turn
    if (typeof turn !== 'number' || !Number.isSafeInteger(turn) || turn < 0) throw invalid('turn', 'must be a non-negative integer')
    const profile = findProfile(draft, cmd.profileId, 'profileId')
    if (this.#offline) throw new StoreError('io', `turn not recorded: ${this.#blocked}`)
    return { key, turn, profile }
  }

  /** Append a validated turn to the ledger (its own file: the data file is not rewritten). */
  async #recordTurn({ key, turn, profile }: { key: string; turn: number; profile: Profile }): Promise<Reply> {
    try {
      await this.#ledger.record(key, turn, profile.id, async () => this.#lock.held || (await this.#claim(false)) === undefined)
    } catch (e) {
      throw new StoreError('io', `turn not recorded: ${errorText(e)}`)
    }
    return { notice: notice('turn.recorded', `第 ${turn} 轮由「${profile.name}」回答`, { turn, name: profile.name }) }
  }

  /** Each subscriber is isolated: one that throws (or rejects) is logged and the others still hear the change. */
  #notify(state: State): void {
    for (const fn of [...this.#listeners]) {
      try {
        const r: unknown = fn(state)
        if (r instanceof Promise) r.catch((e: unknown) => this.#log.error(`change subscriber failed: ${errorText(e)}`))
      } catch (e) {
        this.#log.error(`change subscriber failed: ${errorText(e)}`)
      }
    }
  }

  onChange(fn: (state: State) => void): () => void {
    // A wrapper per call, so subscribing one function twice gives two subscriptions that unsubscribe separately.
    const own = (s: State) => fn(s)
    this.#listeners.add(own)
    return () => void this.#listeners.delete(own)
  }

  effective(sessionId?: string): { profile: Profile; pinned: boolean; setting?: SessionSetting } {
    const state = this.#state
    const setting = sessionId === undefined ? undefined : state.sessions[sessionId]
    const pin = setting?.profileId == null ? undefined : state.profiles.find((p) => p.id === setting.profileId)
    const profile = pin ?? state.profiles.find((p) => p.id === state.activeId) ?? state.profiles[0]!
    return setting === undefined ? { profile, pinned: pin !== undefined } : { profile, pinned: pin !== undefined, setting }
  }

  exportEnvelope(ids?: string[]): Envelope {
    return exportEnvelope(this.#state, ids, Date.now())
  }

  avatarHash(profileId: string): string {
    const p = this.#state.profiles.find((x) => x.id === profileId)
    return p === undefined || p.avatar === '' ? '' : this.#disk.avatarOf(p).hash
  }

  turnsOf(sessionId: string): Record<number, string> {
    return this.#ledger.turnsOf(sessionId)
  }

  async close(): Promise<void> {
    this.#closing = true
    clearTimeout(this.#idle)
    await this.#draining
    await this.#handingOver
    this.#listeners.clear()
    await this.#disk.close()
    await this.#lock.release()
  }
}

/**
 * Open the store on `options.file`. Never throws: a missing file starts on the factory profiles; an unreadable,
 * corrupt or wrongly-typed one is kept aside and reported through `lastError`.
 */
export async function openStore(options: StoreOptions): Promise<ProfileStore> {
  const log = options?.log ?? silent
  const file = typeof options?.file === 'string' ? options.file.trim() : ''
  const layout = layoutOf(resolve(file || 'profiles.json'))
  const ledger = new TurnLedger(layout.ledgerFile)
  const lock = new WriterLock(layout.lockFile)
  const timing = { idleMs: options?.lockIdleMs ?? LOCK_IDLE_MS, waitMs: options?.lockWaitMs ?? LOCK_WAIT_MS }
  let disk = new Disk(layout)
  const offline = (why: string) => {
    const message = `${why}; started on the factory profiles and nothing is saved until the plugin restarts`
    const loaded = { state: factoryState(Date.now()), revision: 0, problem: { message }, blocked: true }
    return new Store({ disk, ledger, loaded, seen: '', lock, timing }, log, true)
  }
  if (file === '') return offline('no data file was configured')
  // Only the process that saves may move an unusable file aside (taking the lock to do it); a lock that cannot even be
  // written does not stop the attempt, which then fails on its own and is reported.
  const mayRepair = async () => (await lock.acquire().catch(() => undefined)) === undefined
  let loaded: Loaded
  try {
    for (let attempt = 1; ; attempt++) {
      loaded = await disk.load(Date.now(), mayRepair)
      if (loaded.busy !== true || attempt === LOAD_ATTEMPTS) break
      // Most likely a write caught half way: read again.
      await sleep(LOAD_RETRY_MS)
      disk = new Disk(layout)
    }
  } catch (e) {
    return offline(`the data could not be loaded (${errorText(e)})`)
  }
  // What a crash left (unreferenced avatar files, temp files) is removed by the process that saves: with its first
  // save, or now when a repair already made this one the saver. To a process that only reads, another one's write in
  // flight (an avatar written before its log line, a temp file before its rename) looks the same.
  if (lock.held) await disk.tidy()
  const { skipped } = await ledger.load().catch(() => ({ skipped: -1 }))
  if (skipped !== 0) log.warn(`turn ledger: ${skipped < 0 ? 'unreadable' : `${skipped} damaged line(s) skipped`}`)
  return new Store({ disk, ledger, loaded, seen: await disk.fingerprint(), lock, timing, recordHistory: options?.recordHistory !== false }, log)
}
