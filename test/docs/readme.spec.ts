/**
 * README.md stays short and its configuration table stays true: every option of lib/config/config.ts is listed once,
 * with the default DEFAULT_CONFIG gives it (or, for the data file, the path the store picks) and the range
 * resolveConfig really accepts, and no option is listed that the code does not have. It reads README.md and calls
 * the config code; it never changes either.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, resolveConfig } from '../../lib/config/config.ts'
import { defaultDataFile } from '../../lib/store/store.ts'
import { ROOT } from '../support/dsh.ts'
import { ConfigError } from '../../lib/config/errors.ts'

const README = readFileSync(join(ROOT, 'README.md'), 'utf8')

/** The README's line limit: what a newcomer reads before the docs/ pages. */
const MAX_LINES = 300

/** One row of the configuration table: the option's dotted name and its Default and Accepts cells. */
interface Row {
  name: string
  default: string
  accepts: string
}

/** The rows of the table under "## Configuration", in order. */
function optionRows(): Row[] {
  const section = README.split(/^## /m).find((s) => s.startsWith('Configuration\n'))
  if (section === undefined) throw new Error('README.md has no "## Configuration" section')
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim())
      return { name: cells[0].replace(/^`|`$/g, ''), default: cells[1], accepts: cells[2] }
    })
}

/** A config's leaves as dotted names (`memory.everyTurns`) and values. */
function leaves(value: object, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>()
  for (const [key, v] of Object.entries(value)) {
    if (v !== null && typeof v === 'object') for (const [k, w] of leaves(v, `${prefix}${key}.`)) out.set(k, w)
    else out.set(`${prefix}${key}`, v)
  }
  return out
}

/** The row config that sets only the option `name` (dotted) to `value`. */
function setting(name: string, value: unknown): Record<string, unknown> {
  return name.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>
}

/** What resolveConfig makes of the option `name` set to `value`, or 'refused' when it throws a ConfigError. */
function resolved(name: string, value: unknown): unknown {
  try {
    return leaves(resolveConfig(setting(name, value))).get(name)
  } catch (error) {
    if (error instanceof ConfigError) return 'refused'
    throw error
  }
}

describe('README.md', () => {
  it(`is at most ${MAX_LINES} lines`, () => {
    expect(README.split('\n').length - (README.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(MAX_LINES)
  })

  it('lists every option of lib/config/config.ts once, and no other', () => {
    // Every option the resolver can give back, the optional data file included.
    const options = [...leaves(resolveConfig({ dataFile: '/data/profiles.sqlite' })).keys()].sort()
    const names = optionRows().map((r) => r.name)
    expect(new Set(names).size).toBe(names.length)
    expect([...names].sort()).toEqual(options)
  })

  it('gives each option the default the code gives it', () => {
    const defaults = leaves(DEFAULT_CONFIG)
    expect(leaves(resolveConfig({}))).toEqual(defaults)
    for (const row of optionRows()) {
      if (defaults.has(row.name)) {
        expect(row.default, row.name).toBe(`\`${String(defaults.get(row.name))}\``)
      } else {
        // The one option without a fixed default: the store picks the path from the environment and DSH_HOME.
        expect(row.name).toBe('dataFile')
        expect(row.default).toContain(`\`${defaultDataFile('<DSH_HOME>', {})}\``)
        const fromEnv = defaultDataFile('/home', { DSH_AGENT_PROFILES_DATA: '/VAR' }).replace(
          '/VAR',
          '$DSH_AGENT_PROFILES_DATA',
        )
        expect(row.default).toContain(`\`${fromEnv}\``)
      }
    }
  })

  it('gives each option the range resolveConfig really accepts, and refuses just outside it', () => {
    for (const row of optionRows()) {
      const range = /^(\d+)–(\d+)$/.exec(row.accepts)
      const words = [...row.accepts.matchAll(/`([^`]+)`/g)].map((m) => m[1])
      if (range !== null) {
        const [min, max] = [Number(range[1]), Number(range[2])]
        expect(resolved(row.name, min), `${row.name} = ${min}`).toBe(min)
        expect(resolved(row.name, max), `${row.name} = ${max}`).toBe(max)
        expect(resolved(row.name, min - 1), `${row.name} = ${min - 1}`).toBe('refused')
        expect(resolved(row.name, max + 1), `${row.name} = ${max + 1}`).toBe('refused')
        expect(resolved(row.name, min + 0.5), `${row.name} = ${min + 0.5}`).toBe('refused')
      } else if (row.accepts === '`true`, `false`') {
        expect(resolved(row.name, true)).toBe(true)
        expect(resolved(row.name, false)).toBe(false)
        expect(resolved(row.name, 'yes'), row.name).toBe('refused')
      } else if (words.length > 0) {
        for (const word of words) expect(resolved(row.name, word), `${row.name} = ${word}`).toBe(word)
        expect(resolved(row.name, 'something-else'), row.name).toBe('refused')
      } else {
        expect(row.accepts, row.name).toBe('a non-empty path')
        expect(resolved(row.name, '/data/profiles.sqlite')).toBe('/data/profiles.sqlite')
        expect(resolved(row.name, ' '), row.name).toBe('refused')
      }
    }
  })
})
