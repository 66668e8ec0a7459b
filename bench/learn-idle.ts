/**
 * The control of bench/learn-read.ts's probe: `node bench/learn-idle.ts <ms>` runs the same 5 ms timer for that long
 * in a process that reads nothing, and prints one JSON line with its worst wait — what the machine's load alone makes
 * a page's state probe wait, so a read's figure can be told from the load it was taken at.
 */
import { performance } from 'node:perf_hooks'

const ms = Number(process.argv[2])
let worst = 0
let last = performance.now()
const timer = setInterval(() => {
  const now = performance.now()
  worst = Math.max(worst, now - last - 5)
  last = now
}, 5)
await new Promise((resolve) => setTimeout(resolve, ms))
clearInterval(timer)
console.log(JSON.stringify({ wait: worst }))
