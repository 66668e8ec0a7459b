/**
 * Two machines and one remote on disk, for the sync specs: each machine a store of its own and a sync clone in its
 * data directory, the remote a bare repository (the user's "git remote"), every one removed after the test.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { Repo } from '../../lib/sync/repo.ts'
import { SyncEngine } from '../../lib/sync/engine.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { perTest } from './store-helpers.ts'

/** One machine: its store, its clone and its engine (started only when a spec starts it). */
export interface Machine {
  store: ProfileStore
  repo: Repo
  engine: SyncEngine
  dir: string
  log: string[]
}

/** Run git in a directory outside every sync (setting up or tampering with the remote as a test needs). */
export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  })
}

/** A commit on the remote's `main` made in a work tree by `build` (a teammate's push, or a hostile one). */
export function pushFrom(remote: string, build: (work: string) => void): void {
  const work = `${remote}-work`
  if (!existsSync(work))
    execFileSync('git', ['clone', '--quiet', '--branch', 'main', remote, work], { stdio: 'ignore' })
  build(work)
  gitIn(work, 'add', '-A')
  gitIn(work, 'commit', '--quiet', '--no-verify', '-m', 'pushed')
  gitIn(work, 'push', '--quiet', 'origin', 'HEAD:main')
}

/** Makes machines and remotes that go away after each test. */
export function syncWorld() {
  const t = perTest()
  const engines: SyncEngine[] = []
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.stop()
  })
  return {
    /** A bare repository on disk. */
    async remote(): Promise<string> {
      const dir = join(await t.dir('ap-remote'), 'remote.git')
      execFileSync('git', ['init', '--bare', '--quiet', dir])
      return dir
    },
    /** A machine syncing with `remote` on `branch`. */
    async machine(remote: string, branch = 'main'): Promise<Machine> {
      const dir = await t.dir('ap-machine')
      const store = await t.start(join(dir, 'profiles.sqlite'))
      const repo = new Repo(join(dir, 'sync', 'personal'), remote, branch)
      const log: string[] = []
      const engine = new SyncEngine({
        store,
        repo,
        log: { warn: (m) => log.push(m) },
        debounceMs: 20,
        intervalMs: 60_000,
      })
      engines.push(engine)
      return { store, repo, engine, dir, log }
    },
  }
}
