/**
 * A run reads the user's environment once (#41): each git call of a run used to read and filter `process.env` again,
 * ~0.15 ms and ~40 KB of garbage a call on the host's thread, half of what a run of one saved fact allocated there,
 * which a turn beside the run then collected. The environment is read at the run's start, so a variable the user sets
 * between runs (an ssh agent started since) still reaches the next run's git. With the real system git and store.
 */
import { afterEach, expect, it } from 'vitest'
import { syncWorld } from '../support/sync-machines.ts'

const world = syncWorld()
const real = process.env
afterEach(() => {
  process.env = real
})

/** Run `job` with `process.env` counting how often its variables are listed; answers the count. */
async function listings(job: () => Promise<unknown>): Promise<number> {
  let count = 0
  process.env = new Proxy(real, {
    ownKeys(target) {
      count++
      return Reflect.ownKeys(target)
    },
  })
  try {
    await job()
  } finally {
    process.env = real
  }
  return count
}

it('reads the environment once a run of a saved fact, and again at the next run', async () => {
  const remote = await world.remote()
  const a = await world.machine(remote)
  expect((await a.engine.now()).error).toBeUndefined()
  for (const run of [1, 2]) {
    await a.store.command({
      op: 'memory.add',
      target: { profileId: 'coder' },
      items: [{ text: `第 ${run} 条新事实`, source: 'tool' }],
    })
    let status: Awaited<ReturnType<typeof a.engine.now>> | undefined
    // Fetch, refs, the commit's blobs, tree and commit, refs again, push: a dozen git calls, one listing.
    expect(await listings(async () => (status = await a.engine.now()))).toBe(1)
    expect(status?.error).toBeUndefined()
    expect(status?.lastPushSubject).toContain('memory: +1')
  }
})
