/**
 * Set-up of every jsdom spec (vitest.config.ts's jsdom project): after each test, whatever it mounted is unmounted
 * and whatever it stubbed (`fetch` above all) is restored, so no test sees the last one's page or host. A spec with
 * more to tear down (drafts, locale bindings) still does that in its own afterEach, which runs first.
 */
import { afterEach, vi } from 'vitest'
import { cleanup } from './dom.tsx'

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
})
