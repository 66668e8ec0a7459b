/**
 * The git processes a turn stops (lib/sync/git-pause.ts): stopped when turns begin and continued when they end, only
 * those running when the turns began, and never stopped for more than the bound in all, so a sync still finishes
 * however often turns come. Fake processes and fake timers: what is counted is each stop and go, not a time.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { endGit, pauseGit, PAUSE_LIMIT_MS, track } from '../../lib/sync/git-pause.ts'

afterEach(() => {
  pauseGit(false)
  vi.useRealTimers()
})

/** A fake running git process group that notes what is done to it. */
function group() {
  const did: string[] = []
  const untrack = track({ stop: () => did.push('stop'), go: () => did.push('go'), end: () => did.push('end') })
  return { did, untrack }
}

it('stops the groups running when turns begin, continues them when they end, and leaves later ones running', () => {
  const a = group()
  pauseGit(true)
  const b = group()
  pauseGit(true)
  expect(a.did).toEqual(['stop'])
  expect(b.did).toEqual([])
  pauseGit(false)
  expect(a.did).toEqual(['stop', 'go'])
  expect(b.did).toEqual([])
  a.untrack()
  b.untrack()
})

it('keeps a group stopped for the bound in all, however many turns come', async () => {
  vi.useFakeTimers()
  const a = group()
  pauseGit(true)
  await vi.advanceTimersByTimeAsync(PAUSE_LIMIT_MS - 1_000)
  pauseGit(false)
  expect(a.did).toEqual(['stop', 'go'])
  // The next turns may keep it stopped for what is left of the bound, then it goes on while they still run.
  pauseGit(true)
  await vi.advanceTimersByTimeAsync(999)
  expect(a.did).toEqual(['stop', 'go', 'stop'])
  await vi.advanceTimersByTimeAsync(1)
  expect(a.did).toEqual(['stop', 'go', 'stop', 'go'])
  pauseGit(false)
  pauseGit(true)
  expect(a.did).toEqual(['stop', 'go', 'stop', 'go'])
  a.untrack()
})

it('ends every group, stopped or not, when the helper ends', () => {
  const a = group()
  pauseGit(true)
  const b = group()
  endGit()
  expect(a.did).toEqual(['stop', 'end'])
  expect(b.did).toEqual(['end'])
  a.untrack()
  b.untrack()
})
