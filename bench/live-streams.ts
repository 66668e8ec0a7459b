/**
 * The open pages of bench/live.bench.ts's "command p50 with open streams" figure: `live-streams.ts <port> <n>` opens
 * `n` event streams on the routes server and reads them, at the lowest CPU priority, until told to close; it answers
 * `{open: true}` once all are open and `{bytes}` (what the streams received) when asked. A process of its own, as
 * browser tabs are: reading 50 streams in the process that times the commands would put the readers' work into every
 * sample. Not a `.bench.ts`, so `npm run bench` does not run it alone.
 */
import { Agent, request, type IncomingMessage } from 'node:http'
import { setPriority } from 'node:os'

const [port, count] = process.argv.slice(2).map(Number) as [number, number]
setPriority(19)

const agent = new Agent({ keepAlive: true, maxSockets: count + 1 })
const open: IncomingMessage[] = []
let bytes = 0
await Promise.all(
  Array.from(
    { length: count },
    () =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/__ap/events', agent, headers: { host: `127.0.0.1:${port}` } },
          (res) => {
            if (res.statusCode !== 200) reject(new Error(`event stream answered ${res.statusCode}`))
            open.push(res)
            res.on('data', (chunk: Buffer) => {
              bytes += chunk.length
            })
            resolve()
          },
        )
        req.on('error', reject)
        req.end()
      }),
  ),
)
process.send!({ open: true })
process.on('message', (m: { close?: true }) => {
  if (m.close !== true) {
    process.send!({ bytes })
    return
  }
  for (const res of open) res.destroy()
  agent.destroy()
  process.exit(0)
})
