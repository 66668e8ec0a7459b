/**
 * The sync repository as both halves see it: its settings (a git remote and a branch) and the rule each must keep,
 * the status a sync reports (last sync, the failure as a key the page words, what merges told the user), and the
 * routes' replies (their paths are the wire table's, wire-table.ts). Declarations and the settings check only; the sync itself is lib/sync/.
 */
/** Where a machine syncs: a git remote (ssh, https, a local path) and a branch. */
export interface SyncSettings {
  remote: string
  branch: string
}

/** The branch when the user names none. */
export const DEFAULT_BRANCH = 'main'

/** Characters of a remote we accept. */
export const REMOTE_LIMIT = 1_000

/** Why a remote or branch is refused, as a key the page words (the host's English beside it for the log). */
export type SyncSettingRule = 'remote.form' | 'remote.long' | 'branch.form'

/**
 * The refusal of `settings`, or undefined when they are fine. A remote is an `ssh://`, `https://` or `file://` URL,
 * an scp-like `user@host:path`, or an absolute path; never an option (`-…`), another transport (`ext::`) or text with
 * control characters. A branch is a plain ref name.
 */
export function syncSettingsRefusal(
  s: SyncSettings,
): { field: 'remote' | 'branch'; rule: SyncSettingRule } | undefined {
  const remote = s.remote.trim()
  if (remote.length > REMOTE_LIMIT) return { field: 'remote', rule: 'remote.long' }
  if (
    remote !== '' &&
    (/[\u0000-\u0020\u007f]/.test(remote) ||
      remote.startsWith('-') ||
      !(
        /^(ssh|https|file):\/\/[^\s]+$/i.test(remote) ||
        /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$/.test(remote) ||
        remote.startsWith('/')
      ))
  )
    return { field: 'remote', rule: 'remote.form' }
  const b = s.branch
  if (
    !/^[A-Za-z0-9._/-]{1,100}$/.test(b) ||
    b.startsWith('-') ||
    b.startsWith('/') ||
    b.endsWith('/') ||
    b.endsWith('.lock') ||
    b.includes('..') ||
    b.includes('//')
  )
    return { field: 'branch', rule: 'branch.form' }
  return undefined
}

/** The characters that end a URL's user part (the credentials go before an `@`). */
const USER_PART_END = new Set(['/', '@', ' ', '\t', '\n', '\r', "'", '"', '?', '#'])

/**
 * `text` with the user part of every URL in it hidden (`https://user:token@host/…` → `https://•••@host/…`), for
 * showing a remote or git's words about one: a token put in a remote's URL is never shown. One pass over the text.
 */
export function withoutCredentials(text: string): string {
  let out = ''
  let from = 0
  for (let at = text.indexOf('://'); at >= 0;) {
    const start = at + 3
    let end = start
    while (end < text.length && !USER_PART_END.has(text[end]!)) end++
    if (text[end] === '@' && end > start) {
      out += `${text.slice(from, start)}•••`
      from = end
    }
    at = text.indexOf('://', Math.max(end, start))
  }
  return out + text.slice(from)
}

/** Why the last sync failed, as a key the page words, with git's or the store's own words. */
export interface SyncProblem {
  key:
    | 'git-missing'
    | 'unreachable'
    | 'auth'
    | 'rejected'
    | 'rewritten'
    | 'refused-content'
    | 'bad-file'
    | 'timeout'
    | 'busy'
    | 'store'
    | 'failed'
  detail: string
}

/** What the user is told about a merge. */
export type MergeNote =
  /** A profile deleted on one side and edited on the other is kept. */
  | { kind: 'kept'; profileId: string; name: string; deletedOn: 'here' | 'there' }
  /** A profile field edited on both sides: the newer value stayed, `lost` is the other. */
  | { kind: 'field'; profileId: string; name: string; field: string; kept: 'here' | 'there'; lost: string }
  /** Memory items (or the summary) edited on both sides: the older versions are in the history, `count` of them. */
  | { kind: 'memory'; profileId: string; name: string; count: number }

/** What the page and Diagnostics show of a sync. */
export interface SyncStatus {
  running: boolean
  /** When a run last finished without a failure (ms). */
  lastSync?: number
  /** When a run last finished, failed or not. */
  lastAttempt?: number
  /** When this machine last pushed a commit to the remote (ms; kept across restarts; absent: none known). */
  lastPush?: number
  /** The subject of the commit last pushed (what it changed, e.g. "memory: +1 (编程搭档)"). */
  lastPushSubject?: string
  error?: SyncProblem
  /** What the last merges told the user (kept profiles, clashes), newest last, at most 20. */
  notes: MergeNote[]
  /** Failures in a row (the pause before the next try grows with them). */
  failures: number
  /** Profiles (About you counted as one) changed here that the remote does not have yet; absent until a run looked. */
  pending?: number
  /** The remote and branch this status is about (absent: sync is off). */
  remote?: string
  branch?: string
}

/** What the sync routes answer: the settings (null: sync is off) and the status. */
export interface SyncReply {
  settings: SyncSettings | null
  status: SyncStatus
}
