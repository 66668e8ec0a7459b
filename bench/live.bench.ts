/**
 * Benchmark of live updates (`/__ap/events`). Figures:
 *  - ack → other page: a `profile.update` over HTTP (its answer is the acknowledgement) until an open settings page in
 *    real Chromium against the real `dsh web` shows the new name, p50/p99 over RUNS renames. The page stamps the
 *    moment with a MutationObserver; both clocks are this machine's (epoch + performance.now()), so the two stamps
 *    compare directly. Target: p50 ≤ 100 ms in the same process;
 *  - from another process: the same, with the rename committed by a second process on the same data (a headless dsh
 *    run or any other tool does exactly this), when the store sees other processes' commits. Target: p50 ≤ 1 s;
 *  - server CPU per idle connection per minute: the routes server (bench/routes-process.ts, its own process) idles
 *    IDLE_SECONDS with and without CONNECTIONS open event streams, IDLE_ROUNDS times interleaved; the difference of
 *    the medians per connection, scaled to a minute (the poll of other processes' commits runs while any page
 *    listens, so it is in the figure, spread over the connections);
 *  - command p50 with CONNECTIONS open streams against none (target ≤ 1.1×): sequential `profile.update` round trips,
 *    ROUNDS rounds interleaved, median of the rounds' medians and of each round's ratio to the round before it, with
 *    the server's CPU per command beside it (the streams are read by another process at the lowest CPU priority,
 *    bench/live-streams.ts, as browser tabs would be).
 * Run: `npm run bench live`, or `node --experimental-strip-types bench/live.bench.ts`.
 */
import { fork } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { Agent } from 'node:http'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { launchBrowser, openApp, openSettings, showProfileList } from '../test/support/browser.ts'
import { bootHost } from '../test/support/host-api.ts'
import { startModelServer } from '../test/support/model-server.ts'
import { median, percentile } from '../test/support/stats.ts'
import { startServer } from './routes-process.ts'
import { armed } from './shown.ts'

const RESULTS = join(fileURLToPath(import.meta.url), '..', 'results')
mkdirSync(RESULTS, { recursive: true })
const WRITER = join(fileURLToPath(import.meta.url), '..', 'live-writer.ts')
const STREAMS = join(fileURLToPath(import.meta.url), '..', 'live-streams.ts')
const RUNS = 40
const CONNECTIONS = 50
const IDLE_SECONDS = 15
const IDLE_ROUNDS = 3
const ROUNDS = 9
const COMMANDS = 150

const now = (): number => performance.timeOrigin + performance.now()
const ms = (x: number): string => `${x.toFixed(1)} ms`

/** `n` open event streams on `port`, read in a process of their own (bench/live-streams.ts); resolves once all are open. */
async function openStreams(port: number, n: number): Promise<{ bytes(): Promise<number>; close(): Promise<void> }> {
  const child = fork(STREAMS, [String(port), String(n)], { execArgv: process.execArgv, stdio: 'inherit' })
  const next = <T>(): Promise<T> =>
    new Promise((resolve, reject) => {
      child.once('message', (m) => resolve(m as T))
      child.once('exit', (code) => reject(new Error(`live-streams exited with ${code}`)))
    })
  await next()
  return {
    bytes: async () => {
      const reply = next<{ bytes: number }>()
      child.send({})
      return (await reply).bytes
    },
    close: async () => {
      child.removeAllListeners('exit')
      const exited = new Promise((done) => child.once('exit', done))
      child.send({ close: true })
      await exited
    },
  }
}

