#!/usr/bin/env node
/**
 * Installs this checkout into a dsh profile by hand, the route dsh itself uses when pnpm is absent: list the package in
 * the profile's `dsh.profile.bundles`, record it as a `link:` dependency and symlink it into the profile's node_modules.
 * Idempotent; it never removes anything else from the profile. Used by `npm start` and by the end-to-end tests.
 *
 *   node scripts/install-plugin.mjs [--home <DSH_HOME>] [--profile web|headless]
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  readlinkSync,
} from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const checkout = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const PACKAGE = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')).name
/** @type {Record<string, string[]>} */
const TEMPLATES = {
  web: ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app'],
  headless: ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-headless'],
}

/**
 * Add this plugin to `<home>/profiles/<profile>`; returns the profile directory.
 * @param {{ home: string, profile?: string, target?: string }} options
 */
export function installPlugin({ home, profile = 'web', target = checkout }) {
  const dir = join(home, 'profiles', profile)
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  const manifestPath = join(dir, 'package.json')
  const manifest = existsSync(manifestPath)
    ? JSON.parse(readFileSync(manifestPath, 'utf8'))
    : {
        name: `dsh-profile-${profile}`,
        private: true,
        dependencies: {},
        dsh: { profile: { bundles: [...(TEMPLATES[profile] ?? ['@deepseek-ai/dsh-base'])] } },
      }
  manifest.dependencies = { ...manifest.dependencies, [PACKAGE]: `link:${target}` }
  const bundles = manifest.dsh?.profile?.bundles ?? []
  if (!bundles.includes(PACKAGE)) bundles.push(PACKAGE)
  manifest.dsh = { ...manifest.dsh, profile: { ...manifest.dsh?.profile, bundles } }
  writeFileSync(manifestPath, JSON.stringify(manifest, undefined, 2) + '\n')
  const workspace = join(dir, 'pnpm-workspace.yaml')
  if (!existsSync(workspace))
    writeFileSync(workspace, 'packages:\n  - .\n\nnodeLinker: hoisted\nautoInstallPeers: false\n')
  const link = join(dir, 'node_modules', PACKAGE)
  let current
  try {
    current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : 'not-a-link'
  } catch {
    current = undefined
  }
  if (current !== target) {
    if (current !== undefined) rmSync(link, { recursive: true, force: true })
    symlinkSync(target, link, 'dir')
  }
  return dir
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  /** @type {(name: string, fallback: string) => string} */
  const flag = (name, fallback) => {
    const i = args.indexOf(name)
    return i >= 0 ? args[i + 1] : fallback
  }
  const home = resolve(flag('--home', process.env.DSH_HOME || join(checkout, '.dsh-home')))
  const dir = installPlugin({ home, profile: flag('--profile', 'web') })
  console.log(`${PACKAGE} installed into ${dir}`)
}
