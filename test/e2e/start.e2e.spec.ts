/**
 * README's first command, end to end: `npm start` without an API key builds the plugin, installs it into a Harness
 * home, starts the offline model (saying so on the console) and the real dsh web UI with the plugin's browser half and
 * routes, and stops everything on interrupt. The home is redirected to a temp folder so the checkout's own `.dsh-home` stays
 * untouched.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { nodeBin, ROOT } from '../support/dsh.ts'

let child: ChildProcess
let output = ''
let home: string
let port: number

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'ap-start-'))
  port = 20_000 + Math.floor(Math.random() * 20_000)
  const env: NodeJS.ProcessEnv = { ...process.env, AP_DSH_HOME: home, DSH_TELEMETRY_DISABLED: '1', DSH_AGENTS_HOME: join(home, 'agents') }
  delete env.DEEPSEEK_API_KEY
  delete env.DEEPSEEK_BASE_URL
  child = spawn(nodeBin(), [join(ROOT, 'scripts', 'start.mjs'), '--port', String(port), '--no-open'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (d: Buffer) => { output += d })
  child.stderr!.on('data', (d: Buffer) => { output += d })
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`)
    try { if ((await fetch(`http://127.0.0.1:${port}/`)).ok) break } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`npm start did not serve in time:\n${output}`)
    await new Promise((r) => setTimeout(r, 250))
  }
})

afterAll(async () => {
  if (child && child.exitCode === null) {
    const closed = new Promise((r) => child.on('close', r))
    child.kill('SIGTERM')
    await closed
  }
  rmSync(home, { recursive: true, force: true })
})

it('says clearly that it runs on the offline model, and serves the UI with the plugin on 127.0.0.1', async () => {
  expect(output).toContain('OFFLINE MODEL: DEEPSEEK_API_KEY is not set')
  expect(output).toContain(`Harness home: ${home}`)
  const js = await fetch(`http://127.0.0.1:${port}/plugins/dsh-agent-profiles/client.js`)
  expect(js.status).toBe(200)
  const state = await (await fetch(`http://127.0.0.1:${port}/__ap/state`)).json() as { meta: { dataFile: string } }
  expect(state.meta.dataFile).toBe(join(home, 'agent-profiles', 'profiles.json'))
})

it('stops dsh and the offline model when interrupted', async () => {
  const closed = new Promise<number | null>((r) => child.on('close', r))
  child.kill('SIGTERM')
  await closed
  await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow()
})
