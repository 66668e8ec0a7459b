/**
 * A run of one saved fact never makes the memory file one string on the host's heap (#41). A memory file of
 * thousands of items is hundreds of KB; made one string (joined, then flattened to be hashed, compared and sent to
 * git) it was allocated whole in V8's old generation at every saved fact, and that set off a full collection every
 * ~10 runs, on the host's thread and its helper threads, while a turn ran beside the run. With the real system git and
 * store; the heap's allocations sampled by V8's own profiler, the collected ones included.
 */
import { Session } from 'node:inspector/promises'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { syncWorld } from '../support/sync-machines.ts'

const world = syncWorld()
const session = new Session()
beforeEach(() => session.connect())
afterEach(() => session.disconnect())

/** Items in the profile: a memory file of ~400 KB. */
const ITEMS = 5_000

/** A sampled allocation: its size in bytes and the function that made it. */
interface Allocation {
  size: number
  by: string
}

interface SamplingNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children: SamplingNode[]
}

/**
 * Every object of `min` bytes or more that `job` allocated on this process's heap, collected since or not (V8 samples
 * every allocation as large as its interval, so none of these is missed).
 */
async function largeAllocations(job: () => Promise<unknown>, min: number): Promise<Allocation[]> {
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: min / 4,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  let ran: unknown
  try {
    await job()
  } catch (e) {
    ran = e
  }
  // Typed here: Node's protocol types leave out the nodes' ids and the samples.
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as {
    profile: { head: SamplingNode; samples: { size: number; nodeId: number }[] }
  }
  if (ran !== undefined) throw ran
  const by = new Map<number, string>()
  const walk = (n: SamplingNode, at: string) => {
    const here =
      n.callFrame.functionName === ''
        ? at
        : `${n.callFrame.functionName} (${n.callFrame.url}:${n.callFrame.lineNumber})`
    by.set(n.id, here)
    for (const c of n.children) walk(c, here)
  }
  walk(profile.head, '')
  return profile.samples.filter((s) => s.size >= min).map((s) => ({ size: s.size, by: by.get(s.nodeId) ?? '' }))
}

it('commits a saved fact among 5,000 without making one string of the memory file', async () => {
  const remote = await world.remote()
  const a = await world.machine(remote)
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    text: `第 ${i} 条：用户在长期项目里反复用到的约定 ${i % 97}`,
  }))
  for (let i = 0; i < ITEMS; i += 1_000)
    await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: items.slice(i, i + 1_000) })
  expect((await a.engine.now()).error).toBeUndefined()
  await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '新的一条事实' }] })
  let status: Awaited<ReturnType<typeof a.engine.now>> | undefined
  // A quarter of the memory file's characters: the file whole, as a string (two bytes a character here), is 8 times that.
  const large = await largeAllocations(async () => (status = await a.engine.now()), (ITEMS * 70) / 4)
  expect(status?.error).toBeUndefined()
  expect(status?.lastPushSubject).toContain('memory: +1')
  expect(large).toEqual([])
})
