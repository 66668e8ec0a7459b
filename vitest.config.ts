import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * Node spec files that cannot run in a VM context, each in a process of its own: model-key loads the pi-ai model
 * package, whose modules link across contexts ("Linked modules must use the same context"); routes-command's large
 * import has its body parsed on a worker thread, whose answer arrives as objects of the process's own realm, which
 * the plain-object check of a VM context's code rightly refuses; import-batches measures what an import leaves in the
 * heap, which in a process shared with the files before it also moved with what they left (two of its cases failed
 * in a full run by +3 and +6 MB and passed alone); import-append measures what the host's heap holds during one;
 * run-heap samples every large object allocated during a sync run, which another file's work left running in a
 * shared process could allocate meanwhile.
 */
const NEEDS_A_PROCESS = [
  'test/prompt/model-key.spec.ts',
  'test/http/routes-command.spec.ts',
  'test/store/import-batches.spec.ts',
  'test/store/import-append.spec.ts',
  'test/sync/run-heap.spec.ts',
]

// Node specs and jsdom specs (`*.client.spec.tsx`, under test/client/) run as projects of one run; the e2e specs
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
    // A node worker whose heap passed 1 GB after a file (what a file leaves reachable stays) is replaced by a new one.
    poolOptions: { vmThreads: { maxThreads: 1, minThreads: 1 }, vmForks: { memoryLimit: '1GB' } },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.spec.ts'],
          exclude: ['test/**/*.client.spec.ts', ...NEEDS_A_PROCESS],
          setupFiles: ['test/support/vm-context.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Each file in a VM context of two long-lived processes, not a process of its own: a run's node files spent
          // ~700 of their ~2,250 worker-seconds starting a process and loading the runner before a test ran (the last
          // full run had one worker or none running a test for 595 of its 1,127 s). Module state and `vi.mock` stay
          // per file; process-wide state (the environment, open handles) is each file's to restore, as it already is.
          pool: 'vmForks',
        },
      },
      {
        extends: true,
        test: {
          name: 'node-process',
          environment: 'node',
          include: NEEDS_A_PROCESS,
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
          setupFiles: ['test/support/vm-context.ts', 'test/support/client-setup.ts'],
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
