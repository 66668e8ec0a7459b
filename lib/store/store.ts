/**
 * The profile store: the one owner of the plugin's data. Owns the live state snapshot, the single queue every
 * mutation goes through, the disk-first group commit, change notification, and keeping up with what other dsh
 * processes on the same data commit. It never renders prompt text and never talks HTTP; the operations themselves
 * live in lib/commands/, the database in persist.ts, the avatar files in avatars.ts, the import of older files in migrate.ts.
 *
 * Group commit: commands sent while a batch is being written wait; the next batch applies all of them in order to a
 * draft and commits the draft as ONE database transaction (one fsync). Each caller still gets its own notice and
 * extras; a refused command is refused alone (the draft skips it); a failed commit fails the whole batch and leaves
 * memory and disk at the previous state. Why: with one fsync per command, each of 16 concurrent writers waited out
 * 15 others'.
 *
 * Several processes: a read that matters (the state, a conversation's profile, a command) first asks the database
 * whether another connection committed (`PRAGMA data_version`, about a microsecond) and, when one did, reloads the
 * rows it wrote. A batch applies to what the database holds inside its write transaction, so no process ever
 * overwrites another's save, and one waits for another's transaction (up to 10 s, trying again on the event loop, so
 * that its pages and turns go on meanwhile) instead of being refused.
 */
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { existsSync, rmSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import type { Envelope, Profile, SessionSetting, State, UsedMemory } from '../state/model.ts'
import { factoryState } from '../state/defaults.ts'
import { applyCommand, forgetSessions } from '../commands/dispatch.ts'
import { findProfile, notice } from '../commands/kit.ts'
import type { BackupInfo, Command, DataHealth, Notice, ReadOnlyData, RetiredProfile, Salvage } from '../shared/contract.ts'
import { backupFile, beforeRestoreName, dayOf, hasBackup, listBackups, makeBackup, restoreAvatars } from './backups.ts'
import { AvatarFiles } from './avatars.ts'
import { hasLegacyFiles, migrate, retireLegacyFiles } from './migrate.ts'
import { BUSY_TIMEOUT_MS, Database, DatabaseProblem, EMPTY, layoutOf, profileChanges, quarantine, type Layout, type Loaded, type Turn } from './persist.ts'
import { copySurvivors, readSurvivors } from './salvage.ts'
import { isSessions } from '../state/sessions.ts'
import type { MemoryIndex } from './memory-index.ts'
import { exportEnvelope } from '../commands/transfer.ts'
import { StoreError, record } from '../validate/state.ts'
import { parseCommand } from '../validate/command.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { errorText } from '../shared/errors.ts'

export { StoreError } from '../validate/state.ts'
export type { StoreErrorCode } from '../validate/state.ts'
export type { Command, MemoryInput, MemoryItemInput, MemoryTarget, Notice, ProfileInput } from '../shared/contract.ts'

/** What every successful command returns: the new state, a notice, and the operation's own extra fields. */
export interface CommandResult {
  state: State
  notice: Notice
  [extra: string]: unknown
}

/** Where the store keeps its data and where it reports trouble. */
export interface StoreOptions {
  /** The database (`<stem>.sqlite`), or the `<stem>.json` data file of the layout before it: both mean the same data. */
  file: string
  log?: { warn(msg: string): void; error(msg: string): void }
  /** False leaves memory writes out of the history; only bench/history.bench.ts sets it, to measure what it costs. */
  recordHistory?: boolean
}

/** The store's public face. */
export interface ProfileStore {
  /** The database file (absolute). */
  readonly file: string
  /** Deep-frozen snapshot; replaced, never mutated, on each successful change (here or in another process). */
  readonly state: State
  /** +1 per successful change; persisted, so it keeps counting across restarts and processes. */
  readonly revision: number
  /** The last load or write problem, for the UI. */
  readonly lastError: { message: string; at: number; keptAs?: string } | null
  /**
   * Why nothing can be saved, when nothing can: a newer version of the plugin made the data (`newer`: every command
   * that would change something is refused with code `read-only`; reading goes on), or its directory cannot be
   * written (`unwritable`). Background jobs ask this before they call the model.
   */
  readonly readOnly: ReadOnlyData | undefined
  /** The data's health for Diagnostics: read-only, the rows set aside, what a salvage saved. */
  readonly health: DataHealth
  /**
   * Run one command through the queue: disk first, memory after. Throws StoreError; then nothing changed. Commands
   * that waited together are written together; each result's `state` is the state that write made durable.
   */
  command(cmd: Command): Promise<CommandResult>
  /** Called after each successful write (once per batch) and each reload of another process's saves; returns an unsubscribe function. */
  onChange(fn: (state: State) => void): () => void
  /** The profile a conversation uses now: its pin when it has one, else the global active profile. */
  effective(sessionId?: string): { profile: Profile; pinned: boolean; setting?: SessionSetting }
  /** The export envelope of `ids` (all profiles when omitted), with the user layer when `user`. Never carries conversation settings. */
  exportEnvelope(ids?: string[], options?: { user?: boolean }): Envelope
  /** Short content hash of a profile's avatar, '' when it has none. */
  avatarHash(profileId: string): string
  /** Turn number → id of the profile that answered it, for one conversation. */
  turnsOf(sessionId: string): Record<number, string>
  /** Turn number → how many memory items its requests carried, for the turns of one conversation that recorded them. */
  turnMemoryCounts(sessionId: string): Record<number, number>
  /** The memory items one turn's requests carried; undefined when none were recorded for it. */
  turnMemories(sessionId: string, turn: number): UsedMemory[] | undefined
  /** How a profile deleted since looked (name, emoji, avatar), for the turns it answered; undefined for any other id. */
  retired(profileId: string): RetiredProfile | undefined
  /** Every conversation the store holds settings or turns of. */
  conversationIds(): string[]
  /**
   * Run `query` on the memory search index after reading what other processes committed, so the index and `state`
   * agree; undefined when there is no index (no database yet) or it failed (it is rebuilt at the next write): the
   * caller then reads the items of `state` itself.
   */
  searchIndex<T>(query: (index: MemoryIndex) => T): T | undefined
  /** The backups of the data (a copy a day, the newest seven), newest first, with what each holds. */
  backups(): BackupInfo[]
  /**
   * Replace the data with backup `name`, after the current data became a backup itself (`<time>-before-restore`).
   * Waits for queued commands first. Throws StoreError: not-found (no such backup), read-only, io.
   */
  restoreBackup(name: string): Promise<void>
  /** Finish queued commands, then refuse new ones. */
  close(): Promise<void>
}

/**
 * The data file when the caller has no configured one: `$DSH_AGENT_PROFILES_DATA/profiles.sqlite` when that variable
 * is set (it names a directory, because the store keeps its avatars beside the database), else
 * `<dshHome>/agent-profiles/profiles.sqlite` (outside the plugin, so it survives uninstall and reinstall).
 */
export function defaultDataFile(dshHome: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.DSH_AGENT_PROFILES_DATA?.trim()
  return dir ? join(resolve(dir), 'profiles.sqlite') : join(dshHome, 'agent-profiles', 'profiles.sqlite')
}

const silent = { warn() {}, error() {} }

/** A store whose last batch ended less than this long ago (ms) gathers the next one over a turn of the event loop. */
const BUSY_MS = 2

/** While another process holds the write lock, a batch tries again after 1, 2, 3… ms, at most this many apart. */
const LOCK_RETRY_MS = 1
const LOCK_RETRY_MAX_MS = 20

/**
 * Freeze what is not frozen yet; unchanged subtrees of the previous snapshot already are, so this is O(change). The
 * conversation settings are an immutable map already (their settings are frozen as they go in, see sessions.ts).
 */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || isSessions(value)) return value
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

