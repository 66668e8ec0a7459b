/**
 * The other process of the store benchmark's visibility figure: a store of its own on the data file named by argv,
 * which, each time it is told a revision, reads the state at once and answers when it saw that revision.
 */
import { performance } from 'node:perf_hooks'
import { openStore } from '../lib/store/open-store.ts'

const store = await openStore({ file: process.argv[2]! })
process.send!({ ready: true })
process.on('message', (m: { revision: number }) => {
  // The read a prompt assembly or a state request makes; it must already hold the other process's commit.
  const seen = store.state !== undefined && store.revision >= m.revision
  process.send!({ at: seen ? performance.timeOrigin + performance.now() : Number.NaN })
})
