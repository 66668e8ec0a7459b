import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { entryScript } from '../../lib/runtime/entry-script.ts'

afterEach(() => {
  vi.unstubAllEnvs()
})

describe("a thread's or a helper's script", () => {
  it('is the built script beside the running bundle, whatever folder of built scripts is named', () => {
    vi.stubEnv('AGENT_PROFILES_BUILT_DIR', '/elsewhere/dist')
    expect(fileURLToPath(entryScript('store-worker', 'file:///home/u/.dsh/plugins/ap/dist/index.js'))).toBe(
      '/home/u/.dsh/plugins/ap/dist/store-worker.js',
    )
  })

  it('is the source beside the calling source file when no folder of built scripts is named', () => {
    vi.stubEnv('AGENT_PROFILES_BUILT_DIR', '')
    expect(fileURLToPath(entryScript('store-worker', 'file:///repo/lib/store/db/store-thread.ts'))).toBe(
      '/repo/lib/store/db/store-worker.ts',
    )
  })

  it('is the built one from the named folder when the sources run as they are', () => {
    vi.stubEnv('AGENT_PROFILES_BUILT_DIR', '/repo/dist')
    expect(fileURLToPath(entryScript('import-worker', 'file:///repo/lib/http/import-pool.ts'))).toBe(
      '/repo/dist/import-worker.js',
    )
  })
})
