/**
 * The live store: the one snapshot of the data this process holds, kept in step with the database and with what
 * other dsh processes on the same data commit, and the commit of each batch the queue hands it (disk first, memory
 * after). Its parts each have a file: the queue (batch-queue.ts), the draft of a batch (draft.ts), the reads
 * (reads.ts), the subscribers (listeners.ts), the daily backup (daily-backup.ts), the wait for the write lock
 * (write-lock.ts). It never renders prompt text and never talks HTTP; the operations themselves live in
 * lib/commands/, the database in db/.
 *
 * A batch's commit: the commands that waited together are applied in order to a draft, and the draft is committed
 * as ONE database transaction (one fsync). Each caller still gets its own notice and extras; a refused command is
 * refused alone (the draft skips it); a failed commit fails the whole batch and leaves memory and disk at the
 * previous state.
 *
 * Several processes: a read that matters (the state, a conversation's profile, a command) first asks the database
 * whether another connection committed (`PRAGMA data_version`, about a microsecond) and, when one did, reloads the
 * rows it wrote. A batch applies to what the database holds inside its write transaction, so no process ever
 * overwrites another's save, and one waits for another's transaction (up to 10 s, trying again on the event loop, so
 * that its pages and turns go on meanwhile) instead of being refused.
 */
import { performance } from 'node:perf_hooks'
import { existsSync, rmSync } from 'node:fs'
import type { Envelope, Profile, SessionSetting, State, UsedMemory } from '../state/model.ts'
import { exportEnvelope } from '../commands/transfer.ts'
import type { BackupInfo, RetiredProfile } from '../shared/wire-replies.ts'
import type { Command } from '../shared/command-inputs.ts'
import type { DataHealth, ReadOnlyData, Salvage } from '../shared/meta.ts'
import { errorText } from '../shared/errors.ts'
import type { Log } from '../shared/log.ts'
import type { AvatarFiles } from './db/avatars.ts'
import { listBackups } from './db/backups.ts'
import type { Database } from './db/database.ts'
import { allLater } from './db/durable-later.ts'
import { databaseFiles, type Layout } from './db/layout.ts'
import type { Loaded, Problem } from './db/load.ts'
import type { MemoryIndex } from './db/memory-index.ts'
import { holdsNoTables, openDatabase } from './db/open.ts'
import { dropsAvatars, newAvatars } from './db/profile-changes.ts'
import { EMPTY } from './db/rows.ts'
import { BatchQueue } from './batch-queue.ts'
import { DailyBackup } from './daily-backup.ts'
import { backupToRestore, restoreRows } from './restore-backup.ts'
import type { EarlyCreate } from './early-create.ts'
import { draftBatch, isEmptyDraft, refuseBatch, settle, type Draft, type DraftRules, type Waiting } from './draft.ts'
import { Listeners } from './listeners.ts'
import { avatarHashOf, conversationIdsOf, effectiveProfile, ledgerRead, retiredOf } from './reads.ts'
import type { CommandResult, ProfileStore, ReadImportCommand } from './store.ts'
import { lockPause } from './write-lock.ts'
import { BackgroundCheck } from './db/background-check.ts'
import { damagedRefusal, isDamage } from './db/damage.ts'
import { indexInBackground, type IndexJob } from './index-job.ts'
import { fillInBackground, upgradeOf, type FillJob } from './fill-job.ts'
import { deepFreeze } from './deep-freeze.ts'
import { storedValuesAt } from './stored-values.ts'
import { StoreError } from '../shared/errors.ts'
import { withListsOnDisk } from './lists-on-disk.ts'

/** What a Store is made of: every way of opening one passes all of it, so none can drop what the caller asked. */
export interface StoreParts {
  layout: Layout
  avatars: AvatarFiles
  /** The database, when there is one yet (the first save creates it). */
  db?: Database
  /** What the store starts from. */
  loaded: Loaded
  log: Log
  /** The caller's `recordHistory` (store.ts's StoreOptions), resolved. */
  recordHistory: boolean
  /** Set when the store could not open the data at all: nothing is written, not even a turn; `readOnly` when a newer version made it. */
  offline?: { readOnly?: ReadOnlyData }
  /** The creation of the database, started on a worker thread before the first save (a fresh home of the plugin). */
  early?: EarlyCreate
}

