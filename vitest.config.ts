import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Node specs and jsdom specs (`*.client.spec.tsx`, under test/client/) run as two projects of one run; the e2e specs
// (test/e2e/) boot the real dsh, so the node project's timeouts are long. test/support/ holds helpers, no specs.
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // The plugin's worker threads and helper processes start from the dist/ the global setup has just built from
    // these sources, not from the sources themselves (lib/runtime/entry-script.ts says why).
    env: { AGENT_PROFILES_BUILT_DIR: fileURLToPath(new URL('./dist', import.meta.url)) },
    reporters: ['default'],
    // Two files at a time on CI's two cores: an e2e file spends most of its time waiting on dsh and Chromium.
    maxWorkers: 2,
    minWorkers: 1,
    // The jsdom files' thread runs beside the two workers of the node files (vitest runs each pool at once).
    poolOptions: { vmThreads: { maxThreads: 1, minThreads: 1 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.spec.ts'],
          exclude: ['test/**/*.client.spec.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'jsdom',
          environment: 'jsdom',
          include: ['test/**/*.client.spec.tsx', 'test/**/*.client.spec.ts'],
          setupFiles: ['test/support/client-setup.ts'],
          testTimeout: 30_000,
          // Each file in a VM context of one long-lived thread, instead of a process of its own that loads jsdom,
          // React and the page's code again: these 61 files took a third of the processor time (72 s against 199 s
          // at load ~15). client-setup.ts gives the context what the host half beside the page needs of Node.
          pool: 'vmThreads',
        },
      },
    ],
  },
})
