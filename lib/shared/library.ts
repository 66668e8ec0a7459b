/**
 * Team libraries as both halves see them: a read-only git repository (remote and branch) whose profiles appear in the
 * list marked with the library's name, what one is added with, and its status. Declarations and the name rule only;
 * the pull itself is lib/sync/library.ts.
 */
import type { SyncProblem, SyncSettings, SyncStatus } from './sync.ts'

/** Characters of a library's display name. */
export const LIBRARY_NAME_LIMIT = 40

/** Team libraries one machine follows at most. */
export const LIBRARY_LIMIT = 10

/** A library as the user added it. */
export interface LibrarySettings extends SyncSettings {
  /** A short key of the remote and branch (the same library added again gets the same id, and finds its memory). */
  id: string
  /** What the list shows beside its profiles. */
  name: string
}

/** One library's status: when it was last pulled, how many profiles it gave, why the last pull failed. */
export interface LibraryStatus {
  running: boolean
  lastSync?: number
  lastAttempt?: number
  error?: SyncProblem
  failures: number
  /** Profiles the last pull gave. */
  profiles: number
}

/** What the library routes answer: every library with its status. */
export interface LibrariesReply {
  libraries: (LibrarySettings & { status: LibraryStatus })[]
}

/** What Diagnostics gets of sync: the personal repository's status and each team library's (credentials hidden). */
export interface SyncDiagnostics extends SyncStatus {
  libraries: LibrariesReply['libraries']
}

/** The name shown when the user gives none: the remote's last path segment without `.git` (`team-profiles`). */
export function defaultLibraryName(remote: string): string {
  const tail =
    remote
      .trim()
      .replace(/[/\\]+$/, '')
      .split(/[/\\:]/)
      .at(-1) ?? ''
  const name = tail.replace(/\.git$/i, '').replace(/[\u0000-\u001f\u007f]/g, '')
  return [...(name === '' ? 'team' : name)].slice(0, LIBRARY_NAME_LIMIT).join('')
}
