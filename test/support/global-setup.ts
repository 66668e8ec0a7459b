/**
 * Runs once before the suite: builds both halves from the current sources, so every end-to-end test boots the plugin
 * exactly as `npm start` would, then the processes the specs start beside themselves (./children.ts).
 */
// @ts-expect-error -- plain ESM build script shared with npm scripts; it has no type declarations.
import { build } from '../../scripts/build.mjs'
import { buildChildren } from './children.ts'

export default async function setup(): Promise<void> {
  await build({ minify: true })
  await buildChildren()
}
