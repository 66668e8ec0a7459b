/**
 * The sync clone: a bare repository inside the plugin's data directory, and the few things a sync does with it —
 * fetch and push one branch of the user's remote, read a commit's tree and blobs, write blobs and a commit, move our
 * two refs. It never checks anything out: files are read as blobs (`ls-tree` first, so that every size and count is
 * known and bounded before a byte is read, then `cat-file --batch`), so no path of a repository ever reaches the disk,
 * and a symlink, a submodule or a path leaving its folder is refused before anything is read.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { git, gitEnvironment, type GitCall } from './git.ts'
import { parseDiff, type Hunk } from './line-diff.ts'
import { GitError } from './errors.ts'
import { gitInput, pieces, type FileText } from './file-text.ts'
import { RepoRefusal } from './errors.ts'

/** What a repository may hold at most: more is refused before any file is read. */
const REPO_LIMITS = {
  /** Entries of a commit's tree (files of every folder). */
  files: 2_000,
  /** Bytes of one file: a memory file of 10,000 items with their history is about 3 MB. */
  fileBytes: 16 * 1024 * 1024,
  /** Bytes of every file read by one sync. */
  totalBytes: 96 * 1024 * 1024,
} as const

/** Milliseconds a fetch or push may take. */
const NETWORK_MS = 120_000
/** Milliseconds a local git call may take. */
const LOCAL_MS = 30_000

/** Commits whose trees a clone keeps listed (ours, the remote's, the last synced, the merge base). */
const TREES_KEPT = 4

/** The ref of our own line of commits (what this machine committed and merged). */
export const HEAD_REF = 'refs/heads/sync'
/** The ref of the remote's commit as the last fetch saw it. */
export const REMOTE_REF = 'refs/remotes/origin/sync'
/** The ref of the last remote commit this machine took in or pushed: the remote's history must keep it. */
export const LAST_REF = 'refs/sync/last'

/** A file of a commit's tree. */
export interface TreeEntry {
  mode: string
  id: string
  size: number
}

/** Whether a remote is a path on this machine (then git's `file` transport may be used for it). */
function isLocalRemote(remote: string): boolean {
  return isAbsolute(remote) || remote.startsWith('file://')
}

/** A path as a sync reads it: relative, `/`-separated, no empty, `.` or `..` segment, no backslash or control. */
function safePath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || /[\u0000-\u001f\u007f]/.test(path)) return false
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && s.toLowerCase() !== '.git')
}

/** One sync clone. */
export class Repo {
  readonly #trees = new Map<string, Map<string, TreeEntry>>()
  /** The subjects of the last commits this clone object made, so the one a push sends is told without a git call. */
  readonly #subjects = new Map<string, string>()
  /** Awaited before each git call starts and again before its answer is read (see {@link waitBetween}). */
  #between: () => Promise<void> = async () => {}
  /** The user's environment as git gets it, read again at each run's start ({@link ensure}) and shared by its calls. */
  #environment: NodeJS.ProcessEnv | undefined
  readonly dir: string
  readonly remote: string
  readonly branch: string
  // Plain fields, not parameter properties: Node runs this file with its types stripped (benchmarks, scripts).
  constructor(dir: string, remote: string, branch: string) {
    this.dir = dir
    this.remote = remote
    this.branch = branch
  }

  /**
   * From now on, each git call of this clone starts only once `wait` resolves, and its answer is read (by the caller,
   * on this thread) only once it resolves again: the sync's engine waits there for the turns under way, so that no
   * git call starts during a turn and a call that was running when a turn began is taken up after it.
   */
  waitBetween(wait: () => Promise<void>): void {
    this.#between = wait
  }

