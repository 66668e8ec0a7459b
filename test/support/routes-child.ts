/**
 * The routes over a real store in a process of their own, for the specs that must meet the data as another user
 * would (a read-only data directory: root writes anywhere, so the spec runs this as `nobody`). Run with
 * `node --experimental-strip-types test/support/routes-child.ts <file>`: it opens the store on `<file>`, serves
 * `createHandler` on a free loopback port, prints `port <n>`, and exits when its stdin closes.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHandler } from '../../lib/http/routes.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { routeMeta } from './http.ts'

const [file] = process.argv.slice(2) as [string]
const store = await openStore({ file })
const server = createServer(
  createHandler({
    store,
    preview: (p, s) => renderProfile(p, s),
    meta: () => routeMeta(store),
    trustedHosts: () => [],
    log: { warn: () => {}, error: () => {} },
  }),
)
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`)
process.stdin.resume()
process.stdin.on('end', () => {
  server.closeAllConnections()
  server.close()
  void store.close().then(() => process.exit(0))
})
