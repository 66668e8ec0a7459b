/**
 * What the profile store is: the one owner of the plugin's data, as every other room sees it (ProfileStore), what a
 * command returns, the options it opens with, and where its data lives by default. It owns these declarations only:
 * the store is opened by open-store.ts and lives in live-store.ts; its database is db/.
 */
import { join, resolve } from 'node:path'
import type * as z from 'zod'
import type { Envelope, Profile, SessionSetting, State, UsedMemory } from '../state/model.ts'
import type { BackupInfo, RetiredProfile } from '../shared/wire-replies.ts'
import type { Command } from '../shared/command-inputs.ts'
import type { DataHealth, LoadError, ReadOnlyData } from '../shared/meta.ts'
import type { Notice } from '../shared/notices.ts'
import type { HostReplyOf, Op } from '../shared/commands.ts'
import type { Log } from '../shared/log.ts'
import type { READ_IMPORT_SCHEMA } from '../shared/schema-commands.ts'
import type { READ_FILES } from '../shared/files.ts'
import type { FileRead } from '../commands/file-read.ts'
import type { DURABLE_LATER } from './db/durable-later.ts'
import type { LISTS_ON_DISK } from './lists-on-disk.ts'
import type { MemoryIndex } from './db/memory-index.ts'

export type { Command } from '../shared/command-inputs.ts'
export type { MemoryTarget } from '../shared/memory-target.ts'

/**
 * What every successful command returns: the new state, a notice, and the operation's own fields (typed by op, see
 * {@link HostReplyOf}).
 */
export type CommandResult<O extends Op = Op> = { state: State; notice: Notice } & HostReplyOf<O>

/**
 * An import whose files were read already, off the event loop: its list names each file alone and the reads ride
 * beside it under a symbol, which no JSON body can carry (the import worker's answer, or one batch of an own import,
 * which marks itself to be made durable after its commit, and its lists kept on disk when it completes them). Host
 * parts build it; it never comes over HTTP.
 */
export type ReadImportCommand = z.input<typeof READ_IMPORT_SCHEMA> & {
  [READ_FILES]: FileRead[]
  [DURABLE_LATER]?: true
  [LISTS_ON_DISK]?: true
}

/** Where the store keeps its data and where it reports trouble. */
export interface StoreOptions {
  /** The database (`<stem>.sqlite`), or the `<stem>.json` data file of the layout before it: both mean the same data. */
  file: string
  log?: Log
  /** False leaves memory writes out of the history; only bench/history.bench.ts sets it, to measure what it costs. */
  recordHistory?: boolean
  /** Items the background re-terming of the search index does per step; tests set it small, to stop it mid-way. */
  retermBatch?: number
  /** Rows the background fill of the item columns does per step (fill-job.ts); tests set it small, to stop it mid-way. */
  kindsBatch?: number
  /** Rows the background fill of the rows' text keys does per step (fill-job.ts); as above. */
  textKeysBatch?: number
  /** Pages a step of the background merge of the search index does (index-job.ts); tests set it small. */
  mergePages?: number
  /**
   * True creates the database of a fresh home at once, on a worker thread, so that the first save does not wait on
   * it (the plugin sets it); otherwise opening writes nothing and the first save creates it.
   */
  createEarly?: boolean
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
  readonly lastError: LoadError | null
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
  command<C extends Command | ReadImportCommand>(cmd: C): Promise<CommandResult<C['op']>>
  /** Called after each successful write (once per batch) and each reload of another process's saves; returns an unsubscribe function. */
  onChange(fn: (state: State) => void): () => void
  /**
   * Called when the data's `health` changes with no saved change (the background integrity check started or ended, the
   * background upgrade of the data file started, ended or stopped), so that an open page shows it; returns an
   * unsubscribe function.
   */
  onHealth(fn: () => void): () => void
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
  /**
   * The backups of the data (a copy a day, the newest seven, and apart from them the newest seven copies taken before
   * a restore), newest first, with what each holds.
   */
  backups(): BackupInfo[]
  /**
   * Replace the data with backup `name`, after the current data became a backup itself (`<time>-before-restore`).
   * Waits for queued commands first; never removes a backup. Throws StoreError: not-found (no such backup),
   * conflict with rule `backup.damaged`, `backup.newer` or `backup.empty` (nothing on disk changed), read-only,
   * unwritable, io.
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