  async #git(args: readonly string[], call: GitCall = {}) {
    await this.#between()
    try {
      this.#environment ??= gitEnvironment()
      const environment = this.#environment
      return await git(this.dir, args, { ...call, environment, localRemote: isLocalRemote(this.remote) })
    } finally {
      await this.#between()
    }
  }

  /**
   * Create the bare clone when it is not there yet (no template: no sample hooks, no info files). Each run begins
   * here, so the user's environment (an ssh agent started since, a credential helper's variable) is read again here.
   */
  async ensure(): Promise<void> {
    this.#environment = gitEnvironment()
    if (existsSync(`${this.dir}/HEAD`)) return
    await mkdir(this.dir, { recursive: true, mode: 0o700 })
    await this.#git(['init', '--bare', '--quiet', '--template=', this.dir], { timeoutMs: LOCAL_MS })
  }

  /** Remove the clone (the settings changed to another remote). */
  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true })
  }

  /** Fetch the branch into {@link REMOTE_REF} (removed when the remote has no such branch yet); read it with {@link refs}. */
  async fetch(): Promise<void> {
    try {
      await this.#git(
        [
          'fetch',
          '--quiet',
          '--no-tags',
          '--no-write-fetch-head',
          '--',
          this.remote,
          `+refs/heads/${this.branch}:${REMOTE_REF}`,
        ],
        { timeoutMs: NETWORK_MS },
      )
    } catch (e) {
      if (e instanceof GitError && /couldn't find remote ref/i.test(e.detail)) {
        await this.#git(['update-ref', '-d', REMOTE_REF], { timeoutMs: LOCAL_MS })
        return
      }
      throw e
    }
  }

  /**
   * Our three refs ({@link HEAD_REF}, {@link REMOTE_REF}, {@link LAST_REF}) by name, in one git call (a missing one
   * is absent). Each git call forks this process, which pauses its event loop for longer the more memory it holds,
   * so a sync makes as few as it can.
   */
  async refs(): Promise<Map<string, string>> {
    const r = await this.#git(['for-each-ref', '--format=%(refname) %(objectname)', HEAD_REF, REMOTE_REF, LAST_REF], {
      timeoutMs: LOCAL_MS,
      maxOutput: 4096,
    })
    const out = new Map<string, string>()
    for (const line of r.stdout.toString('utf8').split('\n')) {
      const [name, id] = line.split(' ')
      if (name !== undefined && id !== undefined && /^[0-9a-f]{40,64}$/.test(id)) out.set(name, id)
    }
    return out
  }

  /** Push `commit` to the branch; a remote that moved meanwhile refuses it (no force). */
  async push(commit: string): Promise<void> {
    await this.#git(['push', '--quiet', '--no-verify', '--', this.remote, `${commit}:refs/heads/${this.branch}`], {
      timeoutMs: NETWORK_MS,
    })
  }

  /** Set a ref (to `old` only when it still names `old`, when given). */
  async setRef(ref: string, commit: string, old?: string): Promise<void> {
    await this.#git(['update-ref', ref, commit, ...(old === undefined ? [] : [old])], { timeoutMs: LOCAL_MS })
  }

  /** Whether `a` is an ancestor of (or equal to) `b`. */
  async isAncestor(a: string, b: string): Promise<boolean> {
    if (a === b) return true
    const r = await this.#git(['merge-base', '--is-ancestor', a, b], { answers: [1], timeoutMs: LOCAL_MS })
    return r.code === 0
  }

  /** The best common ancestor of two commits, or undefined when their histories are unrelated. */
  async mergeBase(a: string, b: string): Promise<string | undefined> {
    const r = await this.#git(['merge-base', a, b], { answers: [1], timeoutMs: LOCAL_MS })
    const id = r.stdout.toString('utf8').trim()
    return r.code === 0 && id !== '' ? id : undefined
  }

  /** A commit's committer time (ms). */
  async timeOf(commit: string): Promise<number> {
    const r = await this.#git(['show', '-s', '--format=%ct', commit], { timeoutMs: LOCAL_MS })
    return Number(r.stdout.toString('utf8').trim()) * 1000
  }

  /** A commit's subject (the first line of its message). */
  async subjectOf(commit: string): Promise<string> {
    const known = this.#subjects.get(commit)
    if (known !== undefined) return known
    const r = await this.#git(['show', '-s', '--format=%s', commit], { timeoutMs: LOCAL_MS, maxOutput: 65_536 })
    return r.stdout.toString('utf8').trim()
  }

  /**
   * Every file of a commit (undefined: none), refused when the tree holds a symlink, a submodule, a path that could
   * leave its folder, more than {@link REPO_LIMITS}.files entries, or a file over the size limit.
   */
  async tree(commit: string | undefined): Promise<Map<string, TreeEntry>> {
    if (commit === undefined) return new Map()
    // A commit's tree never changes: the last few are kept (callers only read them), so a sync that finds nothing
    // new lists nothing again.
    const known = this.#trees.get(commit)
    if (known !== undefined) return known
    const out = await this.#listTree(commit)
    this.#trees.set(commit, out)
    for (const old of this.#trees.keys()) if (this.#trees.size > TREES_KEPT) this.#trees.delete(old)
    return out
  }

  async #listTree(commit: string): Promise<Map<string, TreeEntry>> {
    const out = new Map<string, TreeEntry>()
    // A line is at most ~200 bytes: the cap stops a tree of 100,000 files before it is all printed.
    const r = await this.#git(['ls-tree', '-r', '-z', '--long', '--full-tree', commit], {
      timeoutMs: LOCAL_MS,
      maxOutput: REPO_LIMITS.files * 400,
    }).catch((e: unknown) => {
      if (e instanceof GitError && e.failure === 'too-large')
        throw new RepoRefusal('files', `more than ${REPO_LIMITS.files}`)
      throw e
    })
    for (const line of r.stdout.toString('utf8').split('\0')) {
      if (line === '') continue
      const tab = line.indexOf('\t')
      const [mode, type, id, size] = line.slice(0, tab).split(/ +/)
      const path = line.slice(tab + 1)
      if (mode === '120000') throw new RepoRefusal('symlink', path)
      if (type !== 'blob') throw new RepoRefusal('submodule', path)
      if (!safePath(path)) throw new RepoRefusal('path', path)
      const bytes = Number(size)
      if (!(bytes <= REPO_LIMITS.fileBytes)) throw new RepoRefusal('size', path)
      out.set(path, { mode: mode!, id: id!, size: bytes })
      if (out.size > REPO_LIMITS.files) throw new RepoRefusal('files', `more than ${REPO_LIMITS.files}`)
    }
    return out
  }

  /** The texts of blobs by id, their sizes known from {@link tree} (so the total is bounded before reading). */
  async blobs(entries: readonly TreeEntry[]): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    const ids = [...new Set(entries.map((e) => e.id))]
    if (ids.length === 0) return out
    const total = entries.reduce((n, e) => n + e.size, 0)
    if (total > REPO_LIMITS.totalBytes) throw new RepoRefusal('size', `${total} bytes in all`)
    const r = await this.#git(['cat-file', '--batch'], {
      input: `${ids.join('\n')}\n`,
      timeoutMs: LOCAL_MS,
      maxOutput: total + ids.length * 64 + 1024,
    })
    const buf = r.stdout
    let at = 0
    while (at < buf.length) {
      const nl = buf.indexOf(10, at)
      const [id, type, size] = buf.subarray(at, nl).toString('utf8').split(' ')
      if (type !== 'blob') throw new GitError('failed', `object ${id} is ${type ?? 'missing'}`)
      const n = Number(size)
      out.set(id!, buf.subarray(nl + 1, nl + 1 + n).toString('utf8'))
      at = nl + 1 + n + 1
    }
    return out
  }

  /** The files of `paths` in a tree, as texts (paths the tree lacks are left out). */
  async read(tree: Map<string, TreeEntry>, paths: Iterable<string>): Promise<Map<string, string>> {
    const wanted = [...paths].flatMap((p) => {
      const e = tree.get(p)
      return e === undefined ? [] : [[p, e] as const]
    })
    const texts = await this.blobs(wanted.map(([, e]) => e))
    return new Map(wanted.map(([p, e]) => [p, texts.get(e.id)!]))
  }

  /**
   * git's line diff of two versions of a file (blobs, their sizes known from {@link tree}), as hunks; undefined when
   * it is not one line-diff.ts reads (a binary file, a diff larger than both versions), and the caller reads whole.
   */
  async lineDiff(a: TreeEntry, b: TreeEntry): Promise<Hunk[] | undefined> {
    const r = await this.#git(
      ['diff', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', '--inter-hunk-context=0', a.id, b.id],
      { timeoutMs: LOCAL_MS, maxOutput: 2 * (a.size + b.size) + 65_536 },
    ).catch((e: unknown) => {
      if (e instanceof GitError && e.failure === 'too-large') return undefined
      throw e
    })
    return r === undefined ? undefined : parseDiff(r.stdout.toString('utf8'))
  }

  /** The paths that differ between two commits (either may be absent: every path of the other). */
  async changed(a: string | undefined, b: string | undefined): Promise<string[]> {
    if (a === undefined || b === undefined) return [...(await this.tree(a ?? b)).keys()]
    const r = await this.#git(['diff-tree', '-r', '-z', '--no-renames', '--name-only', a, b], {
      timeoutMs: LOCAL_MS,
      maxOutput: REPO_LIMITS.files * 400,
    })
    return r.stdout
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '')
  }

  /**
   * Write `texts` as blobs and answer their ids, in order, with one git process: a commit of many files (a first
   * sync writes every profile's) spawned one `hash-object` per file before. The texts go through files of our own in
   * the clone's folder (git reads them by path, filters off), removed after.
   */
  async #writeBlobs(texts: readonly FileText[]): Promise<string[]> {
    if (texts.length === 0) return []
    if (texts.length === 1) {
      const w = await this.#git(['hash-object', '-w', '--no-filters', '--stdin'], {
        input: gitInput(texts[0]!),
        timeoutMs: LOCAL_MS,
      })
      return [w.stdout.toString('utf8').trim()]
    }
    const dir = await mkdtemp(`${this.dir}/sync-blobs-`)
    try {
      // The texts are written from this thread: as a git call is, between turns.
      await this.#between()
      const paths = texts.map((_, i) => join(dir, String(i)))
      await Promise.all(texts.map((text, i) => writeFile(paths[i]!, pieces(text), { mode: 0o600 })))
      const w = await this.#git(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
        input: `${paths.join('\n')}\n`,
        timeoutMs: LOCAL_MS,
      })
      const ids = w.stdout
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
      if (ids.length !== texts.length)
        throw new GitError('failed', `hash-object wrote ${ids.length} of ${texts.length} blobs`)
      return ids
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }

  /**
   * A commit of `parent`'s tree (or an empty one) with `files` written (a text) or removed (undefined), on top of
   * `parents`. Built in an index file of our own: no working tree is ever touched.
   */
  async commit(
    parentTree: string | undefined,
    files: Map<string, FileText | undefined>,
    parents: readonly string[],
    message: string,
  ): Promise<string> {
    const index = `${this.dir}/sync-index`
    const env = { GIT_INDEX_FILE: index, ...identity() }
    await rm(index, { force: true })
    await this.#git(parentTree === undefined ? ['read-tree', '--empty'] : ['read-tree', parentTree], {
      env,
      timeoutMs: LOCAL_MS,
    })
    const written = [...files].filter((f): f is [string, FileText] => f[1] !== undefined)
    const ids = await this.#writeBlobs(written.map(([, text]) => text))
    const lines = [
      ...[...files].filter(([, text]) => text === undefined).map(([path]) => `0 ${'0'.repeat(40)}\t${path}`),
      ...written.map(([path], i) => `100644 ${ids[i]}\t${path}`),
    ]
    if (lines.length > 0)
      await this.#git(['update-index', '-z', '--index-info'], {
        input: lines.join('\0') + '\0',
        env,
        timeoutMs: LOCAL_MS,
      })
    const tree = (await this.#git(['write-tree'], { env, timeoutMs: LOCAL_MS })).stdout.toString('utf8').trim()
    await rm(index, { force: true })
    const args = ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message]
    const id = (await this.#git(args, { env, timeoutMs: LOCAL_MS })).stdout.toString('utf8').trim()
    this.#subjects.set(id, message.split('\n', 1)[0]!)
    for (const old of this.#subjects.keys()) if (this.#subjects.size > TREES_KEPT) this.#subjects.delete(old)
    return id
  }
}

/** Who commits: this machine, named, so a reviewer sees which machine made each commit; no user account involved. */
function identity(): Record<string, string> {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '') || 'machine'
  return {
    GIT_AUTHOR_NAME: `dsh agent profiles (${host})`,
    GIT_AUTHOR_EMAIL: `agent-profiles@${host}`,
    GIT_COMMITTER_NAME: `dsh agent profiles (${host})`,
    GIT_COMMITTER_EMAIL: `agent-profiles@${host}`,
  }
}
