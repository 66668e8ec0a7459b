/**
 * The documentation stays reachable and true to the tree: every relative link in README.md and docs/*.md names a file
 * that exists (and, with a `#fragment`, a heading in it), the rooms drawing in docs/architecture.md is the one
 * scripts/rooms.mjs draws from the STACKS in .dependency-cruiser.cjs, and the folder table there names every folder of
 * lib/ and no other. It only reads.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BEGIN, drawRooms, END } from '../../scripts/rooms.mjs'
import { ROOT } from '../support/dsh.ts'

/** README.md and every page of docs/, as paths from the checkout's root. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

const read = (page: string): string => readFileSync(join(ROOT, page), 'utf8')

/** The text of a Markdown page with its fenced code blocks and inline code blanked, so only prose links remain. */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '``')
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading
      .replace(/`/g, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

/** Every relative link target of a page (`[text](target)` and `![alt](target)`), as written. */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z][a-z+.-]*:/i.test(t))
}

/** Every folder under lib/, as `lib/a/b/`. */
function libFolders(dir = join(ROOT, 'lib')): string[] {
  const here = `${relative(ROOT, dir)}/`
  return [
    here,
    ...readdirSync(dir)
      .map((f) => join(dir, f))
      .filter((p) => statSync(p).isDirectory())
      .flatMap((p) => libFolders(p)),
  ]
}

describe('the documentation', () => {
  it('links every page of docs/ from README.md', () => {
    const linked = new Set(relativeLinks(read('README.md')).map((l) => l.split('#')[0]))
    expect(PAGES.filter((p) => p !== 'README.md' && !linked.has(p))).toEqual([])
  })

  for (const page of PAGES) {
    it(`${page}: every relative link names a file that exists, and a heading in it`, () => {
      const broken: string[] = []
      for (const link of relativeLinks(read(page))) {
        const [path, fragment] = link.split('#') as [string, string | undefined]
        const target = path === '' ? page : join(dirname(page), decodeURI(path))
        if (!existsSync(join(ROOT, target))) broken.push(`${link} (no file ${target})`)
        else if (fragment !== undefined && target.endsWith('.md') && !anchors(read(target)).has(fragment))
          broken.push(`${link} (no heading #${fragment} in ${target})`)
      }
      expect(broken).toEqual([])
    })
  }

  it('draws the rooms in docs/architecture.md exactly as the STACKS in .dependency-cruiser.cjs say', () => {
    const doc = read('docs/architecture.md')
    const drawn = doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END)).trim()
    expect(drawn, 'out of date: run node scripts/rooms.mjs --write').toBe(drawRooms())
  })

  it('gives every folder of lib/ a line in docs/architecture.md, and no folder that is gone', () => {
    const table = read('docs/architecture.md')
      .split('\n')
      .filter((l) => l.startsWith('| `lib/'))
    const listed = table.map((l) => /^\| `([^`]+)`/.exec(l)![1])
    expect([...listed].sort()).toEqual(libFolders().sort())
  })
})
