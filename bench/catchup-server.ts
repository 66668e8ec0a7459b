/**
 * The server half of bench/catchup.bench.ts, its own process: the routes of the checkout at `<root>` (this one or the
 * baseline's) over node:http with the real store on a temporary directory, the push channel wired as index.ts wires
 * it (an upgrade route when the checkout has one). It seeds the events a page could resume from and answers what its
 * memory is; the clients and the figures live in the bench. Not a `.bench.ts`, so `npm run bench` does not run it.
 *
 * Protocol (IPC): the child sends `{port}` once listening; then `{id, do: 'seed'}` (199 profiles with 64-character
 * ids, then made and deleted one profile until more changes than the channel keeps were saved, each naming the whole
 * order: ~13 KB a change; answers the revision the oldest kept change follows), `{id, do: 'memory'}` (after a GC: rss,
 * heapUsed, external, arrayBuffers in bytes, and the open channels), `{id, do: 'close'}`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import { importProfiles } from './seed-profiles.ts'

const [root, tmp] = process.argv.slice(2) as [string, string]
type Routes = typeof import('../lib/http/routes.ts')
type OpenStore = typeof import('../lib/store/open-store.ts')
type Render = typeof import('../lib/prompt/render.ts')
type Support = typeof import('../test/support/http.ts')
const { createHandler } = (await import(join(root, 'lib/http/routes.ts'))) as Routes
const { openStore } = (await import(join(root, 'lib/store/open-store.ts'))) as OpenStore
const { renderProfile } = (await import(join(root, 'lib/prompt/render.ts'))) as Render
const { routeMeta } = (await import(join(root, 'test/support/http.ts'))) as Support

/** The channel's memory of changes (both versions keep 512). */
const KEEP = 512
const dir = mkdtempSync(join(tmp, 'catchup-'))
const store = await openStore({ file: join(dir, 'profiles.json') })
const handler = createHandler({
  store,
  preview: (p, s) => renderProfile(p, s),
  meta: () => routeMeta(store),
  trustedHosts: () => [],
  log: { warn: (m) => console.warn(m), error: (m) => console.error(m) },
})
const server = createServer(handler)
const upgrade = (handler as { upgrade?: (req: unknown, socket: Duplex, head: Buffer) => void }).upgrade
if (upgrade !== undefined) server.on('upgrade', upgrade)
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }))

async function seed(): Promise<number> {
  await importProfiles(store, 199, (i) => ({ id: `long-profile-id-${String(i).padStart(3, '0')}-${'x'.repeat(44)}` }))
  for (let i = 0; i < KEEP / 2 + 8; i++) {
    const made = (await store.command({
      op: 'profile.create',
      profile: { name: `Passing ${i}` },
    } as never)) as unknown as {
      profile: { id: string }
    }
    await store.command({ op: 'profile.delete', id: made.profile.id } as never)
  }
  return store.revision - KEEP
}

process.on('message', async (m: { id: number; do: 'seed' | 'memory' | 'close' }) => {
  if (m.do === 'seed') process.send!({ id: m.id, since: await seed() })
  else if (m.do === 'memory') {
    globalThis.gc?.()
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
    process.send!({ id: m.id, rss, heapUsed, external, arrayBuffers, connections: handler.events.connections })
  } else {
    handler.events.close()
    server.closeAllConnections()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
    process.send!({ id: m.id })
    process.exit(0)
  }
})
