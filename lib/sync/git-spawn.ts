/**
 * One git process, bounded: spawned with the arguments and environment it is given, at the lowest CPU priority,
 * killed (with what it started) past its time limit or past its output cap, its stderr kept to a bounded size. What
 * the git helper process runs for the host (git-helper.ts), and what the host runs itself when no helper can start.
 * It imports only Node's own modules, git-pause.ts and file-text.ts (the helper's bundle stays small) and never
 * decides how git is configured: git.ts does.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { setPriority } from 'node:os'
import { track } from './git-pause.ts'
import { fileOfLines, type LinesInput } from './file-text.ts'

/** One git process to run. */
export interface SpawnJob {
  /** The git command's name (`fetch`, `cat-file`…), for the words of a failure. */
  name: string
  args: readonly string[]
  env: NodeJS.ProcessEnv
  cwd: string
  input: string | Uint8Array | LinesInput
  timeoutMs: number
  maxOutput: number
}

/** How a git process ended: its exit code, stdout and stderr, or why it was stopped or never ran. */
export type SpawnResult =
  | { code: number; stdout: Uint8Array; stderr: string }
  | { failure: 'missing' | 'timeout' | 'too-large' | 'failed'; detail: string }

/** The niceness git runs at: the lowest priority, as for any background job. */
export const GIT_NICENESS = 19

/** Bytes of stderr kept: enough for git's last lines, bounded whatever it prints. */
const STDERR_KEPT = 16_384

/** Send `signal` to the process group of `child` (its own: spawned detached), or to it alone when that fails. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) return void process.kill(-child.pid, signal)
  } catch {
    // The group is gone, or this system has none: the process itself.
  }
  child.kill(signal)
}

/**
 * Run one git process, in a process group of its own (so that what it starts — a transport, pack-objects — is
 * stopped, continued and killed with it; git-pause.ts stops it while turns run, and its time limit does not count
 * then). Never rejects.
 */
export function spawnGit(job: SpawnJob): Promise<SpawnResult> {
  const name = job.name
  return new Promise((resolve) => {
    let child: ChildProcess
    try {
      child = spawn('git', job.args, { env: job.env, stdio: ['pipe', 'pipe', 'pipe'], cwd: job.cwd, detached: true })
    } catch (e) {
      resolve({ failure: 'missing', detail: (e as Error).message })
      return
    }
    // Background work: git (and what it starts) gets the CPU only when the turn's work leaves it some.
    if (child.pid !== undefined)
      try {
        setPriority(child.pid, GIT_NICENESS)
      } catch {
        // A system that refuses (or a process already gone) runs it at the usual priority.
      }
    const out: Buffer[] = []
    let size = 0
    let err = ''
    let settled = false
    // The time limit, counted while the process runs (not while a turn keeps it stopped).
    let left = job.timeoutMs
    let armed = Date.now()
    let timer: NodeJS.Timeout | undefined
    const kill = (r: SpawnResult) => {
      signalGroup(child, 'SIGKILL')
      finish(r)
    }
    const arm = () => {
      armed = Date.now()
      timer = setTimeout(
        () => kill({ failure: 'timeout', detail: `${name} took longer than ${job.timeoutMs} ms` }),
        left,
      )
    }
    const untrack = track({
      stop: () => {
        clearTimeout(timer)
        left = Math.max(0, left - (Date.now() - armed))
        signalGroup(child, 'SIGSTOP')
      },
      go: () => {
        signalGroup(child, 'SIGCONT')
        if (!settled) arm()
      },
      end: () => kill({ failure: 'failed', detail: `${name} was stopped: the git helper is ending` }),
    })
    const finish = (r: SpawnResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      untrack()
      resolve(r)
    }
    arm()
    child.stdout!.on('data', (b: Buffer) => {
      size += b.length
      if (size > job.maxOutput) {
        kill({ failure: 'too-large', detail: `${name} printed more than ${job.maxOutput} bytes` })
        return
      }
      out.push(b)
    })
    child.stderr!.on('data', (b: Buffer) => {
      if (err.length < STDERR_KEPT) err += b.toString('utf8')
    })
    child.on('error', (e: NodeJS.ErrnoException) =>
      finish({ failure: e.code === 'ENOENT' ? 'missing' : 'failed', detail: e.message }),
    )
    child.on('close', (code) => finish({ code: code ?? -1, stdout: Buffer.concat(out), stderr: err }))
    child.stdin!.on('error', () => undefined)
    const input = job.input
    child.stdin!.end(typeof input === 'string' || input instanceof Uint8Array ? input : fileOfLines(input.lines))
  })
}
