/**
 * Pins the unused-export gate (scripts/exports.mjs): the repository agrees with its list, an export no other file
 * imports fails the gate, an import from a spec counts as a use, and a listed export that found a user (or went)
 * fails until its line goes. The planted cases run knip with the repository's own knip.json on a small tree in a
 * temporary folder.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkExports, shrinkExports } from '../../scripts/exports.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
let root = ''

function plant(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}
const listed = (...entries: string[]) => plant('exports-baseline.txt', `# the list\n${entries.join('\n')}\n`)
const baseline = () => join(root, 'exports-baseline.txt')
const check = () => checkExports({ root, baseline: baseline() })
const NOT_LISTED =
  'not on scripts/exports-baseline.txt — import it from another file, or drop the export (or the code) (the list may only shrink)'

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'exports-'))
  copyFileSync(join(repo, 'knip.json'), join(root, 'knip.json'))
  copyFileSync(join(repo, 'tsconfig.json'), join(root, 'tsconfig.json'))
  plant('package.json', JSON.stringify({ name: 'planted', type: 'module', private: true }))
  plant('lib/index.ts', "import { used } from './part.ts'\nexport default used\n")
  plant('lib/part.ts', 'export const used = 1\n')
  listed()
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('the unused-export gate', () => {
  it('passes on the repository as it stands: every unused export is on scripts/exports-baseline.txt, and only those', () => {
    expect(checkExports()).toEqual([])
  })

  it('fails on an export and an exported type no other file imports, naming each', () => {
    expect(check()).toEqual([])
    plant('lib/part.ts', 'export const used = 1\nexport const spare = 2\nexport type Spare = { n: number }\n')
    expect(check()).toEqual([`export lib/part.ts spare: ${NOT_LISTED}`, `type lib/part.ts Spare: ${NOT_LISTED}`])
  })

  it('counts an import from a spec as a use', () => {
    plant('lib/part.ts', 'export const used = 1\nexport const pinned = 2\n')
    plant('test/part.spec.ts', "import { pinned } from '../lib/part.ts'\nconsole.log(pinned)\n")
    expect(check()).toEqual([])
  })

  it('fails on a listed export that found a user until --shrink drops its line (and only it)', () => {
    plant('lib/part.ts', 'export const used = 1\nexport const a = 2\nexport const b = 3\n')
    listed('export lib/part.ts a', 'export lib/part.ts b')
    expect(check()).toEqual([])
    plant('lib/index.ts', "import { a, used } from './part.ts'\nexport default used + a\n")
    expect(check()).toEqual([
      'export lib/part.ts a: on scripts/exports-baseline.txt but no longer offends — remove the line (run the gate with --shrink)',
    ])
    expect(shrinkExports({ root, baseline: baseline() })).toBe(1)
    expect(readFileSync(baseline(), 'utf8')).toBe('# the list\nexport lib/part.ts b\n')
    expect(check()).toEqual([])
  })
})