/** The store of one data file in this process. */
export class Store implements ProfileStore {
  readonly file: string
  readonly #layout: Layout
  readonly #avatars: AvatarFiles
  /** The database, once it exists (it is created by the first save, so that opening writes nothing). */
  #db: Database | undefined
  /**
   * The database holds nothing this process saved: it was just created (here, or on a worker thread, or by another
   * process that has saved nothing yet), so the first save writes the whole state, and may find what another process
   * saved first.
   */
  #created = false
  readonly #early: EarlyCreate | undefined
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
  /** The database's integrity check in the background, and what it found. */
  readonly #check: BackgroundCheck
  /** The search index's upkeep in the background: its re-terming, and its merge after a bulk write (index-job.ts). */
  #index: IndexJob | undefined
  /** The background fills of the item columns and of the rows' text keys (fill-job.ts). */
  #kinds: FillJob | undefined
  #textKeys: FillJob | undefined
  readonly #log: Log
  readonly #queue = new BatchQueue({ commit: (batch) => this.#commit(batch) })
  readonly #listeners: Listeners
  /**
   * Who hears a change of the data's health that no saved change made: the integrity check's start and end, the
   * background upgrade's start, end or stop.
   */
  readonly #healthListeners: Listeners<undefined>
  readonly #backup: DailyBackup
  readonly #rules: DraftRules

