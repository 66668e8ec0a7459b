/**
 * Benchmark of the push channel's catch-up under pages that do not read (issue #40 item 6). The routes server of each
 * checkout (bench/catchup-server.ts, its own process; this checkout against AP_BASELINE, default /work/wt/base) is
 * seeded with more changes than the channel keeps, each naming ~200 profiles of 64-character ids (~13 KB); then
 * CONNECTIONS connections ask to resume and never read a byte (a hung or frozen page, or a local process): from the
 * oldest kept revision (512 changes, ~6.8 MB), and from RECENT changes back (~250 KB, under the catch-up budget, so
 * the new channel sends them: it shows whether they are copied per connection). Figures, ROUNDS rounds interleaved,
 * medians: the server's RSS before, and after every connection was taken (or WAIT_MS passed) and SETTLE_MS more; the
 * growth, per connection, and how many of them the server still holds; the ratio of the growth to the baseline's.
 * Run: `npm run bench -- catchup` (AP_BASELINE=<a built checkout of the code before>).
 */
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from '../test/support/stats.ts'

const AFTER = join(fileURLToPath(import.meta.url), '..', '..')
const BEFORE = process.env.AP_BASELINE ?? '/work/wt/base'
const CONNECTIONS = 250
const ROUNDS = 3
const SETTLE_MS = 2_000
const WAIT_MS = 60_000
const RECENT = 19
const MB = 1024 * 1024

interface Memory {
  rss: number
  heapUsed: number
  external: number
  arrayBuffers: number
  connections: number
}

/** One server process of the checkout at `root`, and its IPC requests. */
async function startServer(root: string, tmp: string) {
  // This checkout's server script, importing the given checkout's lib (the baseline's has no such script).
  const child = fork(join(AFTER, 'bench', 'catchup-server.ts'), [root, tmp], {
    execArgv: process.execArgv,
    stdio: 'inherit',
  })
  const pending = new Map<number, (m: Record<string, unknown>) => void>()
  let next = 0
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`catchup-server exited with ${code}`)))
    child.on('message', (m: Record<string, unknown>) => {
      if (typeof m.port === 'number') resolve(m.port)
      else pending.get(m.id as number)?.(m)
    })
  })
  const ask = <T>(what: string): Promise<T> =>
    new Promise((resolve) => {
      const id = next++
      pending.set(id, (m) => {
        pending.delete(id)
        resolve(m as T)
      })
      child.send({ id, do: what })
    })
  return { port, ask, exit: new Promise((done) => child.once('exit', done)) }
}

/** A connection asking to resume from `since` that never reads: the request as the checkout's channel takes it. */
function hang(port: number, since: number, websocket: boolean): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.pause()
      const upgrade = websocket
        ? `Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n`
        : ''
      socket.write(`GET /__ap/events?since=${since} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${upgrade}\r\n`)
      resolve(socket)
    })
    socket.once('error', reject)
  })
}

async function round(root: string, tmp: string, from: 'oldest' | 'recent'): Promise<{ before: Memory; after: Memory }> {
  const server = await startServer(root, tmp)
  const oldest = (await server.ask<{ since: number }>('seed')).since
  const since = from === 'oldest' ? oldest : oldest + 512 - RECENT
  const before = await server.ask<Memory>('memory')
  const websocket = existsSync(join(root, 'lib', 'http', 'upgrade.ts'))
  const sockets: Socket[] = []
  for (let i = 0; i < CONNECTIONS; i++) sockets.push(await hang(server.port, since, websocket))
  const started = Date.now()
  while ((await server.ask<Memory>('memory')).connections < CONNECTIONS && Date.now() - started < WAIT_MS) {
    await new Promise((r) => setTimeout(r, 500))
  }
  await new Promise((r) => setTimeout(r, SETTLE_MS))
  const after = await server.ask<Memory>('memory')
  for (const s of sockets) s.destroy()
  await server.ask('close')
  await server.exit
  return { before, after }
}

if (!existsSync(join(BEFORE, 'lib', 'http', 'routes.ts'))) throw new Error(`AP_BASELINE=${BEFORE} is no checkout`)
const tmp = mkdtempSync(join(tmpdir(), 'ap-catchup-'))
type Row = { before: Memory; after: Memory }
const mb = (x: number): string => `${(x / MB).toFixed(1)} MB`
try {
  for (const from of ['oldest', 'recent'] as const) {
    const results: Record<'before' | 'after', Row[]> = { before: [], after: [] }
    for (let r = 0; r < ROUNDS; r++) {
      results.before.push(await round(BEFORE, tmp, from))
      results.after.push(await round(AFTER, tmp, from))
    }
    console.log(
      `\n${CONNECTIONS} connections resuming from ${from === 'oldest' ? 'the oldest kept revision (512 changes)' : `${RECENT} changes back`}, not reading; ${ROUNDS} rounds, medians`,
    )
    console.log('version  rss before  rss after   growth      per conn    external after  held open')
    const growth: Record<string, number> = {}
    for (const [version, rows] of Object.entries(results)) {
      const g = median(rows.map((x) => x.after.rss - x.before.rss))
      growth[version] = g
      console.log(
        `${version.padEnd(8)} ${mb(median(rows.map((x) => x.before.rss))).padEnd(11)} ${mb(median(rows.map((x) => x.after.rss))).padEnd(11)} ${mb(g).padEnd(11)} ${`${(g / CONNECTIONS / 1024).toFixed(1)} KB`.padEnd(11)} ${mb(median(rows.map((x) => x.after.external))).padEnd(15)} ${median(rows.map((x) => x.after.connections))}`,
      )
    }
    console.log(`growth after/before: ${(growth.after! / growth.before!).toFixed(3)}×`)
  }
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
