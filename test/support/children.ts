/**
 * The processes the specs start beside themselves (test/support/*-child.ts: other writers, SIGKILL victims, a reader
 * as another user). The global setup bundles each once per run (./global-setup.ts), so a child starts as the
 * plugin's own threads do in the suite: run from source, each child would first strip the types of the ~60 modules
 * it loads (~0.4 s of CPU a start; the crash and index specs start dozens).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const CHILDREN = ['store-child', 'index-child', 'kinds-child', 'reterm-child', 'routes-child'] as const
type Child = (typeof CHILDREN)[number]

/**
 * Where the bundles are, beside copies of the thread scripts they start. Asked for, not a constant: a jsdom spec that
 * imports this file's neighbours loads it under a page URL, which is not a file path.
 */
export const childrenDir = (): string =>
  join(fileURLToPath(new URL('../..', import.meta.url)), 'test-artifacts', 'children')

/** The arguments `node` takes to run child `name` with `args`. */
export function childArgs(name: Child, ...args: string[]): string[] {
  return ['--no-warnings', join(childrenDir(), `${name}.js`), ...args]
}
