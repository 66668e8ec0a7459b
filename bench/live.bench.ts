/**
 * Benchmark of live updates (`/__ap/events`). Figures:
 *  - ack → other page: a `profile.update` over HTTP (its answer is the acknowledgement) until an open settings page in
 *    real Chromium against the real `dsh web` shows the new name, p50/p99 over RUNS renames. The page stamps the
 *    moment with a MutationObserver; both clocks are this machine's (epoch + performance.now()), so the two stamps
 *    compare directly. Target: p50 ≤ 100 ms in the same process;
 *  - from another process: the same, with the rename committed by a second process on the same data (a headless dsh
 *    run or any other tool does exactly this), when the store sees other processes' commits. Target: p50 ≤ 1 s;
 *  - server CPU per idle connection per minute: the routes server (bench/routes-server.ts, its own process) idles
 *    IDLE_SECONDS with 0 and with CONNECTIONS open event streams; the difference per connection, scaled to a minute;
 *  - command p50 with CONNECTIONS open streams against none (target ≤ 1.1×): sequential `profile.update` round trips,
 *    ROUNDS rounds interleaved, median of the rounds' medians.
 * Run: `npm run bench live`, or `node --experimental-strip-types bench/live.bench.ts`.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { Agent, request, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { launchBrowser, openApp, openSettings, showProfileList } from '../test/support/browser.ts'
import { bootHost } from '../test/support/host-api.ts'
import { httpClient } from '../test/support/http.ts'
import { startModelServer } from '../test/support/model-server.ts'
import { median } from '../test/support/stats.ts'
import type { ServerRequest } from './routes-server.ts'

const RESULTS = join(fileURLToPath(import.meta.url), '..', 'results')
mkdirSync(RESULTS, { recursive: true })
const SERVER = join(fileURLToPath(import.meta.url), '..', 'routes-server.ts')
const RUNS = 40
const CONNECTIONS = 50
const IDLE_SECONDS = 30
const ROUNDS = 3
const COMMANDS = 150

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

const now = (): number => performance.timeOrigin + performance.now()
const ms = (x: number): string => `${x.toFixed(1)} ms`

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

/** The routes server as its own process, with a way to ask it for its CPU time. */
async function routesServer(): Promise<{ port: number; cpu(): Promise<number>; ask(r: DistributiveOmit<ServerRequest, 'id'>): Promise<Record<string, unknown>>; close(): Promise<void> }> {
  const child: ChildProcess = fork(SERVER, ['routes', RESULTS], { execArgv: process.execArgv, stdio: 'inherit' })
  const pending = new Map<number, (m: Record<string, unknown>) => void>()
  let next = 0
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`routes-server exited with ${code}`)))
    child.on('message', (m: Record<string, unknown>) => {
      if (typeof m.port === 'number') resolve(m.port)
      else pending.get(m.id as number)?.(m)
    })
  })
  const ask = (r: DistributiveOmit<ServerRequest, 'id'>): Promise<Record<string, unknown>> => new Promise((done) => {
    const id = next++
    pending.set(id, (m) => { pending.delete(id); done(m) })
    child.send({ ...r, id })
  })
  return {
    port,
    ask,
    cpu: async () => (await ask({ do: 'cpu' })).micros as number,
    close: async () => {
      child.removeAllListeners('exit')
      const exited = new Promise((done) => child.once('exit', done))
      await ask({ do: 'close' })
      await exited
    },
  }
}

/** `n` open event streams on `port`, read and discarded; resolves once all are open. */
async function openStreams(port: number, n: number): Promise<{ close(): void }> {
  const agent = new Agent({ keepAlive: true, maxSockets: n + 1 })
  const open: IncomingMessage[] = []
  await Promise.all(Array.from({ length: n }, () => new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/__ap/events', agent, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      open.push(res)
      res.resume()
      resolve()
    })
    req.on('error', reject)
    req.end()
  })))
  return { close: () => { for (const res of open) res.destroy(); agent.destroy() } }
}

async function serverFigures(): Promise<void> {
  const server = await routesServer()
  await server.ask({ do: 'seed', profiles: 10 })
  const api = httpClient(server.port)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let counter = 0
  const commandRound = async (): Promise<number> => {
    const samples: number[] = []
    for (let i = 0; i < COMMANDS; i++) {
      const t = performance.now()
      const reply = await api.command({ op: 'profile.update', id: 'b-1', patch: { role: `角色 ${counter++}` } }, agent)
      if (reply.status !== 200) throw new Error(`command failed: ${reply.text}`)
      samples.push(performance.now() - t)
    }
    return median(samples)
  }
  const idleCpu = async (): Promise<number> => {
    const before = await server.cpu()
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000))
    return (await server.cpu()) - before
  }

  await commandRound()
  const none: number[] = []
  const withStreams: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    none.push(await commandRound())
    const streams = await openStreams(server.port, CONNECTIONS)
    withStreams.push(await commandRound())
    streams.close()
  }
  const idle0 = await idleCpu()
  const streams = await openStreams(server.port, CONNECTIONS)
  const idleN = await idleCpu()
  streams.close()
  await server.close()
  agent.destroy()

  const perConnMinute = Math.max(0, idleN - idle0) / CONNECTIONS * (60 / IDLE_SECONDS) / 1000
  console.log(`command p50, no open streams: ${ms(median(none))} (rounds ${none.map((x) => x.toFixed(2)).join(', ')})`)
  console.log(`command p50, ${CONNECTIONS} open streams: ${ms(median(withStreams))} (rounds ${withStreams.map((x) => x.toFixed(2)).join(', ')}); ratio ${(median(withStreams) / median(none)).toFixed(3)}× (target ≤ 1.1×)`)
  console.log(`server CPU while idle ${IDLE_SECONDS} s: ${(idle0 / 1000).toFixed(1)} ms with none, ${(idleN / 1000).toFixed(1)} ms with ${CONNECTIONS} streams → ${perConnMinute.toFixed(3)} ms per idle connection per minute`)
}

async function pageFigures(): Promise<void> {
  const model = await startModelServer()
  const host = await bootHost(model)
  const browser = await launchBrowser()
  try {
    const { page } = await openApp(browser, host.web.url)
    await openSettings(page, { reload: false })
    await showProfileList(page)
    const id = (await host.read()).state.activeId
    const samples: number[] = []
    for (let i = 0; i < RUNS + 3; i++) {
      const name = `改名 ${i} ${Math.random().toString(36).slice(2, 8)}`
      const seen = page.evaluate(({ id, name }) => new Promise<number>((resolve) => {
        const shown = (): boolean => document.querySelector(`.ap-settings .ap-list-item[data-profile-id="${id}"]`)?.textContent?.includes(name) === true
        const observer = new MutationObserver(() => {
          if (!shown()) return
          observer.disconnect()
          resolve(performance.timeOrigin + performance.now())
        })
        observer.observe(document.body, { subtree: true, childList: true, characterData: true })
      }), { id, name })
      // The observer is in place before the command goes out.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)))
      await host.command({ op: 'profile.update', id, patch: { name } })
      const acked = now()
      const shownAt = await seen
      if (i >= 3) samples.push(shownAt - acked)
      await new Promise((r) => setTimeout(r, 50))
    }
    console.log(`ack → other page shows it (same process, ${RUNS} renames): p50 ${ms(median(samples))}, p99 ${ms(percentile(samples, 99))} (target p50 ≤ 100 ms)`)
  } finally {
    await browser.close()
    await host.stop()
    await model.close()
  }
}

await serverFigures()
await pageFigures()
