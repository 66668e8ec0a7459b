/**
 * The other process of bench/live.bench.ts's cross-process figure: opens the store on the data file it is given (the
 * one a running `dsh web` uses) and, per request, renames a profile and answers when that commit is durable, stamped
 * with this machine's clock. It only writes; the figure lives in the bench. Not a `.bench.ts`, so `npm run bench`
 * does not run it alone.
 */
import { performance } from 'node:perf_hooks'
import { openStore } from '../lib/store/open-store.ts'

const store = await openStore({ file: process.argv[2]! })
process.send!({ ready: true })
process.on('message', async (m: { id: string; name: string } | { close: true }) => {
  if ('close' in m) {
    await store.close()
    process.exit(0)
  }
  await store.command({ op: 'profile.update', id: m.id, patch: { name: m.name } })
  process.send!({ at: performance.timeOrigin + performance.now() })
})
