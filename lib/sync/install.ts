/**
 * The sync part: reads the settings the user gave (`<data dir>/sync/settings.json`: a remote and a branch, no
 * secret — git's own credentials reach the remote), keeps one engine over the clone `<data dir>/sync/personal` while a
 * remote is set, and answers the routes (settings, status, sync now). Changing the remote or branch starts a fresh
 * clone (the old one's history belongs to the old remote). Stopped with the plugin; never throws into the host.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { ProfileStore } from '../store/store.ts'
import type { Log } from '../shared/log.ts'
import { errorText } from '../shared/errors.ts'
import {
  DEFAULT_BRANCH,
  REMOTE_LIMIT,
  syncSettingsRefusal,
  withoutCredentials,
  type SyncProblem,
  type SyncReply,
  type SyncStatus,
  type SyncSettingRule,
  type SyncSettings,
} from '../shared/sync.ts'
import { brokeRule, invalid } from '../validate/state.ts'
import { SyncEngine } from './engine.ts'
import { Repo } from './repo.ts'
import { installLibraries, type LibraryPart } from './library-part.ts'
import type { LibrariesReply, SyncDiagnostics } from '../shared/library.ts'
import type { TurnQuiet } from './turn-quiet.ts'

/** What the routes and Diagnostics use of the sync part. */
export interface SyncPart {
  reply(): SyncReply
  /** Diagnostics' view: the status and each team library's, every remote and failure with its credentials hidden. */
  diagnostics(): SyncDiagnostics
  /** Set the remote and branch (an empty remote turns sync off); refused with the field when malformed. */
  configure(settings: SyncSettings): Promise<SyncReply>
  /** Sync now and answer the status after it (off: the status as it is). */
  now(): Promise<SyncReply>
  stop(): Promise<void>
  /** The read-only team libraries (lib/sync/library-part.ts); "Sync now" pulls them too. */
  libraries: LibraryPart
}

/** How the part runs (tests pass short pauses). */
export interface SyncInstallOptions {
  debounceMs?: number
  intervalMs?: number
  /** The turns under way, so that the personal sync and the team libraries' pulls run between them. */
  quiet?: TurnQuiet
}

/** The log's English of a refused setting (the page words the rule in the user's language). */
const ENGLISH: Record<SyncSettingRule, string> = {
  'remote.form': 'is not a git remote (ssh://, https://, user@host:path or an absolute path)',
  'remote.long': `is longer than ${REMOTE_LIMIT} characters`,
  'branch.form': 'is not a branch name',
}

/** The settings file's content, or null when there is none or it is unreadable (then sync is off, and said so). */
function readSettings(file: string, log: Pick<Log, 'warn'>): SyncSettings | null {
  let raw: string
  try {
    raw = readFileSync(file, 'utf8')
  } catch {
    return null
  }
  try {
    const o = JSON.parse(raw) as Partial<SyncSettings>
    if (typeof o.remote !== 'string' || typeof o.branch !== 'string')
      throw new Error('remote and branch must be strings')
    const s = { remote: o.remote, branch: o.branch }
    const refusal = syncSettingsRefusal(s)
    if (refusal !== undefined) throw new Error(`${refusal.field}: ${refusal.rule}`)
    return s.remote.trim() === '' ? null : s
  } catch (e) {
    log.warn(`agent-profiles: sync: the settings in ${file} are not usable (${errorText(e)}); sync is off`)
    return null
  }
}

/** A status with the credentials of its remote and of git's words hidden. */
function hiddenStatus<S extends { remote?: string; error?: SyncProblem }>(s: S): S {
  const out = { ...s }
  if (s.remote !== undefined) out.remote = withoutCredentials(s.remote)
  if (s.error !== undefined) out.error = { ...s.error, detail: withoutCredentials(s.error.detail) }
  return out
}

/** Diagnostics' view of the personal status and the libraries, credentials hidden. */
function hidden(status: SyncStatus, libraries: LibrariesReply['libraries']): SyncDiagnostics {
  return {
    ...hiddenStatus(status),
    libraries: libraries.map((l) => ({ ...hiddenStatus(l), status: hiddenStatus(l.status) })),
  }
}

/** Start the sync part over `store`, whose data directory holds the sync folder. */
export function installSync(store: ProfileStore, log: Log, options: SyncInstallOptions = {}): SyncPart {
  const root = join(dirname(store.file), 'sync')
  const file = join(root, 'settings.json')
  let settings = readSettings(file, log)
  let engine: SyncEngine | undefined
  const libraries = installLibraries(store, root, log, options)
  const start = () => {
    if (settings === null) return
    engine = new SyncEngine({
      store,
      repo: new Repo(join(root, 'personal'), settings.remote.trim(), settings.branch),
      log,
      ...options,
    })
    engine.start()
  }
  start()
  const reply = (): SyncReply => ({
    settings,
    status: {
      ...(engine?.status() ?? { running: false, notes: [], failures: 0 }),
      ...(settings === null ? {} : { remote: settings.remote, branch: settings.branch }),
    },
  })
  return {
    reply,
    diagnostics: () => hidden(reply().status, libraries.reply().libraries),
    libraries,
    async configure(next) {
      const s = { remote: next.remote.trim(), branch: next.branch.trim() || DEFAULT_BRANCH }
      const refusal = syncSettingsRefusal(s)
      // Too long is worded from the limit, as any over-long value; a malformed one from its rule.
      if (refusal?.rule === 'remote.long') throw invalid('remote', ENGLISH['remote.long'], REMOTE_LIMIT)
      if (refusal !== undefined)
        throw brokeRule('invalid', `${refusal.field}: ${ENGLISH[refusal.rule]}`, refusal.field, `sync.${refusal.rule}`)
      const same = settings !== null && settings.remote === s.remote && settings.branch === s.branch
      if (same) return reply()
      await engine?.stop()
      engine = undefined
      // A new remote or branch: a fresh clone, whose first sync merges with what the remote has.
      rmSync(join(root, 'personal'), { recursive: true, force: true })
      mkdirSync(root, { recursive: true, mode: 0o700 })
      writeFileSync(`${file}.tmp`, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 })
      renameSync(`${file}.tmp`, file)
      settings = s.remote === '' ? null : s
      start()
      return reply()
    },
    async now() {
      await Promise.all([engine?.now(), libraries.now()])
      return reply()
    },
    async stop() {
      await Promise.all([engine?.stop(), libraries.stop()])
    },
  }
}
