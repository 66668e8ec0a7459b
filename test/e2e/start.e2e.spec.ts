/**
 * README's first command, end to end: `npm start` without an API key builds the plugin, installs it into a Harness
 * home, starts the offline demo model (saying so on the console) and the real dsh web UI with the plugin's browser
 * half and routes, and stops everything on interrupt. A newcomer's first session in real Chromium: five ordinary
 * turns store no memory at all, and "请记住我喜欢乌龙茶" stores exactly that, shown in the conversation and on the
 * settings page. The home is redirected to a temp folder so the checkout's own `.dsh-home` stays untouched. Its two
 * views (the conversation with the remembered fact, the settings page's memory) are README.md's pictures.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { RunRecord } from '../../lib/shared/diagnostics.ts'
import type { WireProfile, WireState } from '../../lib/shared/wire-state.ts'
import {
  docImage,
  launchBrowser,
  openApp,
  openSection,
  openSettings,
  openWorkspace,
  screenshot,
  send,
  turnOver,
} from '../support/browser.ts'
import { nodeBin, ROOT } from '../support/dsh.ts'
import { postJson } from '../support/host-api.ts'
import { until } from '../support/memory-requests.ts'

let child: ChildProcess
let output = ''
let home: string
let port: number
let browser: Browser | undefined

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'ap-start-'))
  port = 20_000 + Math.floor(Math.random() * 20_000)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AP_DSH_HOME: home,
    DSH_TELEMETRY_DISABLED: '1',
    DSH_AGENTS_HOME: join(home, 'agents'),
  }
  delete env.DEEPSEEK_API_KEY
  delete env.DEEPSEEK_BASE_URL
  // A folder of its own to open as the workspace, so the conversation never works in the checkout.
  const workspace = join(home, 'workspace')
  mkdirSync(workspace)
  child = spawn(nodeBin(), [join(ROOT, 'scripts', 'start.mjs'), '--port', String(port), '--no-open'], {
    cwd: workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (d: Buffer) => {
    output += d
  })
  child.stderr!.on('data', (d: Buffer) => {
    output += d
  })
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).ok) break
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`npm start did not serve in time:\n${output}`)
    await new Promise((r) => setTimeout(r, 250))
  }
})

afterAll(async () => {
  await browser?.close()
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
  // The reply names the data file by its place in the data directory, never by the home's absolute path.
  const reply = await (await fetch(`http://127.0.0.1:${port}/__ap/state`)).text()
  expect((JSON.parse(reply) as { meta: { dataFile: string } }).meta.dataFile).toBe('profiles.sqlite')
  expect(reply).not.toContain(home)
})

interface Meta {
  memoryJob: { runs: RunRecord[]; totals: { stored: number } }
}
const read = async () =>
  (await (await fetch(`http://127.0.0.1:${port}/__ap/state`)).json()) as { state: WireState; meta: Meta }

/**
 * Send one message from the composer and wait for the offline model's reply to it on the page and the turn to be
 * over, so that the next message starts a turn of its own.
 */
async function turn(page: Page, text: string, reply = `（离线模型）已收到：${text}`): Promise<void> {
  await send(page, text)
  await page.getByText(reply).first().waitFor({ timeout: 60_000 })
  await turnOver(page)
}

/**
 * Every memory the user has anywhere: items and summaries of all profiles; a conversation's own memories live in its
 * settings, which the state only counts, so any conversation with settings shows as one entry.
 */
async function memories(state: WireState): Promise<Array<[string, string]>> {
  const whole = await Promise.all(
    state.profiles.map(
      async (p) =>
        (
          (await (await fetch(`http://127.0.0.1:${port}/__ap/profile/${encodeURIComponent(p.id)}`)).json()) as {
            profile: WireProfile
          }
        ).profile,
    ),
  )
  const items = whole.flatMap((p) => p.memory.items)
  return [
    ...items.map((it): [string, string] => [it.text, it.source]),
    ...(state.conversations > 0
      ? [[`${state.conversations} conversation(s) with settings`, 'conversation'] as [string, string]]
      : []),
    ...whole.filter((p) => p.memory.summary !== '').map((p): [string, string] => [p.memory.summary, 'summary']),
  ]
}

it('on the offline demo, five ordinary turns store no memory, and "请记住我喜欢乌龙茶" stores exactly that', async () => {
  browser = await launchBrowser()
  const { page, errors } = await openApp(browser, `http://127.0.0.1:${port}`, { lang: 'zh', firstRun: true })
  await openWorkspace(page)
  for (const text of ['你好', '帮我写一首关于秋天的短诗', '什么是闭包？', '今天适合出门吗', '谢谢'])
    await turn(page, text)
  expect(await page.locator('body').innerText()).toContain('这是本项目的离线演示模型')
  // Extraction runs after the 5th completed turn, once the conversation is quiet; the demo answers it in the protocol.
  const run = await until(
    'the extraction after five turns',
    async () => (await read()).meta.memoryJob.runs.find((r) => r.job === 'extract'),
    60_000,
    () => output.slice(-3000),
  )
  expect(run).toMatchObject({ outcome: 'nothing-new', dropped: { nothing: 1 } })
  expect(await memories((await read()).state)).toEqual([])

  await turn(page, '请记住我喜欢乌龙茶', '已用 memory_save 保存了你的原话')
  const row = page.locator('[data-ap-memory-save="saved"]')
  // "已记住" and the fact once: in the line until the page has loaded the saved fact, then as a chip with its undo.
  await row.getByRole('button', { name: '撤销「我喜欢乌龙茶」' }).waitFor({ timeout: 30_000 })
  expect(await row.locator('.ap-memory-save-text').textContent()).toBe('已记住')
  expect((await row.innerText()).split('我喜欢乌龙茶').length - 1).toBe(1)
  await screenshot(page, 'offline-demo-remembered')
  await docImage(page, 'conversation')
  const { state, meta } = await read()
  expect(await memories(state)).toEqual([['我喜欢乌龙茶', 'tool']])
  expect(meta.memoryJob.totals.stored).toBe(0)

  // The conversation got a short title from its first message.
  const listed = await (
    await fetch(
      `http://127.0.0.1:${port}/api/session.list`,
      postJson({ type: 'client-request', rpcId: 'list', method: 'session.list', payload: {} }),
    )
  ).json()
  expect(JSON.stringify(listed)).toContain('"title":"你好"')

  await openSettings(page)
  await openSection(page, '记忆')
  const item = page.locator('.ap-memory-item', { hasText: '我喜欢乌龙茶' })
  await item.waitFor({ timeout: 30_000 })
  expect(await item.locator('.ap-badge').textContent()).toBe('模型保存')
  expect(await page.locator('.ap-memory-item').count()).toBe(1)
  await item.scrollIntoViewIfNeeded()
  await screenshot(page, 'offline-demo-settings-memory')
  expect(errors).toEqual([])
  // README's picture of the settings page: the dialog alone, on the profile editor's first section, which shows no
  // time and loads nothing.
  await openSection(page, '基本资料')
  await page.locator('.ap-settings input').first().waitFor()
  await docImage(page, 'settings', { of: page.getByRole('dialog') })
})

it('stops dsh and the offline model when interrupted', async () => {
  const closed = new Promise<number | null>((r) => child.on('close', r))
  child.kill('SIGTERM')
  await closed
  await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow()
})
