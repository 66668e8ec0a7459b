/**
 * Set-up of every jsdom spec (vitest.config.ts's jsdom project): after each test, whatever it mounted is unmounted
 * and whatever it stubbed (`fetch` above all) is restored, so no test sees the last one's page or host. A spec with
 * more to tear down (drafts, locale bindings) still does that in its own afterEach, which runs first.
 */
import * as timers from 'node:timers'
import { afterEach, vi } from 'vitest'
import { cleanup } from './dom.tsx'

// These files run in a VM context of their own (vitest.config.ts says why), whose globals are jsdom's window's. The
// host half many of them run beside the page needs what Node gives its own context: timers that can be unref'd, and
// the disposal symbols of `using` (Node 22 makes them registered symbols, the same in every context).
Object.assign(globalThis, {
  setTimeout: timers.setTimeout,
  clearTimeout: timers.clearTimeout,
  setInterval: timers.setInterval,
  clearInterval: timers.clearInterval,
})
for (const name of ['dispose', 'asyncDispose'] as const)
  if (Symbol[name] === undefined) Object.defineProperty(Symbol, name, { value: Symbol.for(`nodejs.${name}`) })

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
})
