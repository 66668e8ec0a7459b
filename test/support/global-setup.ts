/**
 * Runs once before the suite: builds both halves from the current sources, so every end-to-end test boots the plugin
 * exactly as `npm start` would, then bundles the processes the specs start beside themselves (./children.ts). Kept
 * here, not in children.ts, because the jsdom specs import children.ts's helpers and esbuild refuses to load in jsdom.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
// @ts-expect-error -- plain ESM build script shared with npm scripts; it has no type declarations.
import { build } from '../../scripts/build.mjs'
import { CHILDREN, childrenDir } from './children.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

export default async function setup(): Promise<void> {
  await build({ minify: true })
  const folder = childrenDir()
  mkdirSync(folder, { recursive: true })
  // A bundled child finds the thread and helper scripts it starts beside itself (as dist/index.js does): every script
  // of the dist/ just built is copied there, so a thread scripts/build.mjs adds needs no list kept here.
  const dist = join(root, 'dist')
  for (const script of readdirSync(dist))
    if (script.endsWith('.js')) copyFileSync(join(dist, script), join(folder, script))
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
