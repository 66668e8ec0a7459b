#!/usr/bin/env node
/**
 * Builds both halves with esbuild: the host half as one ESM file (`dist/index.js`) with the import worker's thread
 * beside it (`dist/import-worker.js`, found by lib/http/import-pool.ts next to the bundle), the store's worker thread
 * (`dist/store-worker.js`, found by lib/store/db/store-thread.ts) and the git helper process (`dist/git-helper.js`,
 * found by lib/sync/git-host.ts), and the browser half as the host's
 * lazy-CJS factory artifact (`dist/client.js`: `window.__ModuleLoader__.load` with a factory that receives the
 * host's `require`). Fails on any value import of a dsh package that the
 * half may not bundle, so a stray import shows here rather than as a blank page or a pending entry at run time.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/** What the browser's module table answers (the host's seed table); everything else must be bundled. */
export const CLIENT_EXTERNALS = [
  'react',
  'react/jsx-runtime',
  'react-dom',
  'react-dom/client',
  '@deepseek-ai/cordis',
  '@deepseek-ai/dsh-client-ui-slots',
  '@deepseek-ai/dsh-client-ui-primitives',
  '@deepseek-ai/dsh-client-runtime/client',
]

/**
 * An esbuild plugin that keeps `half`'s bundle from importing any `@deepseek-ai/` package but those `allowed`.
 * @param {string} half
 * @param {readonly string[]} allowed
 * @returns {import('esbuild').Plugin}
 */
function fence(half, allowed) {
  return {
    name: `${half}-import-fence`,
    setup(build) {
      build.onResolve({ filter: /^@deepseek-ai\// }, (args) => {
        if (allowed.includes(args.path)) return { path: args.path, external: true }
        return {
          errors: [
            {
              text: `${half} half: value import of ${args.path} is not allowed (use \`import type\` and reach it through ctx)`,
            },
          ],
        }
      })
    },
  }
}

/**
 * The host half's entries: the plugin, the import worker's thread, the store's worker thread (a backup's copy, the
 * database's creation, the integrity check) and the git helper process, which must sit beside it in dist/.
 */
const HOST_ENTRIES = [
  ['lib/index.ts', 'dist/index.js'],
  ['lib/http/import-worker.ts', 'dist/import-worker.js'],
  ['lib/store/db/store-worker.ts', 'dist/store-worker.js'],
  ['lib/sync/git-helper.ts', 'dist/git-helper.js'],
]

export async function build({ minify = true } = {}) {
  await Promise.all([
    ...HOST_ENTRIES.map(([entry, out]) =>
      esbuild.build({
        entryPoints: [join(root, entry)],
        outfile: join(root, out),
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node22',
        sourcemap: true,
        logLevel: 'warning',
        plugins: [fence('host', [])],
        // Bundled CommonJS dependencies (write-file-atomic) call require() and read __filename.
        banner: {
          js: "import { createRequire as __apRequire } from 'node:module'; import { fileURLToPath as __apPath } from 'node:url'; const require = __apRequire(import.meta.url); const __filename = __apPath(import.meta.url);",
        },
      }),
    ),
    esbuild.build({
      entryPoints: [join(root, 'lib/client/index.ts')],
      outfile: join(root, 'dist/client.js'),
      bundle: true,
      format: 'cjs',
      platform: 'browser',
      target: 'es2022',
      jsx: 'automatic',
      sourcemap: true,
      minify,
      logLevel: 'warning',
      plugins: [fence('browser', CLIENT_EXTERNALS)],
      external: CLIENT_EXTERNALS,
      define: { 'process.env.NODE_ENV': '"production"' },
      banner: {
        js: `window.__ModuleLoader__.load({ id: ${JSON.stringify(pkg.name)}, factory: (require) => {\nvar module = { exports: {} }; var exports = module.exports;`,
      },
      footer: { js: 'return module.exports; } });' },
    }),
  ])
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build({ minify: !process.argv.includes('--dev') })
  console.log('built dist/index.js, dist/import-worker.js, dist/store-worker.js, dist/git-helper.js and dist/client.js')
}
