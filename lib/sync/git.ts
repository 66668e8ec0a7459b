/**
 * The one way the plugin runs `git`: the system's binary in a child process of the git helper (git-host.ts; so a sync
 * never blocks the host's event loop, nor pauses it to fork), with the user's own credentials (ssh agent, credential helper) and a hardened environment, because
 * everything in a repository is untrusted: no hooks, no attributes or filters, no replace objects, no prompt, objects
 * checked as they are fetched, a timeout on every call and a cap on what it may print. It never keeps a secret and
 * never reads a repository's working tree (the sync clone has none).
 */
import { dirname } from 'node:path'
import { runGit } from './git-host.ts'
import type { LinesInput } from './file-text.ts'
import { GitError } from './errors.ts'

/** How one call runs. */
export interface GitCall {
  /** Bytes fed to git's stdin. */
  input?: string | Buffer | LinesInput
  /** Milliseconds before the call is killed (default 30 s; network calls pass more). */
  timeoutMs?: number
  /** Bytes of stdout past which the call is killed and refused as too large (default 8 MiB). */
  maxOutput?: number
  /** Extra environment (an index file of our own). */
  env?: Record<string, string>
  /**
   * The user's environment as {@link gitEnvironment} prepared it (unset: prepared for this call). Reading and
   * filtering `process.env` cost ~0.15 ms and ~40 KB of garbage a call, half of what a run allocated on the host's
   * heap: a run prepares it once (Repo.ensure) and its calls share it.
   */
  environment?: NodeJS.ProcessEnv
  /** A local remote path the user gave: only then may git use the `file` transport. */
  localRemote?: boolean
  /** Exit codes that are answers, not failures (`merge-base --is-ancestor` answers 1 for "no"). */
  answers?: readonly number[]
}

/** What a call gave: its exit code and stdout. */
export interface GitResult {
  code: number
  stdout: Buffer
}

/**
 * The configuration every call runs with, whatever the repository or the user's files say: hooks off, attributes and
 * filters unread, no fsmonitor, objects checked on fetch (git's fsck refuses `..` and `.git` paths and odd modes).
 */
const HARDENING = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.attributesFile=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.symlinks=false',
  '-c',
  'fetch.fsckObjects=true',
  '-c',
  'transfer.fsckObjects=true',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  // Every file git writes (objects, packs, the index, refs) synced as git writes it: a run's local commit is the
  // user's work until pushed, and a power cut must not leave a ref to an object that never reached the disk. It also
  // keeps the run's writes from waiting in the system's cache for the next fsync of anyone on the disk: a turn's.
  '-c',
  'core.fsync=all',
]

/** The environment of a call: the user's (for ssh and credential helpers) without any GIT_ variable that redirects git. */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(base)) {
    // GIT_SSH_COMMAND / GIT_SSH / GIT_ASKPASS are the user's way to reach their remote; every other GIT_ variable
    // (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_*…) would point our calls at something else.
    if (k.startsWith('GIT_') && !['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_ASKPASS', 'GIT_EXEC_PATH'].includes(k)) continue
    env[k] = v
  }
  env.GIT_TERMINAL_PROMPT = '0'
  env.GIT_ATTR_NOSYSTEM = '1'
  env.GIT_NO_REPLACE_OBJECTS = '1'
  env.GIT_OPTIONAL_LOCKS = '0'
  env.LC_ALL = 'C'
  // A passphrase prompt would wait forever in a background job: ssh fails instead (an agent still answers).
  if (env.GIT_SSH_COMMAND === undefined && env.GIT_SSH === undefined) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes'
  return env
}

/** `env` with `extra` over it (none: `env` itself, not copied). */
const withExtra = (env: NodeJS.ProcessEnv, extra: Record<string, string> | undefined): NodeJS.ProcessEnv =>
  extra === undefined ? env : { ...env, ...extra }

/** The last lines of git's stderr, bounded, for a status a person reads. */
function tail(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(-3)
    .join(' ')
  return lines.length > 400 ? `${lines.slice(0, 400)}…` : lines
}

/** Run `git <args>` in the sync clone `dir`. Resolves with its exit code and stdout; rejects with {@link GitError}. */
export async function git(dir: string, args: readonly string[], call: GitCall = {}): Promise<GitResult> {
  const full = [
    ...HARDENING,
    '-c',
    `protocol.file.allow=${call.localRemote === true ? 'always' : 'never'}`,
    '--git-dir',
    dir,
    ...args,
  ]
  // Run by the helper process (git-host.ts), so that no git process is forked from dsh itself.
  const r = await runGit(dir, {
    name: args[0] ?? 'git',
    args: full,
    env: withExtra(call.environment ?? gitEnvironment(), call.env),
    cwd: dirname(dir),
    input: call.input ?? '',
    timeoutMs: call.timeoutMs ?? 30_000,
    maxOutput: call.maxOutput ?? 8 * 1024 * 1024,
  })
  if (!('code' in r)) throw new GitError(r.failure, r.detail)
  if (r.code === 0 || call.answers?.includes(r.code) === true)
    return { code: r.code, stdout: Buffer.from(r.stdout.buffer, r.stdout.byteOffset, r.stdout.length) }
  throw new GitError('failed', tail(r.stderr), r.code, r.stderr)
}