/** What a batch will do for one caller: answer now, refuse, or answer after the batch's commit. */
type Outcome =
  | { caller: Waiting; now: CommandResult }
  | { caller: Waiting; error: unknown }
  | { caller: Waiting; reply: Reply }

/** A batch applied to the current state: the state it makes, how many commands changed it, its turns, every outcome. */
interface Draft {
  state: State
  changes: number
  turns: Turn[]
  /** Conversations whose turns go (`sessions.forget`). */
  forget: string[]
  outcomes: Outcome[]
}

/** The profiles whose avatar differs between two states (their files are looked for on disk before a commit). */
function newAvatars(prev: State, next: State): Set<string> {
  const { changed, previous } = profileChanges(prev, next)
  return new Set(changed.filter((p, i) => p.avatar !== '' && previous[i]?.avatar !== p.avatar).map((p) => p.id))
}

/** Whether going from `prev` to `next` can leave an avatar file unused: a profile went away or changed its avatar. */
function dropsAvatars(prev: State, next: State): boolean {
  const { changed, previous, sameOrder } = profileChanges(prev, next)
  return !sameOrder || changed.some((p, i) => previous[i]?.avatar !== p.avatar)
}

class Store implements ProfileStore {
  readonly file: string
  readonly #layout: Layout
  readonly #avatars: AvatarFiles
  /** The database, once it exists (it is created by the first save, so that opening writes nothing). */
  #db: Database | undefined
  /** The database was just created by this process and may hold what another process saved first. */
  #created = false
  #state!: State
  #revision!: number
  #lastError: ProfileStore['lastError'] = null
  /** Set when the data must not be written (a bad database that could not be moved aside, a failed migration…). */
  #blocked: string | undefined
  /** Set when the store could not open at all: nothing at all is written, not even a turn. */
  readonly #offline: boolean
  /** Why a store that could not open the data is read-only (a newer version made it), when that is why. */
  readonly #offlineReadOnly: ReadOnlyData | undefined
  /** What the salvage of a damaged database saved, when this store started on one. */
  readonly #salvage: Salvage | undefined
  #closing = false
  /** Commands waiting for the next batch, in arrival order. */
  readonly #waiting: Waiting[] = []
  /** The batch loop while it runs (it drains `#waiting`, one batch at a time); never rejects. */
  #draining: Promise<void> | undefined
  readonly #listeners = new Set<(state: State) => void>()
  readonly #log: NonNullable<StoreOptions['log']>
  /** When the last batch ended (performance.now()), to tell a busy store from an idle one. */
  #lastCommit = -Infinity

