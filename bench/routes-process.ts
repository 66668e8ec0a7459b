/**
 * The routes server (bench/routes-server.ts) started as its own process, as dsh is for a browser, and a client of it:
 * its port, an HTTP client, the IPC requests it answers and its CPU time. Shared by the routes and live benchmarks.
 * Not a `.bench.ts`, so `npm run bench` does not run it alone.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { httpClient, type HttpClient } from '../test/support/http.ts'
import type { ServerRequest } from './routes-server.ts'

const SERVER = join(fileURLToPath(import.meta.url), '..', 'routes-server.ts')

export type Ask =
  | { do: 'seed'; profiles: number }
  | { do: 'cpu' }
  | { do: 'direct'; clients: number; perClient: number }
  | { do: 'close' }

/** A server process and a client of it. */
export interface Server {
  port: number
  api: HttpClient
  ask(request: Ask): Promise<Record<string, unknown>>
  /** The server's CPU time (user + system) so far, in microseconds. */
  cpu(): Promise<number>
  close(): Promise<void>
}

/**
 * Start `routes-server.ts <mode> <arg>` (this checkout's, or `script`: another checkout's) with this process's Node
 * flags plus `execArgv` (a CPU profile, say).
 */
export async function startServer(
  mode: 'routes' | 'floor',
  arg: string,
  options: { script?: string; execArgv?: string[] } = {},
): Promise<Server> {
  const child: ChildProcess = fork(options.script ?? SERVER, [mode, arg], {
    execArgv: [...process.execArgv, ...(options.execArgv ?? [])],
    stdio: 'inherit',
  })
  const pending = new Map<number, (reply: Record<string, unknown>) => void>()
  let next = 0
  const port = await new Promise<number>((resolvePort, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`routes-server ${mode} exited with ${code}`)))
    child.on('message', (m: Record<string, unknown>) => {
      if (typeof m.port === 'number') resolvePort(m.port)
      else pending.get(m.id as number)?.(m)
    })
  })
  const ask = (request: Ask) =>
    new Promise<Record<string, unknown>>((done) => {
      const id = next++
      pending.set(id, (reply) => {
        pending.delete(id)
        done(reply)
      })
      child.send({ ...request, id } satisfies ServerRequest)
    })
  return {
    port,
    api: httpClient(port),
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
