/**
 * The open pages of bench/live.bench.ts's "command p50 with open streams" figure: `live-streams.ts <port> <n>` opens
 * `n` push channels (WebSockets) on the routes server and reads them, at the lowest CPU priority, until told to close; it answers
 * `{open: true}` once all are open and `{bytes}` (what the streams received) when asked. A process of its own, as
 * browser tabs are: reading 50 streams in the process that times the commands would put the readers' work into every
 * sample. Not a `.bench.ts`, so `npm run bench` does not run it alone.
 */
import { setPriority } from 'node:os'
import { openChannel, opened, type Channel } from '../test/support/ws-client.ts'

const [port, count] = process.argv.slice(2).map(Number) as [number, number]
setPriority(19)

const open: Channel[] = []
for (let i = 0; i < count; i++) open.push(opened(await openChannel({ port })))
process.send!({ open: true })
process.on('message', (m: { close?: true }) => {
  if (m.close !== true) {
    process.send!({ bytes: open.reduce((n, c) => n + c.socket.bytesRead, 0) })
    return
  }
  for (const c of open) c.socket.destroy()
  process.exit(0)
})
