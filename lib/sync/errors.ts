/**
 * The sync's errors, each saying why a run stopped in a way the status can word: a git call that failed, a
 * repository refused for what it holds, a stop without a git or network failure. No behaviour but their fields.
 */

/** Why a git call failed, as the status words it. */
export type GitFailure = 'missing' | 'timeout' | 'too-large' | 'failed'

/** A failed git call: what failed, and git's own words (its last lines of stderr). */
export class GitError extends Error {
  readonly failure: GitFailure
  readonly detail: string
  readonly exitCode: number | undefined
  /** All of git's stderr (bounded), for telling one failure from another. */
  readonly stderr: string
  constructor(failure: GitFailure, detail: string, exitCode?: number, stderr = '') {
    super(`git: ${failure}${detail === '' ? '' : `: ${detail}`}`)
    this.failure = failure
    this.detail = detail
    this.exitCode = exitCode
    this.stderr = stderr
  }
}

/** A repository's content refused for what it holds, with the path and the rule. */
export class RepoRefusal extends Error {
  readonly rule: 'symlink' | 'submodule' | 'path' | 'files' | 'size'
  readonly path: string
  constructor(rule: RepoRefusal['rule'], path: string) {
    super(`the repository holds ${rule === 'files' ? 'too many files' : `a refused ${rule}`}: ${path}`)
    this.rule = rule
    this.path = path
  }
}

/** Why a sync stopped without a git or network failure. */
export class SyncStop extends Error {
  readonly reason: 'rewritten' | 'store-changed' | 'bad-file'
  constructor(reason: SyncStop['reason'], detail: string) {
    super(detail)
    this.reason = reason
  }
}
