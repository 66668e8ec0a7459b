/**
 * The pacing of the store's background jobs that walk the database in bounded steps on the event loop (the index's
 * re-terming and merging, index-job.ts; the fills of the item columns and text keys, fill-job.ts): one step after a pause, then the next, so
 * that turns and commands run between steps, until a step says it is the last or the job is stopped. It owns the
 * timer only; what a step does, and what a failure means, is the job's.
 */

/** Time before the first step and between steps: the start and a first turn come first. */
const STEP_MS = 50

/**
 * Run `step` after {@link STEP_MS}, and again after each step that answers true; returns a function that stops it
 * (a step under way ends first: they are synchronous). The timer keeps no process alive.
 */
export function everyStep(step: () => boolean): () => void {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const next = () => {
    timer = setTimeout(() => {
      timer = undefined
      if (!stopped && step()) next()
    }, STEP_MS)
    timer.unref()
  }
  next()
  return () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
  }
}
