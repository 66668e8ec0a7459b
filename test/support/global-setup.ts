/**
 * Runs once before the suite: builds both halves from the current sources, so every end-to-end test boots the plugin
 * exactly as `npm start` would, then bundles the processes the specs start beside themselves (./children.ts). Kept
 * here, not in children.ts, because the jsdom specs import children.ts's helpers and esbuild refuses to load in jsdom.
 */
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
// @ts-expect-error -- plain ESM build script shared with npm scripts; it has no type declarations.
import { build } from '../../scripts/build.mjs'
import { CHILDREN, childrenDir } from './children.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The thread and helper scripts a bundled child starts: a bundle looks for them beside itself (as dist/index.js
 * does), so they are copied from the dist/ just built.
 */
const BESIDE = ['store-worker.js', 'import-worker.js', 'git-helper.js']

export default async function setup(): Promise<void> {
  await build({ minify: true })
  const folder = childrenDir()
  mkdirSync(folder, { recursive: true })
  for (const script of BESIDE) copyFileSync(join(root, 'dist', script), join(folder, script))
  await esbuild.build({
    entryPoints: CHILDREN.map((name) => join(root, 'test', 'support', `${name}.ts`)),
    outdir: folder,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    logLevel: 'warning',
  })
}
