/**
 * Where the script of a thread or a helper process the plugin starts is: `<name>.js` beside the running bundle
 * (dist/, where the build puts every entry flat), `<name>.ts` beside the calling source file when the sources run as
 * they are (the tests). It owns that choice alone, never the starting.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * The folder of built scripts a run from source starts its threads and helpers from instead of their sources. The
 * test suite sets it to the dist/ it builds before it runs (so those scripts are its sources' own): Node strips the
 * types of a thread's ~50 source files in each new thread, ~0.5 s of CPU before the thread's job, paid hundreds of
 * times over the suite.
 */
const BUILT_DIR = 'AGENT_PROFILES_BUILT_DIR'

/** The file of script `name` for the module at `here` (its import.meta.url). */
export function entryScript(name: string, here: string): URL {
  if (!here.endsWith('.ts')) return new URL(`./${name}.js`, here)
  const built = process.env[BUILT_DIR]
  if (built !== undefined && built !== '') return pathToFileURL(join(built, `${name}.js`))
  return new URL(`./${name}.ts`, here)
}
