/**
 * The control of bench/learn-read.ts's probe: `node bench/learn-idle.ts <ms>` runs the same 5 ms timer for that long
 * in a process that reads nothing, and prints one JSON line with its worst wait — what the machine's load alone makes
 * a page's state probe wait, so a read's figure can be told from the load it was taken at.
 */
import { startWaitProbe } from './wait-probe.ts'

const ms = Number(process.argv[2])
const stop = startWaitProbe()
await new Promise((resolve) => setTimeout(resolve, ms))
console.log(JSON.stringify({ wait: stop() }))
