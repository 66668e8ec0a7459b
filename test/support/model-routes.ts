/**
 * The routes' handler (lib/http/routes.ts) on a fresh store in a directory of its own, served over node:http on a free
 * loopback port, with the host's model part the spec gives: for the route specs that check what a save asks of that
 * part. The cleanup it registers closes the server and the store and removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHandler } from '../../lib/http/routes.ts'
import type { ModelChoiceApi } from '../../lib/prompt/model-choice.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { httpClient, routeMeta, type HttpClient } from './http.ts'

/** Serve the routes with `models` as the host's model part; `cleanups` gets what ends it. */
export async function serveWithModels(
  models: ModelChoiceApi | undefined,
  cleanups: Array<() => Promise<void>>,
): Promise<{ api: HttpClient; store: ProfileStore }> {
  const dir = mkdtempSync(join(tmpdir(), 'ap-routes-models-'))
  const store = await openStore({ file: join(dir, 'profiles.sqlite') })
  const server: Server = createServer(
    createHandler({
      store,
      preview: (p, s) => renderProfile(p, s),
      meta: () => routeMeta(store),
      trustedHosts: () => [],
      log: { warn() {}, error() {} },
      models: () => models,
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return { api: httpClient((server.address() as AddressInfo).port), store }
}
