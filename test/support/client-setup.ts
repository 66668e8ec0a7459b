/**
 * Set-up of every jsdom spec (vitest.config.ts's jsdom project): after each test, whatever it mounted is unmounted
 * and whatever it stubbed (`fetch` above all) is restored, so no test sees the last one's page or host. A spec with
 * more to tear down (drafts, locale bindings) still does that in its own afterEach, which runs first.
 */
import * as timers from 'node:timers'
import { afterEach, vi } from 'vitest'
import { cleanup } from './dom.tsx'

// These files run in a VM context of their own (vitest.config.ts says why), whose globals are jsdom's window's. The
// host half many of them run beside the page needs the timers Node gives its own context, which can be unref'd.
Object.assign(globalThis, {
  setTimeout: timers.setTimeout,
  clearTimeout: timers.clearTimeout,
  setInterval: timers.setInterval,
  clearInterval: timers.clearInterval,
})

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
})
