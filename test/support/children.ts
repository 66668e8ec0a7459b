/**
 * The processes the specs start beside themselves (test/support/*-child.ts: other writers, SIGKILL victims, a reader
 * as another user). The global setup bundles each once per run, so a child starts as the plugin's own threads do in
 * the suite: run from source, each child would first strip the types of the ~60 modules it loads (~0.4 s of CPU a
 * start; the crash and index specs start dozens).
 */
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const CHILDREN = ['store-child', 'index-child', 'kinds-child', 'reterm-child', 'routes-child'] as const
type Child = (typeof CHILDREN)[number]

const root = fileURLToPath(new URL('../..', import.meta.url))
const folder = join(root, 'test-artifacts', 'children')

/**
 * The thread and helper scripts a bundled child starts: a bundle looks for them beside itself (as dist/index.js
 * does), so they are copied from the dist/ the global setup built just before.
 */
const BESIDE = ['store-worker.js', 'import-worker.js', 'git-helper.js']

/** Bundle every child into test-artifacts/children/, beside copies of the scripts they start. */
export async function buildChildren(): Promise<void> {
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

/** The arguments `node` takes to run child `name` with `args`. */
export function childArgs(name: Child, ...args: string[]): string[] {
  return ['--no-warnings', join(folder, `${name}.js`), ...args]
}
