/**
 * One implementation of the store in a process of its own, for the store benchmark: `store-worker.ts <checkout>
 * <data file> <settings>` opens that checkout's store on the file (already seeded), saying how long that took (the first
 * open moves the data file into the database), then answers each message `{clients, each}` with the latency (ms) of
 * every command it ran, `{reopen: true}` with how long closing the store and loading the database again took, and
 * `{reply: true}` with the state reply's bytes.
 * A process each, so that one implementation's timers and garbage never land in the other's figures.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { userEdits } from './store-commands.ts'

const [root, file, settings] = process.argv.slice(2) as [string, string, string]
const sessions = Number(settings)
// The code before keeps its modules flat in lib/; this checkout in folders; the first of `paths` the checkout has.
const module = (...paths: string[]) => join(root, paths.find((p) => existsSync(join(root, p))) ?? paths.at(-1)!)
const { openStore } = (await import(module('lib/store/open-store.ts', 'lib/store/store.ts', 'lib/store.ts'))) as {
  openStore(o: { file: string }): Promise<{ command(c: unknown): Promise<unknown>; close?(): Promise<void> }>
}
const { wireStateBytes } = (await import(module('lib/http/wire.ts', 'lib/wire.ts'))) as {
  wireStateBytes(s: unknown): Buffer
}
const opened = performance.now()
let store = await openStore({ file })
const migrated = performance.now() - opened

const nextCommand = userEdits(sessions)

async function clients(count: number, each: number): Promise<number[]> {
  const times: number[] = []
  await Promise.all(
    Array.from({ length: count }, async () => {
      for (let i = 0; i < each; i++) {
        const t0 = performance.now()
        await store.command(nextCommand())
        times.push(performance.now() - t0)
      }
    }),
  )
  return times
}

/** Close the store and open it again (the code before has no close: undefined), in ms. */
async function reopen(): Promise<number | undefined> {
  if (store.close === undefined) return undefined
  await store.close()
  const t0 = performance.now()
  store = await openStore({ file })
  return performance.now() - t0
}

// Warm up: the first save of the code before rewrites its snapshot with the avatars moved out.
await clients(1, 30)
process.on('message', (m: { clients?: number; each?: number; reply?: boolean; reopen?: boolean }) => {
  if (m.reply === true) process.send!({ bytes: wireStateBytes(store).length })
  else if (m.reopen === true) void reopen().then((ms) => process.send!({ ms }))
  else void clients(m.clients!, m.each!).then((times) => process.send!({ times }))
})
process.send!({ ready: true, migrated })
