/**
 * One read of an export in the import worker of a checkout, in a process of its own (bench/learn.bench.ts runs it):
 * `node bench/learn-read.ts <checkout> <zip file>` prints one JSON line — the read's time, the process's peak
 * resident memory (the worker thread included), and the worst wait of a 5 ms timer on this event loop from the start
 * of the read until the answer has arrived and been handed over (what a page's state probe would wait) — or why the
 * export was refused. A fresh process a run, so one checkout's garbage never weighs on the other's figure.
 */
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const [root, file] = process.argv.slice(2)
const { ImportPool } = (await import(`${root}/lib/http/import-pool.ts`)) as typeof import('../lib/http/import-pool.ts')
const zip = new Uint8Array(readFileSync(file!))
const pool = new ImportPool()
const rssBefore = process.memoryUsage.rss()
let worst = 0
let last = performance.now()
const timer = setInterval(() => {
  const now = performance.now()
  worst = Math.max(worst, now - last - 5)
  last = now
}, 5)
const started = performance.now()
const read = await pool.readExport(zip)
const ms = performance.now() - started
// The answer's arrival (its copy onto this loop) ends just before the read resolves: one more timer tick counts it.
await new Promise((resolve) => setTimeout(resolve, 20))
clearInterval(timer)
await pool.close()
const conversations = read.ok ? read.export.conversations.length : 0
const messages = read.ok ? read.export.conversations.reduce((n, c) => n + c.messages.length, 0) : 0
console.log(
  JSON.stringify({
    ms,
    wait: worst,
    peakMb: (process.resourceUsage().maxRSS * 1024) / 1048576,
    beforeMb: rssBefore / 1048576,
    conversations,
    messages,
    error: read.ok ? undefined : read.error,
  }),
)
