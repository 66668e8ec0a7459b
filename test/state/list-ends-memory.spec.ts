/**
 * A marked list keeps only the few lists it was made from (lib/state/list-ends.ts): the mark of each save's list
 * names the list before it, and that one's mark the one before that, so without a bound the newest list of memory kept
 * every earlier version of it alive for as long as dsh ran (80 KB of pointers a version at 10,000 items, and every
 * item an edit or delete replaced).
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { expect, it } from 'vitest'
import { markAppended, markSpliced } from '../../lib/state/list-ends.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

it('lets the versions of a list many saves ago be collected while the newest is in use', async () => {
  let list: { id: string }[] = Array.from({ length: 1_000 }, (_, i) => ({ id: `m${i}` }))
  const first = new WeakRef(list)
  for (let i = 0; i < 50; i++) {
    const next = i % 2 === 0 ? [...list, { id: `n${i}` }] : [...list]
    if (i % 2 === 0) markAppended(list, next)
    else {
      next.splice(3, 1)
      markSpliced(list, next, 3, 1, 0)
    }
    list = next
  }
  // Collected only once nothing reaches it: the newest list is still here and in use.
  await new Promise((resolve) => setImmediate(resolve))
  gc()
  expect(list.length).toBe(1_000)
  expect(first.deref()).toBeUndefined()
})
