/**
 * Pins the sizes gate (scripts/sizes.mjs): the repository agrees with its list of offenders, a new long file or
 * function fails the gate, a listed one that was split fails until its line goes, and only code lines count. The
 * planted cases run oxlint with the repository's own .oxlintrc.json on a small tree in a temporary folder.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkSizes, shrinkSizes } from '../../scripts/sizes.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
let root = ''

/** `n` code lines of a module, each a statement of its own. */
const statements = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i}`).join('\n')
/** A function of `n` lines counting its first and last line, as max-lines-per-function counts them. */
const fn = (name: string, n: number) =>
  `export function ${name}(): number {\n  let x = 0\n${'  x += 1\n'.repeat(n - 4)}  return x\n}\n`

function plant(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}
const listed = (...entries: string[]) => plant('sizes-baseline.txt', `# the list\n${entries.join('\n')}\n`)
const check = () => checkSizes({ root, sources: ['lib', 'test'], baseline: join(root, 'sizes-baseline.txt') })

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sizes-'))
  copyFileSync(join(repo, '.oxlintrc.json'), join(root, '.oxlintrc.json'))
  plant('lib/small.ts', statements(10))
  listed()
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('the sizes gate', () => {
  it('passes on the repository as it stands: every offender is on scripts/sizes-baseline.txt and every entry offends', () => {
    expect(checkSizes()).toEqual([])
  })

  it('fails on a new file of 401 code lines, naming it, and passes one of 400 with comments and blank lines', () => {
    plant('lib/fits.ts', `/** A header. */\n\n${statements(400).replaceAll('\n', '\n\n// why\n')}\n`)
    expect(check()).toEqual([])
    plant('lib/grown.ts', statements(401))
    expect(check()).toEqual([
      'file lib/grown.ts: not on scripts/sizes-baseline.txt — split it (the list may only shrink)',
    ])
  })

  it('fails on a new function of 81 lines, naming its file and name, and passes one of 80', () => {
    plant('lib/fns.ts', fn('fits', 80))
    expect(check()).toEqual([])
    plant('lib/fns.ts', fn('fits', 80) + fn('grown', 81))
    expect(check()).toEqual([
      'function lib/fns.ts grown: not on scripts/sizes-baseline.txt — split it (the list may only shrink)',
    ])
  })

  it('lets a listed offender stay, and fails once it was split until --shrink drops its line (and only it)', () => {
    plant('lib/fns.ts', fn('old', 90) + fn('other', 90))
    listed('function lib/fns.ts old', 'function lib/fns.ts other')
    expect(check()).toEqual([])
    plant('lib/fns.ts', fn('old', 40) + fn('other', 90))
    expect(check()).toEqual([
      'function lib/fns.ts old: on scripts/sizes-baseline.txt but no longer offends — remove the line (run the gate with --shrink)',
    ])
    expect(shrinkSizes({ root, sources: ['lib', 'test'], baseline: join(root, 'sizes-baseline.txt') })).toBe(1)
    expect(readFileSync(join(root, 'sizes-baseline.txt'), 'utf8')).toBe('# the list\nfunction lib/fns.ts other\n')
    expect(check()).toEqual([])
  })

  it('names an arrow function by what it is bound to, and counts a second function of one name on its own', () => {
    plant('lib/twice.ts', `${fn('a', 90)}export const b = () => {\n${fn('a', 90)}}\n`)
    listed('function lib/twice.ts a')
    expect(check()).toEqual([
      'function lib/twice.ts a: not on scripts/sizes-baseline.txt — split it (the list may only shrink)',
      'function lib/twice.ts b: not on scripts/sizes-baseline.txt — split it (the list may only shrink)',
    ])
  })

  it('holds a spec file to max-lines but not its describe blocks to max-lines-per-function', () => {
    plant('test/x.spec.ts', `describe('x', () => {\n${statements(90).replaceAll('export ', '')}\n})\n`)
    expect(check()).toEqual([])
    plant('test/y.spec.ts', statements(401))
    expect(check()).toEqual([
      'file test/y.spec.ts: not on scripts/sizes-baseline.txt — split it (the list may only shrink)',
    ])
  })
})
