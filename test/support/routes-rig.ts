/**
 * The routes' handler (lib/http/routes.ts) over a real store in a fresh temporary directory, served on a free loopback
 * port, one per test: what the route specs split by area (test/http/routes*.spec.ts, as lib/http/ splits its handlers)
 * share. `serveRoutesEachTest()` registers the hooks; the bindings below are the current test's (ES module exports
 * are live, so a spec reads the value its test set up). A spec swaps the preview or the meta provider through
 * `overrides`, reset before each test. It asserts nothing but the two soundness checks it names.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect } from 'vitest'
import { asStored, stateOf } from '../../lib/provenance/provenance.ts'
import type { RouteDeps } from '../../lib/http/route-kit.ts'
import { createHandler } from '../../lib/http/routes.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import type { Profile } from '../../lib/state/model.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { state as validState } from '../../lib/validate/state.ts'
import { httpClient, routeMeta, type HttpClient } from './http.ts'

/** The current test's directory (the store's file is `profiles.json` in it). */
export let dir: string
/** The current test's store. */
export let store: ProfileStore
/** A client of the current test's server. */
export let api: HttpClient
/** What the routes logged in the current test. */
export let logs: { warn: string[]; error: string[] }
/** Replacements of the preview renderer and the meta provider for the current test; empty at its start. */
export const overrides: { preview?: RouteDeps['preview']; meta?: RouteDeps['meta'] } = {}

let server: Server

/** Serve the routes afresh before each test of the calling spec file, and tear them down after it. */
export function serveRoutesEachTest(): void {
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ap-routes-'))
    store = await openStore({ file: join(dir, 'profiles.json') })
    logs = { warn: [], error: [] }
    delete overrides.preview
    delete overrides.meta
    const deps: RouteDeps = {
      store,
      preview: (p, s) => (overrides.preview ?? renderProfile)(p, s),
      meta: () => (overrides.meta ?? (() => routeMeta(store)))(),
      trustedHosts: () => ['lan.example'],
      log: { warn: (m) => logs.warn.push(m), error: (m) => logs.error.push(m) },
    }
    server = createServer(createHandler(deps))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    api = httpClient((server.address() as AddressInfo).port)
  })
  afterEach(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
}

/** The state is valid by the store's own rules, and what is on disk is exactly what is in memory. */
export async function expectSoundState(): Promise<void> {
  expect(() =>
    stateOf(validState(JSON.parse(JSON.stringify(store.state)), 'state'), 'state', asStored(0)),
  ).not.toThrow()
  const again = await openStore({ file: store.file })
  try {
    expect(again.lastError).toBeNull()
    expect(again.state).toEqual(store.state)
  } finally {
    await again.close()
  }
}

/** The current store's profile `id`; throws when there is none. */
export function profileById(id: string): Profile {
  const p = store.state.profiles.find((x) => x.id === id)
  if (p === undefined) throw new Error(`no profile ${id}`)
  return p
}
