/**
 * Debian packages the scripts need and npm cannot bring (the test browser, the benchmark's load generator): installed
 * with apt-get when they are missing and this process may (root on Debian); otherwise the script stops and says how.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

/**
 * Make sure `present()` holds, installing `packages` when it does not. `how` tells a user without root what to do.
 * Exits the process when the packages are missing and cannot be installed.
 * @param {() => boolean} present
 * @param {readonly string[]} packages
 * @param {string} how
 */
export function ensureDebianPackages(present, packages, how) {
  if (present()) return
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.error(how)
    process.exit(1)
  }
  console.log(`Installing Debian ${packages.join(', ')} …`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (r.status !== 0) process.exit(r.status ?? 1)
  }
}

/**
 * Whether `command` is on PATH.
 * @param {string} command
 */
export function onPath(command) {
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(`${dir}/${command}`))
}
