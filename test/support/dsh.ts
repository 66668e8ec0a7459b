/**
 * Boots the real `dsh` binary (the pinned `@deepseek-ai/dsh`) with this plugin installed into a throwaway DSH_HOME,
 * against the offline model server: headless (one task) and web (a served UI). Tests assert on what the model received
 * and on what the plugin wrote under that home. Nothing here imitates the host.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
// @ts-expect-error -- plain ESM script shared with `npm start`; it has no type declarations.
import { installPlugin } from '../../scripts/install-plugin.mjs'
import type { ModelServer } from './model-server.ts'

/** The checkout this test run belongs to. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const DSH_BIN = join(ROOT, 'node_modules', '@deepseek-ai', 'dsh', 'lib', 'bin.js')

/** A Node able to run dsh (>= 22.19): this process when it is new enough, else the one the project installs. */
export function nodeBin(): string {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number]
  if (major > 22 || (major === 22 && minor >= 19)) return process.execPath
  return join(ROOT, 'node_modules', '.bin', 'node')
}

export type ProfileName = 'web' | 'headless'

/** A throwaway Harness home with the plugin installed in the given profiles, and a workspace folder to run in. */
export interface Home {
  readonly dir: string
  readonly workspace: string
  /** The plugin's data file under this home (the default location). */
  readonly dataFile: string
  /** Write `$DSH_HOME/cordis.patch.yml` (a user layer applied after the bundles), e.g. to configure our row. */
  patch(yaml: string): void
  env(model: ModelServer, extra?: Record<string, string>): NodeJS.ProcessEnv
  cleanup(): void
}

/** The host's first-run notice version; a home that acknowledged it never shows the notice again. */
const WELCOME_NOTICE = 'ui-onboarding:\n  welcomeNoticeVersion: 2026-08-13.1\n'

/**
 * `acknowledged` (default true) pre-accepts the host's first-run notice in `settings.yaml`, as a returning user has:
 * the notice otherwise appears at a moment of the host's choosing and can cover whatever a test clicks. `target` is the
 * checkout whose built plugin is installed (this one by default; a benchmark's baseline names another).
 */
export function makeHome(
  profiles: ProfileName[] = ['headless', 'web'],
  options: { acknowledged?: boolean; target?: string } = {},
): Home {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ap-home-')))
  const workspace = join(dir, 'workspace')
  mkdirSync(workspace, { recursive: true })
  if (options.acknowledged !== false) writeFileSync(join(dir, 'settings.yaml'), WELCOME_NOTICE)
  for (const profile of profiles) installPlugin({ home: dir, profile, target: options.target ?? ROOT })
  return {
    dir,
    workspace,
    dataFile: join(dir, 'agent-profiles', 'profiles.sqlite'),
    patch: (yaml) => writeFileSync(join(dir, 'cordis.patch.yml'), yaml),
    env: (model, extra = {}) => {
      const env: NodeJS.ProcessEnv = { ...process.env }
      for (const key of Object.keys(env))
        if (key.startsWith('DSH_') || key.startsWith('DEEPSEEK_') || key === 'NODE_OPTIONS') delete env[key]
      return {
        ...env,
        DSH_HOME: dir,
        DSH_AGENTS_HOME: join(dir, 'agents'),
        DSH_TELEMETRY_DISABLED: '1',
        DEEPSEEK_API_KEY: 'offline-test-key',
        DEEPSEEK_BASE_URL: model.url,
        ...extra,
      }
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/**
 * A `settings.yaml` section adding provider `id` as a user adds one in Settings → Models (pi-ai, OpenAI-compatible)
 * in front of the offline model at `url`, with one model `modelId` and its key read from `keyEnv`.
 */
export function piAiProvider(id: string, keyEnv: string, modelId: string, url: string): string {
  return `llm-pi-ai:\n  providers:\n    ${id}:\n      displayName: ${id}\n      apiKeyEnv: ${keyEnv}\n      api: openai-completions\n      baseURL: ${url}\n      models:\n        - id: ${modelId}\n          name: ${modelId}\n          contextWindow: 65536\n          maxTokens: 4096\n`
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

/** One headless task: `dsh --profile headless "<task>"`, run to completion. */
export function runHeadless(
  home: Home,
  model: ModelServer,
  task: string,
  options: { timeoutMs?: number; args?: string[]; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const child = spawn(nodeBin(), [DSH_BIN, '--profile', 'headless', ...(options.args ?? []), task], {
    cwd: home.workspace,
    env: home.env(model, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return collect(child, options.timeoutMs ?? 90_000, `dsh --profile headless ${JSON.stringify(task)}`)
}

function collect(child: ChildProcess, timeoutMs: number, what: string): Promise<RunResult> {
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d
  })
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${what} did not finish in ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`))
    }, timeoutMs)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise((r) => server.close(r))
  return port
}

/** A running `dsh web`. */
export interface Web {
  readonly url: string
  readonly port: number
  /** The host process's id, for what a benchmark reads of it in /proc. */
  readonly pid: number
  /** Everything the process printed so far. */
  output(): string
  stop(): Promise<void>
}

/**
 * Start `dsh web` on 127.0.0.1 and resolve once it serves the UI and this plugin's routes: the host serves its page
 * while our plugin may still be opening its store, and until then `/__ap/*` falls through to the page.
 */
export async function startWeb(
  home: Home,
  model: ModelServer,
  options: { env?: Record<string, string>; args?: string[]; timeoutMs?: number; port?: number } = {},
): Promise<Web> {
  // A given port brings a host back where open pages expect it (a restart).
  const port = options.port ?? (await freePort())
  const child = spawn(
    nodeBin(),
    [DSH_BIN, 'web', '--no-open', '--host', '127.0.0.1', '--port', String(port), ...(options.args ?? [])],
    {
      cwd: home.workspace,
      env: home.env(model, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let log = ''
  child.stdout!.on('data', (d: Buffer) => {
    log += d
  })
  child.stderr!.on('data', (d: Buffer) => {
    log += d
  })
  const exited = new Promise<number | null>((r) => child.on('close', r))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.timeoutMs ?? 90_000)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dsh web exited with ${child.exitCode} before serving:\n${log}`)
    try {
      const res = await fetch(url + '/__ap/state')
      if (res.ok && res.headers.get('content-type')?.startsWith('application/json')) break
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`dsh web did not serve ${url} in time:\n${log}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    url,
    port,
    pid: child.pid!,
    output: () => log,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
        await exited
        clearTimeout(timer)
      }
    },
  }
}