  readonly #recordHistory: boolean
  /** The day whose backup is known to exist (checked once a day, not per write). */
  #backedUpDay: string | undefined
  /** A backup is being taken. */
  #backingUp = false

  constructor(layout: Layout, avatars: AvatarFiles, db: Database | undefined, loaded: Loaded, log: NonNullable<StoreOptions['log']>, offline = false, recordHistory = true, offlineReadOnly?: ReadOnlyData) {
    this.#recordHistory = recordHistory
    this.#offlineReadOnly = offlineReadOnly
    this.#salvage = loaded.salvage
    this.file = layout.file
    this.#layout = layout
    this.#avatars = avatars
    this.#db = db
    this.#log = log
    this.#offline = offline
    this.#take(loaded.state, loaded.revision)
    if (loaded.problem !== undefined) this.#fail(loaded.problem.message, loaded.problem.keptAs)
    if (loaded.blocked !== undefined) this.#blocked = loaded.blocked
  }

  #take(state: State, revision: number): void {
    this.#state = deepFreeze(state)
    this.#revision = revision
  }

  get state(): State {
    this.#sync()
    return this.#state
  }

  get revision(): number {
    this.#sync()
    return this.#revision
  }

  get lastError(): ProfileStore['lastError'] {
    return this.#lastError
  }

  get readOnly(): ReadOnlyData | undefined {
    this.#sync()
    return this.#offlineReadOnly ?? this.#db?.readOnly
  }

  get health(): DataHealth {
    const readOnly = this.readOnly
    return { ...(readOnly === undefined ? {} : { readOnly }), setAside: this.#db?.aside.list() ?? [], ...(this.#salvage === undefined ? {} : { salvage: this.#salvage }) }
  }

  #fail(message: string, keptAs?: string): void {
    this.#lastError = keptAs === undefined ? { message, at: Date.now() } : { message, at: Date.now(), keptAs }
    this.#log.error(message)
  }

  /**
   * Catch up with what other processes committed: reload the rows they wrote (or, when one of them created the
   * database, everything). Cheap when nothing happened: one `PRAGMA data_version`, or one stat before the database
   * exists. A fault is reported and leaves the state as it was.
   */
  #sync(): void {
    if (this.#offline || this.#closing) return
    try {
      if (this.#db === undefined) {
        if (this.#blocked !== undefined || !existsSync(this.#layout.file)) return
        const db = Database.open(this.#layout, this.#avatars, { create: false, log: (m) => this.#log.warn(m) })
        const loaded = db.loadAll(Date.now())
        this.#db = db
        if (loaded !== undefined) this.#reloaded(loaded.state, loaded.revision)
        return
      }
      if (!this.#db.changed()) return
      const fresh = this.#db.refresh(this.#state)
      if (fresh !== undefined) this.#reloaded(fresh.state, fresh.revision)
    } catch (e) {
      this.#log.warn(`agent-profiles: reading what another dsh process saved failed: ${errorText(e)}`)
    }
  }

  /** Take another process's saves as the state, and tell subscribers once the caller that noticed is done. */
  #reloaded(state: State, revision: number): void {
    this.#take(state, revision)
    queueMicrotask(() => this.#notify(this.#state))
  }

  command(cmd: Command): Promise<CommandResult> {
    if (this.#closing) return Promise.reject(new StoreError('io', 'the profile store is closed'))
    return new Promise((resolve, reject) => {
      this.#waiting.push({ cmd, resolve, reject })
      this.#draining ??= this.#drain()
    })
  }

  async #drain(): Promise<void> {
    // A store that committed a moment ago is busy: it waits one turn of the event loop, so that every command whose
    // request arrived in the same turn shares the batch (a commit takes tens of microseconds, so without the wait each
    // of 16 concurrent requests was its own batch, with its own state snapshot and reply encoding: server CPU per
    // command 0.58 ms against 0.14 batched). An idle store waits one microtask only, so that a lone command is not
    // held behind the loop's other work (the turn cost a lone HTTP command p50 2.0 ms against 0.7).
    if (performance.now() - this.#lastCommit < BUSY_MS) await new Promise((resolve) => setImmediate(resolve))
    else await undefined
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0)
      // #commit settles every caller itself; this only covers a fault it did not foresee (settling twice is a no-op).
      await this.#commit(batch).catch((e: unknown) => batch.forEach((caller) => caller.reject(e)))
      this.#lastCommit = performance.now()
    }
    this.#draining = undefined
  }

  /** Apply `batch` in order to a draft, commit the draft as one transaction, then settle every caller. Never throws. */
  async #commit(batch: Waiting[]): Promise<void> {
    const waitingSince = performance.now()
    let tries = 0
    for (;;) {
      this.#sync()
      let draft = this.#draft(batch)
      if (draft.changes === 0 && draft.turns.length === 0 && draft.forget.length === 0) return this.#settle(draft)
      let fresh = newAvatars(this.#state, draft.state)
      if (this.#avatars.needs(draft.state, fresh)) {
        try {
          await this.#avatars.ensure(draft.state, fresh)
        } catch (e) {
          return this.#failBatch(draft, e)
        }
        // Another process's save may have been read while the files were written: draft again on top of it.
        continue
      }
      let base = this.#state
      let db: Database | undefined
      try {
        db = this.#db ?? this.#create()
        if (!db.tryBegin()) {
          if (performance.now() - waitingSince > BUSY_TIMEOUT_MS) throw new StoreError('io', `another dsh process held the profile database's write lock for over ${BUSY_TIMEOUT_MS / 1000} s`)
          await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_RETRY_MAX_MS, (tries++ + 1) * LOCK_RETRY_MS)))
          // Drafted again from the top: a read meanwhile may have taken in another process's commit.
          continue
        }
        const other = this.#created ? db.loadAll(Date.now()) : db.changed() ? db.refresh(this.#state) : undefined
        if (db.readOnly !== undefined) {
          // A newer version migrated the database while this batch waited: draft again, refusing what would write.
          db.rollback()
          if (other !== undefined) this.#reloaded(other.state, other.revision)
          return this.#settle(this.#draft(batch))
        }
        if (other !== undefined) {
          // Inside the transaction no other process can commit: apply the batch to what it saved meanwhile.
          this.#reloaded(other.state, other.revision)
          draft = this.#draft(batch)
          fresh = newAvatars(this.#state, draft.state)
          if (this.#avatars.needs(draft.state, fresh)) {
            db.rollback()
            continue
          }
          if (draft.changes === 0 && draft.turns.length === 0 && draft.forget.length === 0) {
            db.rollback()
            return this.#settle(draft)
          }
        }
        base = this.#created && other === undefined ? EMPTY : this.#state
        const revision = this.#revision + draft.changes
        db.write(base, draft.state, revision, draft.turns, (p) => (p.avatar === '' ? undefined : this.#avatars.infoOf(p).file), draft.forget)
        db.commit()
        this.#created = false
        db.wrote(base, draft.state, revision)
        if (draft.changes > 0) {
          const previous = this.#state
          this.#take(draft.state, revision)
          const leftovers = await this.#avatars.collect(this.#state, dropsAvatars(previous, this.#state)).catch((e: unknown) => [errorText(e)])
          if (leftovers.length > 0) this.#log.warn(`unused avatar files not removed: ${leftovers.join('; ')}`)
          this.#notify(this.#state)
          this.#backupDue()
        }
        return this.#settle(draft)
      } catch (e) {
        db?.rollback()
        return this.#failBatch(draft, e)
      }
    }
  }

  /** Create the database for the first save (and its directory). */
  #create(): Database {
    const existed = existsSync(this.#layout.file)
    try {
      this.#db = Database.open(this.#layout, this.#avatars, { create: true, log: (m) => this.#log.warn(m) })
    } catch (e) {
      if (!existed) this.#removeCreated()
      throw e
    }
    this.#created = true
    return this.#db
  }

  /**
   * Remove the database this process created for a first save that failed, so that the disk is as it was; only while
   * it holds nothing (another process may have saved into it meanwhile).
   */
  #removeCreated(): void {
    let empty = true
    try {
      empty = this.#db?.isEmpty() ?? true
    } catch {
      // Unreadable right after its creation failed: nothing of anyone's is in it.
    }
    this.#db?.close()
    this.#db = undefined
    this.#created = false
    if (empty) for (const f of [this.#layout.file, `${this.#layout.file}-wal`, `${this.#layout.file}-shm`]) rmSync(f, { force: true })
  }

  /** Settle every caller of a batch that was committed (or needed no commit). */
  #settle(draft: Draft): void {
    for (const o of draft.outcomes) {
      if ('now' in o) o.caller.resolve(o.now)
      else if ('error' in o) o.caller.reject(o.error)
      else o.caller.resolve({ ...o.reply, state: this.#state })
    }
  }

  /** A batch whose commit failed: memory and disk stay as they were; its changes are refused with the reason. */
  #failBatch(draft: Draft, e: unknown): void {
    const message = `not saved, nothing changed: ${errorText(e)}`
    this.#fail(message)
    this.#avatars.failed()
    if (this.#created) this.#removeCreated()
    for (const o of draft.outcomes) {
      if ('now' in o) o.caller.resolve(o.now)
      else if ('error' in o) o.caller.reject(o.error)
      else o.caller.reject(new StoreError('io', message))
    }
  }

  /** Apply `batch` in order to the current state without settling anyone. */
  #draft(batch: Waiting[]): Draft {
    let draft = this.#state
    let changes = 0
    const turns: Turn[] = []
    const forget: string[] = []
    const outcomes: Outcome[] = []
    for (const caller of batch) {
      try {
        const cmd = record(caller.cmd, 'command')
        if (cmd.op === 'sessions.forget') {
          const forgotten = parseCommand(cmd) as CommandOf<'sessions.forget'>
          const result = forgetSessions(draft, forgotten)
          this.#refuseWhenBlocked('not forgotten')
          if (result.changed) {
            draft = result.state
            changes++
          }
          forget.push(...forgotten.sessionIds)
          outcomes.push({ caller, reply: { ...result.extra, notice: result.notice } })
          continue
        }
        if (cmd.op === 'turn.record') {
          const { turn, profile } = this.#turnOf(draft, parseCommand(cmd) as CommandOf<'turn.record'>)
          turns.push(turn)
          outcomes.push({ caller, reply: { notice: notice('turn.recorded', `第 ${turn.turn} 轮由「${profile.name}」回答`, { turn: turn.turn, name: profile.name }) } })
          continue
        }
        const result = applyCommand(draft, cmd, { now: Date.now(), newId, recordHistory: this.#recordHistory })
        const reply = { ...result.extra, notice: result.notice }
        if (!result.changed && draft === this.#state) {
          // Nothing before it in this batch changed anything: its answer does not hang on the commit.
          outcomes.push({ caller, now: { ...reply, state: draft } })
          continue
        }
        if (result.changed) {
          this.#refuseWhenBlocked('not saved')
          this.#db?.guardChange(draft, result.state)
          draft = result.state
          changes++
        }
        outcomes.push({ caller, reply })
      } catch (e) {
        outcomes.push({ caller, error: e })
      }
    }
    return { state: draft, changes, turns, forget, outcomes }
  }

  /** Throw the refusal of a write when nothing may be written, naming why (and saying so in lastError, once). */
  #refuseWhenBlocked(what: string): void {
    const readOnly = this.#offlineReadOnly ?? this.#db?.readOnly
    if (readOnly?.kind === 'newer') throw new StoreError('read-only', `${what}: ${readOnly.message}`)
    const why = this.#blocked ?? (readOnly === undefined ? undefined : `the data directory cannot be written (${readOnly.message})`)
    if (why === undefined) return
    const message = `${what}: ${why}`
    if (this.#lastError === null) this.#fail(message)
    throw new StoreError('io', message)
  }

  /** Validate a `turn.record` against the draft it will follow. */
  #turnOf(draft: State, cmd: CommandOf<'turn.record'>): { turn: Turn; profile: Profile } {
    const { sessionId: key, turn } = cmd
    const profile = findProfile(draft, cmd.profileId, 'profileId')
    const memories = cmd.memories
    this.#refuseWhenBlocked('turn not recorded')
    if (this.#offline) throw new StoreError('io', `turn not recorded: ${this.#blocked}`)
    return { turn: { sessionId: key, turn, profileId: profile.id, ...(memories === undefined ? {} : { memories }) }, profile }
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
    const state = this.state
    const setting = sessionId === undefined ? undefined : state.sessions.get(sessionId)
    const pin = setting?.profileId == null ? undefined : state.profiles.find((p) => p.id === setting.profileId)
    const profile = pin ?? state.profiles.find((p) => p.id === state.activeId) ?? state.profiles[0]!
    return setting === undefined ? { profile, pinned: pin !== undefined } : { profile, pinned: pin !== undefined, setting }
  }

  exportEnvelope(ids?: string[], options?: { user?: boolean }): Envelope {
    return exportEnvelope(this.state, ids, Date.now(), options)
  }

  avatarHash(profileId: string): string {
    const p = this.#state.profiles.find((x) => x.id === profileId)
    return p === undefined || p.avatar === '' ? '' : this.#avatars.infoOf(p).hash
  }

  retired(profileId: string): RetiredProfile | undefined {
    this.#sync()
    try {
      return this.#db?.retired(profileId)
    } catch (e) {
      this.#log.warn(`agent-profiles: reading how a deleted profile looked failed: ${errorText(e)}`)
      return undefined
    }
  }

  turnsOf(sessionId: string): Record<number, string> {
    return this.#ledgerRead(() => this.#db?.turnsOf(sessionId), {})
  }

  turnMemoryCounts(sessionId: string): Record<number, number> {
    return this.#ledgerRead(() => this.#db?.turnMemoryCounts(sessionId), {})
  }

  turnMemories(sessionId: string, turn: number): UsedMemory[] | undefined {
    return this.#ledgerRead(() => this.#db?.turnMemories(sessionId, turn), undefined)
  }

  /** A read of the turn ledger; a fault is logged and reads as `fallback`. */
  #ledgerRead<T>(read: () => T | undefined, fallback: T): T {
    this.#sync()
    try {
      return read() ?? fallback
    } catch (e) {
      this.#log.warn(`agent-profiles: reading the turn ledger failed: ${errorText(e)}`)
      return fallback
    }
  }

  searchIndex<T>(query: (index: MemoryIndex) => T): T | undefined {
    this.#sync()
    return this.#db?.searchIndex(query)
  }

  conversationIds(): string[] {
    this.#sync()
    const ids = new Set(this.#state.sessions.keys())
    try {
      for (const id of this.#db?.ledgerSessions() ?? []) ids.add(id)
    } catch (e) {
      this.#log.warn(`agent-profiles: reading the turn ledger failed: ${errorText(e)}`)
    }
    return [...ids]
  }

  /**
   * After a write: when today has no backup yet, take one once the callers have their answers (a turn of the event
   * loop later). It takes tens to hundreds of milliseconds (see bench/backup.bench.ts), so it runs once a day only;
   * a failure is logged, never thrown.
   */
  #backupDue(): void {
    const day = dayOf(Date.now())
    if (day === this.#backedUpDay || this.#backingUp) return
    if (hasBackup(this.#layout, day)) {
      this.#backedUpDay = day
      return
    }
    this.#backingUp = true
    setImmediate(() => {
      try {
        const db = this.#db
        if (db !== undefined && !this.#closing && db.readOnly === undefined) makeBackup(this.#layout, day, (path) => db.vacuumInto(path))
        this.#backedUpDay = day
      } catch (e) {
        this.#log.warn(`agent-profiles: the daily backup failed: ${errorText(e)}`)
      } finally {
        this.#backingUp = false
      }
    })
  }

  backups(): BackupInfo[] {
    return listBackups(this.#layout)
  }

  async restoreBackup(name: string): Promise<void> {
    const file = backupFile(this.#layout, name)
    if (file === undefined) throw new StoreError('not-found', `name: there is no backup "${name}"`, 'name')
    // It takes the queue's place: commands sent meanwhile wait, then apply to the restored data.
    while (this.#draining !== undefined) await this.#draining
    const restored = this.#restore(name, file)
    this.#draining = restored.catch(() => undefined).then(() => {
      this.#draining = this.#waiting.length > 0 ? this.#drain() : undefined
    })
    return restored
  }

  /** The restore itself: the current data kept as a backup, then every row replaced in one transaction, then reloaded. */
  async #restore(name: string, file: string): Promise<void> {
    this.#sync()
    this.#refuseWhenBlocked('not restored')
    const db = this.#db
    if (db === undefined) throw new StoreError('io', 'not restored: nothing was ever saved here, so there is nothing to replace')
    try {
      makeBackup(this.#layout, beforeRestoreName(Date.now()), (path) => db.vacuumInto(path))
      restoreAvatars(this.#layout, name)
      await db.restoreFrom(file, this.#revision, async () => {
        // As a batch waits: between tries on the event loop, never in SQLite's busy wait, which would stop dsh.
        const since = performance.now()
        for (let tries = 1; !db.tryBegin(); tries++) {
          if (performance.now() - since > BUSY_TIMEOUT_MS) throw new StoreError('io', `another dsh process held the profile database's write lock for over ${BUSY_TIMEOUT_MS / 1000} s`)
          await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_RETRY_MAX_MS, tries * LOCK_RETRY_MS)))
        }
      })
      const loaded = db.loadAll(Date.now())
      if (loaded !== undefined) this.#reloaded(loaded.state, loaded.revision)
    } catch (e) {
      if (e instanceof StoreError) throw e
      const message = `not restored, nothing changed: ${errorText(e)}`
      this.#fail(message)
      throw new StoreError('io', message)
    }
  }

  async close(): Promise<void> {
    this.#closing = true
    await this.#draining
    this.#listeners.clear()
    this.#db?.close()
    this.#db = undefined
  }
}

/**
 * A new database at `layout.file` holding the rows read from the damaged one (kept aside as `keptAs`), opened and
 * loaded; undefined (and the new file removed) when that fails, so that the store starts as if nothing was saved.
 */
function salvageInto(layout: Layout, avatars: AvatarFiles, survivors: NonNullable<ReturnType<typeof readSurvivors>>, keptAs: string, log: NonNullable<StoreOptions['log']>): { db: Database; loaded: Loaded; salvage: Salvage } | undefined {
  let db: Database | undefined
  try {
    Database.open(layout, avatars, { create: true }).close()
    const salvage = copySurvivors(layout.file, survivors, keptAs)
    db = Database.open(layout, avatars, { create: false })
    const loaded = db.loadAll(Date.now())
    if (loaded === undefined || loaded.state.profiles.length === 0) throw new Error('no profile could be read')
    return { db, loaded, salvage }
  } catch (e) {
    db?.close()
    log.warn(`agent-profiles: the rows read from ${basename(keptAs)} could not be copied into a new database: ${errorText(e)}`)
    for (const f of [layout.file, `${layout.file}-wal`, `${layout.file}-shm`]) rmSync(f, { force: true })
    return undefined
  }
}

/**
 * Open the store on `options.file`. Never throws: no database yet starts on the factory profiles (or on the data of
 * the layout before the database, imported now); a database of an older schema is migrated; one of a newer schema is
 * opened read-only (or, when this version cannot read it, not at all); rows this version's rules refuse are set
 * aside one by one; only a database SQLite cannot use is kept aside, reported through `lastError`.
 */
export async function openStore(options: StoreOptions): Promise<ProfileStore> {
  const log = options?.log ?? silent
  const file = typeof options?.file === 'string' ? options.file.trim() : ''
  const layout = layoutOf(resolve(file || 'profiles.sqlite'))
  const avatars = new AvatarFiles(layout.avatarDir)
  const now = Date.now()
  const offline = (why: string) => {
    const message = `${why}; started on the factory profiles and nothing is saved until the plugin restarts`
    return new Store(layout, avatars, undefined, { state: factoryState(now), revision: 0, problem: { message }, blocked: message }, log, true)
  }
  if (file === '') return offline('no data file was configured')
  let db: Database | undefined
  try {
    let migrated: Loaded | undefined
    if (!existsSync(layout.file)) {
      if (!hasLegacyFiles(layout)) return new Store(layout, avatars, undefined, { state: factoryState(now), revision: 0 }, log, false, options.recordHistory !== false)
      migrated = await migrate(layout, avatars, now)
      if (migrated.blocked !== undefined) return new Store(layout, avatars, undefined, migrated, log)
    }
    if (!statSync(layout.file).isFile()) throw new DatabaseProblem(`${basename(layout.file)} could not be read (it is not a file)`, true)
    db = Database.open(layout, avatars, { create: false, log: (m) => log.warn(m) })
    let loaded: Loaded = db.loadAll(now) ?? { state: factoryState(now), revision: 0 }
    if (loaded.state.profiles.length === 0) {
      // Every profile row is set aside: they stay as they are, and nothing is written beside them.
      const message = 'no profile in the database can be read by this version of the plugin (see the rows set aside); started on the factory profiles and nothing is saved'
      loaded = { state: factoryState(now), revision: loaded.revision, problem: { message }, blocked: message }
    }
    if (db.readOnly?.kind === 'newer') loaded = { ...loaded, problem: { message: db.readOnly.message } }
    // What the import found wrong with the old files (an unreadable avatar, a damaged snapshot kept aside) is reported.
    if (migrated?.problem !== undefined) loaded = { ...loaded, problem: migrated.problem }
    // A crash between the import and renaming the old files leaves them: rename them now.
    if (db.readOnly === undefined && db.metaValue('migratedFrom') !== undefined && hasLegacyFiles(layout)) retireLegacyFiles(layout, now)
    return new Store(layout, avatars, db, loaded, log, false, options.recordHistory !== false)
  } catch (e) {
    db?.close()
    if (!(e instanceof DatabaseProblem)) return offline(`the data could not be loaded (${errorText(e)})`)
    if (e.newer) {
      // Never moved, never beside a fresh database: this process runs without the user's data and says why.
      const message = `${e.message}; running without it (the factory profiles are shown, nothing is saved)`
      const loaded = { state: factoryState(now), revision: 0, problem: { message }, blocked: message }
      return new Store(layout, avatars, undefined, loaded, log, true, false, { kind: 'newer', message: e.message, unreadable: true })
    }
    if (!e.damaged) return offline(e.message)
    // Read before it moves: in place, its -wal is still beside it and read with it.
    const survivors = readSurvivors(layout.file)
    const kept = quarantine(layout, now)
    if (kept === undefined) {
      const message = `${e.message}; started on the factory profiles; the database could not be moved aside, so nothing is saved until it is fixed or removed`
      return new Store(layout, avatars, undefined, { state: factoryState(now), revision: 0, problem: { message }, blocked: message }, log)
    }
    if (survivors !== undefined && survivors.saved > 0) {
      const salvaged = salvageInto(layout, avatars, survivors, kept, log)
      if (salvaged !== undefined) {
        const { salvage } = salvaged
        const lost = `${salvage.lost}${salvage.lostUncounted === true ? ' or more' : ''} lost`
        const message = `${e.message}; the database was kept as ${basename(kept)}, and ${salvage.saved} rows that could still be read were copied into a new one (${lost})`
        salvaged.loaded = { ...salvaged.loaded, problem: { message, keptAs: kept }, salvage }
        return new Store(layout, avatars, salvaged.db, salvaged.loaded, log, false, options.recordHistory !== false)
      }
    }
    const message = `${e.message}; started on the factory profiles; the database was kept as ${basename(kept)}`
    return new Store(layout, avatars, undefined, { state: factoryState(now), revision: 0, problem: { message, keptAs: kept } }, log)
  }
}