  constructor(parts: StoreParts) {
    const { layout, loaded } = parts
    this.#offline = parts.offline !== undefined
    this.#offlineReadOnly = parts.offline?.readOnly
    this.#salvage = loaded.salvage
    this.file = layout.file
    this.#layout = layout
    this.#avatars = parts.avatars
    this.#early = parts.early
    this.#log = parts.log
    this.#healthListeners = new Listeners({ error: (m) => this.#log.error(m) })
    this.#check = new BackgroundCheck(this.file, {
      damaged: (problem) => this.#fail(problem),
      notRun: (message) => this.#log.warn(`agent-profiles: store: ${message}`),
      changed: () => this.#healthListeners.notify(undefined),
    })
    this.#db = parts.db === undefined ? undefined : this.#watch(parts.db)
    this.#listeners = new Listeners({ error: (m) => this.#log.error(m) })
    this.#backup = new DailyBackup({
      layout,
      database: () => (this.#closing ? undefined : this.#db),
      failed: (day, e) => this.#backupFailed(day, e),
    })
    this.#rules = {
      recordHistory: parts.recordHistory,
      refuseWrite: (what) => this.#refuseWhenBlocked(what),
      refuseTurn: () => {
        this.#refuseWhenBlocked('turn not recorded')
        if (this.#offline) throw new StoreError('io', `turn not recorded: ${this.#blocked}`)
      },
      guard: (prev, next) => this.#db?.guardChange(prev, next),
    }
    this.#take(loaded.state, loaded.revision)
    if (loaded.problem !== undefined) this.#fail(loaded.problem)
    if (loaded.blocked !== undefined) this.#blocked = loaded.blocked
  }

  #take(state: State, revision: number): void {
    this.#state = deepFreeze(state, this.#state)
    this.#revision = revision
    // A write of many items (this process's, a restore's) left the index's segments to merge: merged off the turn.
    this.#index?.mergeIfDue()
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
    return {
      ...(readOnly === undefined ? {} : { readOnly }),
      setAside: this.#db?.aside.list() ?? [],
      ...(this.#salvage === undefined ? {} : { salvage: this.#salvage }),
      ...(this.#check.state === undefined ? {} : { check: this.#check.state }),
      ...upgradeOf(this.#kinds?.state(), this.#textKeys?.state()),
    }
  }

  #fail({ message, why, keptAs }: Problem): void {
    this.#lastError = keptAs === undefined ? { message, at: Date.now(), why } : { message, at: Date.now(), keptAs, why }
    // The message is the log's English (the page words `why`); the log line says whose it is.
    this.#log.error(`agent-profiles: store: ${message}`)
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
        if (this.#blocked !== undefined || this.#early?.busy === true || !existsSync(this.#layout.file)) return
        const db = this.#watch(
          openDatabase({ layout: this.#layout, avatars: this.#avatars, create: false, log: (m) => this.#log.warn(m) }),
        )
        const loaded = db.loadAll(Date.now(), storedValuesAt)
        this.#db = db
        if (loaded !== undefined) this.#reloaded(loaded.state, loaded.revision)
        else this.#created = true
        return
      }
      if (!this.#db.changed()) return
      const fresh = this.#db.refresh(this.#state, storedValuesAt)
      if (fresh !== undefined) this.#reloaded(fresh.state, fresh.revision)
    } catch (e) {
      this.#readFailed(`agent-profiles: reading what another dsh process saved failed: ${errorText(e)}`, e)
    }
  }

  /** Take another process's saves as the state, and tell subscribers once the caller that noticed is done. */
  #reloaded(state: State, revision: number): void {
    this.#take(state, revision)
    queueMicrotask(() => this.#listeners.notify(this.#state))
  }

  command<C extends Command | ReadImportCommand>(cmd: C): Promise<CommandResult<C['op']>> {
    if (this.#closing) return Promise.reject(new StoreError('io', 'the profile store is closed'))
    // The one place a reply gets its op's type: the operation named by `cmd.op` made its fields (lib/commands).
    return this.#queue.push(cmd) as Promise<CommandResult<C['op']>>
  }

  #draft(batch: Waiting[]): Draft {
    return draftBatch(this.#state, batch, this.#rules)
  }

  /** Apply `batch` in order to a draft, commit the draft as one transaction, then settle every caller. Never throws. */
  async #commit(batch: Waiting[]): Promise<void> {
    const waitingSince = performance.now()
    let tries = 0
    for (;;) {
      this.#sync()
      let draft = this.#draft(batch)
      if (isEmptyDraft(draft)) return settle(draft, this.#state)
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
      // Made on a worker thread meanwhile (or not, when that failed): read from the top, then saved into.
      if (this.#db === undefined && (await this.#early?.wait())) continue
      let db: Database | undefined
      try {
        db = this.#db ?? this.#create()
        // An own import's batch alone does not wait for the disk here; a batch with anything else does.
        if (!db.tryBegin(allLater(batch))) {
          await lockPause(waitingSince, ++tries)
          // Drafted again from the top: a read meanwhile may have taken in another process's commit.
          continue
        }
        const other = this.#created
          ? db.loadAll(Date.now(), storedValuesAt)
          : db.changed()
            ? db.refresh(this.#state, storedValuesAt)
            : undefined
        if (db.readOnly !== undefined) {
          // A newer version migrated the database while this batch waited: draft again, refusing what would write.
          db.rollback()
          if (other !== undefined) this.#reloaded(other.state, other.revision)
          return settle(this.#draft(batch), this.#state)
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
          if (isEmptyDraft(draft)) {
            db.rollback()
            return settle(draft, this.#state)
          }
        }
        const base = this.#created && other === undefined ? EMPTY : this.#state
        const revision = this.#revision + draft.changes
        const avatarFile = (p: Profile) => (p.avatar === '' ? undefined : this.#avatars.infoOf(p).file)
        db.write({ prev: base, next: draft.state, revision, turns: draft.turns, forget: draft.forget, avatarFile })
        db.commit()
        this.#created = false
        db.wrote({ prev: base, next: draft.state, revision })
        if (draft.changes > 0) {
          const previous = this.#state
          this.#take(withListsOnDisk(draft.state, draft.onDisk, db), revision)
          const leftovers = await this.#avatars
            .collect(this.#state, dropsAvatars(previous, this.#state))
            .catch((e: unknown) => [errorText(e)])
          if (leftovers.length > 0)
            this.#log.warn(`agent-profiles: store: unused avatar files not removed: ${leftovers.join('; ')}`)
          this.#listeners.notify(this.#state)
          this.#backup.due()
        }
        return settle(draft, this.#state)
      } catch (e) {
        db?.rollback()
        return this.#failBatch(draft, e)
      }
    }
  }

  /**
   * Have the reads of `db`'s rows that meet a damaged page mark the file for the next open's full check and start the
   * check now (background-check.ts). A file a newer version made is never marked: it is never set aside either.
   */
  #watch(db: Database): Database {
    db.whenDamaged((detail) => {
      if (db.readOnly === undefined) this.#check.readDamaged(detail)
    })
    return db
  }

  /** Create the database for the first save (and its directory). */
  #create(): Database {
    const existed = existsSync(this.#layout.file)
    try {
      this.#db = this.#watch(
        openDatabase({ layout: this.#layout, avatars: this.#avatars, create: true, log: (m) => this.#log.warn(m) }),
      )
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
      // When this process's open failed, the file may be another process's that made it first: looked at, not assumed.
      empty = this.#db?.isEmpty() ?? holdsNoTables(this.#layout.file)
    } catch {
      // Unreadable right after its creation failed: nothing of anyone's is in it.
    }
    this.#db?.close()
    this.#db = undefined
    this.#created = false
    if (empty) for (const f of databaseFiles(this.#layout)) rmSync(f, { force: true })
  }

  /** A batch whose commit failed: memory and disk stay as they were; its changes are refused with the reason. */
  #failBatch(draft: Draft, e: unknown): void {
    const message = `not saved, nothing changed: ${errorText(e)}`
    this.#fail({ message, why: { key: 'not-saved', detail: errorText(e) } })
    this.#avatars.failed()
    // A write that met a damaged page it never read (an index page, the page a new row goes onto) is that damage, as
    // a read meeting it is: the file is marked and checked now, and the commands are refused the same way.
    const damaged = this.#noticeDamage(e)
    if (this.#created) this.#removeCreated()
    refuseBatch(draft, message, damaged ? () => damagedRefusal(this.file, 'the change', e, 'saved') : undefined)
  }

  /** A read that failed and answers its fallback: said in the log, and a damaged page noticed. */
  readonly #readFailed = (message: string, e: unknown): void => {
    this.#log.warn(message)
    this.#noticeDamage(e)
  }

  /** When `e` is SQLite meeting a damaged page of a file this version may write: mark it, check it now; whether so. */
  #noticeDamage(e: unknown): boolean {
    const damaged = isDamage(e) && this.#db !== undefined && this.#db.readOnly === undefined
    if (damaged) this.#check.readDamaged(errorText(e))
    return damaged
  }

  /**
   * The daily backup of `day` failed. When its copy met a damaged page, that is the damage, and the integrity check is
   * what says so: the file is marked and checked now (or already was), and the check's `damaged` stays the store's last
   * error, whichever of the two ends first; "the backup failed" in its place would hide from the user that the file is
   * kept aside and salvaged at the next start, the one thing they need to know. Any other failure (a full disk) is
   * the day's missing backup.
   */
  #backupFailed(day: string, e: unknown): void {
    const message = `the daily backup of ${day} failed, the backups before it are kept: ${errorText(e)}`
    if (this.#noticeDamage(e)) this.#log.warn(`agent-profiles: store: ${message}`)
    else this.#fail({ message, why: { key: 'backup-failed', params: { day }, detail: errorText(e) } })
  }

  /** Throw the refusal of a write when nothing may be written, naming why (and saying so in lastError, once). */
  #refuseWhenBlocked(what: string): void {
    const readOnly = this.#offlineReadOnly ?? this.#db?.readOnly
    if (readOnly?.kind === 'newer') throw new StoreError('read-only', `${what}: ${readOnly.message}`)
    const why = this.#blocked ?? (readOnly && `the data directory cannot be written (${readOnly.message})`)
    if (why === undefined) return
    const message = `${what}: ${why}`
    // A store that starts blocked has said why in lastError already; what is left is a directory it cannot write.
    if (this.#lastError === null && this.#blocked === undefined && readOnly !== undefined)
      this.#fail({ message, why: { key: 'unwritable', detail: readOnly.message } })
    // A directory the system will not let this user write is no fault of the request, nor of the data: `unwritable`.
    throw new StoreError(this.#blocked === undefined ? 'unwritable' : 'io', message)
  }

  onChange(fn: (state: State) => void): () => void {
    return this.#listeners.add(fn)
  }

  onHealth(fn: () => void): () => void {
    return this.#healthListeners.add(fn)
  }

  effective(sessionId?: string): { profile: Profile; pinned: boolean; setting?: SessionSetting } {
    return effectiveProfile(this.state, sessionId)
  }

  exportEnvelope(ids?: string[], options?: { user?: boolean }): Envelope {
    return exportEnvelope(this.state, ids, Date.now(), options)
  }

  avatarHash(profileId: string): string {
    return avatarHashOf(this.#state, this.#avatars, profileId)
  }

  retired(profileId: string): RetiredProfile | undefined {
    this.#sync()
    return retiredOf(this.#db, profileId, this.#readFailed)
  }

  turnsOf(sessionId: string): Record<number, string> {
    this.#sync()
    return ledgerRead(() => this.#db?.ledger.turnsOf(sessionId), {}, this.#readFailed)
  }

  turnMemoryCounts(sessionId: string): Record<number, number> {
    this.#sync()
    return ledgerRead(() => this.#db?.ledger.memoryCounts(sessionId), {}, this.#readFailed)
  }

  turnMemories(sessionId: string, turn: number): UsedMemory[] | undefined {
    this.#sync()
    return ledgerRead(() => this.#db?.ledger.memories(sessionId, turn), undefined, this.#readFailed)
  }

  searchIndex<T>(query: (index: MemoryIndex) => T): T | undefined {
    this.#sync()
    return this.#db?.searchIndex(query)
  }

  conversationIds(): string[] {
    this.#sync()
    return conversationIdsOf(this.#state, this.#db, this.#readFailed)
  }

  backups(): BackupInfo[] {
    return listBackups(this.#layout)
  }

  async restoreBackup(name: string): Promise<void> {
    const file = backupToRestore(this.#layout, name)
    // It takes the queue's place: commands sent meanwhile wait, then apply to the restored data.
    return this.#queue.exclusive(() => this.#restore(name, file))
  }

  /** The restore (restore-backup.ts), then the restored data taken; a restore that fails changes nothing. */
  async #restore(name: string, file: string): Promise<void> {
    this.#sync()
    this.#refuseWhenBlocked('not restored')
    const db = this.#db
    if (db === undefined)
      throw new StoreError('io', 'not restored: nothing was ever saved here, so there is nothing to replace')
    try {
      const loaded = await restoreRows(this.#layout, db, { name, file }, this.#revision)
      if (loaded !== undefined) this.#reloaded(loaded.state, loaded.revision)
    } catch (e) {
      if (e instanceof StoreError) throw e
      const message = `not restored, nothing changed: ${errorText(e)}`
      this.#fail({ message, why: { key: 'not-restored', detail: errorText(e) } })
      throw new StoreError('io', message)
    }
  }

  /**
   * Run the database's full integrity check in the background (background-check.ts), once, after the start: damage
   * it finds is said in lastError and the log, and the next start keeps the file aside and salvages its rows.
   */
  checkInBackground(): this {
    if (this.#db !== undefined && this.#db.readOnly === undefined && this.#check.state === undefined)
      this.#check.start()
    return this
  }

  /**
   * Re-term the search index in the background when its terms are of an earlier version, and merge its segments when
   * a bulk write left that due (index-job.ts), and fill the item columns of a database migrated from schema 3 and
   * count the rows of one migrated from 4, and fill the rows' text keys of one migrated from 6 (fill-job.ts), once,
   * after the start: a bounded batch per step, the store
   * usable meanwhile, resumed by the next start after a kill. `batches`: sizes of a step (tests).
   */
  retermInBackground(
    batches: { retermBatch?: number; kindsBatch?: number; textKeysBatch?: number; mergePages?: number } = {},
  ): this {
    // The index's upkeep is set up on a fresh home too: the database its first save makes may get a bulk write.
    const db = () => (this.#closing || this.#db?.readOnly !== undefined ? undefined : this.#db)
    this.#index ??= indexInBackground(db, this.#log, batches)
    if (this.#db === undefined || this.#db.readOnly !== undefined) return this
    const report = { log: this.#log, changed: () => this.#healthListeners.notify(undefined) }
    this.#kinds ??= fillInBackground('kinds', this.file, db, report, batches.kindsBatch)
    this.#textKeys ??= fillInBackground('textKeys', this.file, db, report, batches.textKeysBatch)
    return this
  }

  async close(): Promise<void> {
    this.#closing = true
    this.#check.stop()
    this.#index?.stop()
    this.#kinds?.stop()
    this.#textKeys?.stop()
    await this.#queue.idle()
    await this.#backup.idle()
    await this.#early?.wait()
    this.#listeners.clear()
    this.#healthListeners.clear()
    this.#db?.close()
    this.#db = undefined
  }
}
