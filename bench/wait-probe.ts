/**
 * The probe bench/learn-read.ts and its control bench/learn-idle.ts run on their event loop: a 5 ms timer whose
 * worst lateness is what a page's state request would have waited meanwhile.
 */
import { performance } from 'node:perf_hooks'

/** Start the timer; the function returned stops it and answers the worst wait, in milliseconds. */
export function startWaitProbe(): () => number {
  let worst = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last - 5)
    last = now
  }, 5)
  return () => {
    clearInterval(timer)
    return worst
  }
}
