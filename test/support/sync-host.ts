/**
 * The plugin's routes on a loopback port over a real store and the real sync part, in a fresh temporary directory:
 * what the sync route specs and the Sync section's spec talk to. The sync part never runs on its own here (its
 * debounce and interval are a minute); a spec asks it through the routes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHandler } from '../../lib/http/routes.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { installSync, type SyncPart } from '../../lib/sync/install.ts'
import { routeMeta } from './http.ts'

/** One host of the sync routes; `close` stops the sync part and the server, closes the store and removes the folder. */
export interface SyncHost {
  dir: string
  store: ProfileStore
  part: SyncPart
  port: number
  close(): Promise<void>
}

/** Start a sync host in a new folder named after `prefix`. */
export async function syncHost(prefix: string): Promise<SyncHost> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const store = await openStore({ file: join(dir, 'data', 'profiles.sqlite') })
  const log = { warn: () => undefined, error: () => undefined }
  const part = installSync(store, log, { debounceMs: 60_000, intervalMs: 60_000 })
  const server: Server = createServer(
    createHandler({
      store,
      preview: (p, s) => renderProfile(p, s),
      meta: () => routeMeta(store),
      trustedHosts: () => [],
      log,
      sync: () => part,
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    dir,
    store,
    part,
    port: (server.address() as AddressInfo).port,
    async close() {
      await part.stop()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