async function serverFigures(): Promise<void> {
  const server = await startServer('routes', RESULTS)
  await server.ask({ do: 'seed', profiles: 10 })
  const api = server.api
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let counter = 0
  /** One round of sequential commands: their p50 and the server's CPU per command (ms). */
  const commandRound = async (): Promise<{ p50: number; cpu: number }> => {
    const samples: number[] = []
    const before = await server.cpu()
    for (let i = 0; i < COMMANDS; i++) {
      const t = performance.now()
      const reply = await api.command({ op: 'profile.update', id: 'b-1', patch: { role: `角色 ${counter++}` } }, agent)
      if (reply.status !== 200) throw new Error(`command failed: ${reply.text}`)
      samples.push(performance.now() - t)
    }
    return { p50: median(samples), cpu: ((await server.cpu()) - before) / 1000 / COMMANDS }
  }
  /** The server's CPU time (ms) over IDLE_SECONDS with nothing asked of it, after what came before settled. */
  const idleCpu = async (): Promise<number> => {
    await new Promise((r) => setTimeout(r, 2_000))
    const before = await server.cpu()
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000))
    return ((await server.cpu()) - before) / 1000
  }

  await commandRound()
  const none: Array<{ p50: number; cpu: number }> = []
  const withStreams: Array<{ p50: number; cpu: number }> = []
  const idleNone: number[] = []
  const idleStreams: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    none.push(await commandRound())
    const streams = await openStreams(server.port, CONNECTIONS)
    const received = await streams.bytes()
    withStreams.push(await commandRound())
    // Every command's event reached every stream: the figure is of streams that were really served.
    if ((await streams.bytes()) - received < COMMANDS * CONNECTIONS)
      throw new Error('the open streams were not sent every change')
    if (round < IDLE_ROUNDS) idleStreams.push(await idleCpu())
    await streams.close()
    if (round < IDLE_ROUNDS) idleNone.push(await idleCpu())
  }
  await server.close()
  agent.destroy()

  const p50 = (rows: Array<{ p50: number }>): number => median(rows.map((r) => r.p50))
  const cpu = (rows: Array<{ cpu: number }>): number => median(rows.map((r) => r.cpu))
  const perMinute = 60 / IDLE_SECONDS
  const perConnMinute = (Math.max(0, median(idleStreams) - median(idleNone)) / CONNECTIONS) * perMinute
  console.log(
    `command p50, no open streams: ${ms(p50(none))} (rounds ${none.map((r) => r.p50.toFixed(2)).join(', ')}), server CPU ${cpu(none).toFixed(3)} ms per command`,
  )
  console.log(
    `command p50, ${CONNECTIONS} open streams: ${ms(p50(withStreams))} (rounds ${withStreams.map((r) => r.p50.toFixed(2)).join(', ')}), server CPU ${cpu(withStreams).toFixed(3)} ms per command; p50 ratio ${(p50(withStreams) / p50(none)).toFixed(3)}×, median of the rounds' paired ratios ${median(withStreams.map((r, i) => r.p50 / none[i]!.p50)).toFixed(3)}× (target ≤ 1.1×)`,
  )
  console.log(
    `server CPU idle, per minute: ${(median(idleNone) * perMinute).toFixed(1)} ms with no stream, ${(median(idleStreams) * perMinute).toFixed(1)} ms with ${CONNECTIONS} (medians of ${IDLE_ROUNDS} windows of ${IDLE_SECONDS} s) → ${perConnMinute.toFixed(3)} ms per idle connection per minute`,
  )
}

/** `RUNS` renames by `rename` (resolving with its acknowledgement time), each until the page shows it. */
async function ackToDom(page: Page, id: string, rename: (name: string) => Promise<number>): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < RUNS + 3; i++) {
    const name = `改名 ${i} ${Math.random().toString(36).slice(2, 8)}`
    const { seen } = await armed(page, id, name)
    const acked = await rename(name)
    const shownAt = await seen
    if (i >= 3) samples.push(shownAt - acked)
    await new Promise((r) => setTimeout(r, 50))
  }
  return samples
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
    const samples = await ackToDom(page, id, async (name) => {
      await host.command({ op: 'profile.update', id, patch: { name } })
      return now()
    })
    console.log(
      `ack → other page shows it (same process, ${RUNS} renames): p50 ${ms(median(samples))}, p99 ${ms(percentile(samples, 99))} (target p50 ≤ 100 ms)`,
    )

    const writer = fork(WRITER, [host.home.dataFile], { execArgv: process.execArgv, stdio: 'inherit' })
    const replies: Array<(m: { at: number }) => void> = []
    writer.on('message', (m: { at?: number; ready?: boolean }) => {
      if (m.at !== undefined) replies.shift()?.(m as { at: number })
    })
    await new Promise<void>((resolve) => writer.once('message', () => resolve()))
    const across = await ackToDom(
      page,
      id,
      (name) =>
        new Promise((resolve) => {
          replies.push((m) => resolve(m.at))
          writer.send({ id, name })
        }),
    )
    writer.send({ close: true })
    console.log(
      `ack → other page shows it (another process's commit, ${RUNS} renames): p50 ${ms(median(across))}, p99 ${ms(percentile(across, 99))} (target p50 ≤ 1 s)`,
    )
  } finally {
    await browser.close()
    await host.stop()
    await model.close()
  }
}

await serverFigures()
await pageFigures()
