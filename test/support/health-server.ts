/**
 * The routes' handler over one real store, served on a free loopback port with the plugin's meta of the data's
 * health (`meta.data`: read-only, rows set aside, a salvage, the integrity check), for the specs of what a damaged
 * or checked data file shows in replies. It asserts nothing.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHandler } from '../../lib/http/routes.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { httpClient, routeMeta, type HttpClient } from './http.ts'

/** Serve the routes over `store`; `close()` stops the server (the store is the caller's). */
export async function serveHealth(store: ProfileStore): Promise<{ api: HttpClient; close(): void }> {
  const server: Server = createServer(
    createHandler({
      store,
      preview: (p, s) => renderProfile(p, s),
      meta: () => ({ ...routeMeta(store), data: store.health }),
      trustedHosts: () => [],
      log: { warn: () => {}, error: () => {} },
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    api: httpClient((server.address() as AddressInfo).port),
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}
