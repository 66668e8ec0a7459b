/**
 * A pull by changed lines gives exactly what reading both versions whole gives: over random edits of a memory list and
 * its history (items removed, edited, inserted anywhere, moved; entries appended and dropped), the list patched with
 * the real git's line diff holds the same items and history as the new file read whole, and the `sync.apply` delta
 * is the same one; a line that breaks a rule is refused naming the file and its line; a diff of some other version
 * is not applied.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import fc from 'fast-check'
import { beforeEach, expect, it } from 'vitest'
import type { MemoryItem, MemoryWrite } from '../../lib/state/model.ts'
import { itemById } from '../../lib/commands/item-list.ts'
import { memoryLines, readMemoryLines } from '../../lib/sync/layout.ts'
import { patchList } from '../../lib/sync/memory-patch.ts'
import { userDelta } from '../../lib/sync/pull.ts'
import { Repo, type TreeEntry } from '../../lib/sync/repo.ts'
import { fcParams } from '../support/fuzz.ts'
import { perTest } from '../support/store-helpers.ts'

const t = perTest()
let repo: Repo
const LIMITS = { items: 10_000, entries: 100 }
const PATH = 'profiles/p/memory.jsonl'

beforeEach(async () => {
  const dir = join(await t.dir('ap-patch'), 'clone.git')
  execFileSync('git', ['init', '--bare', '--quiet', dir])
  repo = new Repo(dir, dir, 'main')
})

/** A text as a blob of the clone, as a tree lists it. */
function blob(text: string): TreeEntry {
  const id = execFileSync('git', ['--git-dir', repo.dir, 'hash-object', '-w', '--stdin'], { input: text })
    .toString()
    .trim()
  return { mode: '100644', id, size: Buffer.byteLength(text) }
}

const item = (n: number, text = `fact ${n}`): MemoryItem => ({ id: `m${n}`, text, source: 'user', at: n })
const write = (n: number): MemoryWrite => ({
  id: `h${n}`,
  at: n,
  who: 'tool',
  added: [item(n, `added ${n}`)],
  removed: [],
  edited: [],
})

type Edit =
  | { op: 'remove'; at: number }
  | { op: 'edit'; at: number; text: string }
  | { op: 'insert'; at: number }
  | { op: 'move'; at: number; to: number }
  | { op: 'append-entry' }
  | { op: 'drop-entry' }

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('edit' as const), at: fc.nat(), text: fc.constantFrom('x', '中文 "q"', '{"write":1}') }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
  fc.constant({ op: 'append-entry' as const }),
  fc.constant({ op: 'drop-entry' as const }),
)

/** The lists after the edits (new items and entries numbered from 1,000). */
function edited(items: MemoryItem[], history: MemoryWrite[], edits: Edit[]) {
  const its = [...items]
  const hs = [...history]
  let next = 1_000
  for (const e of edits) {
    const at = its.length === 0 ? 0 : 'at' in e ? e.at % its.length : 0
    if (e.op === 'remove' && its.length > 0) its.splice(at, 1)
    else if (e.op === 'edit' && its.length > 0) its[at] = { ...its[at]!, text: `${its[at]!.text} ${e.text}` }
    else if (e.op === 'insert') its.splice(e.at % (its.length + 1), 0, item(next++))
    else if (e.op === 'move' && its.length > 0) its.splice(e.to % its.length, 0, ...its.splice(at, 1))
    else if (e.op === 'append-entry') hs.push(write(next++))
    else if (e.op === 'drop-entry') hs.shift()
  }
  return { items: its, history: hs }
}

it('gives the same list, history and delta as reading the new file whole, over random edits', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 0, max: 4 }),
      fc.array(edit, { maxLength: 8 }),
      async (n, h, edits) => {
        const before = {
          items: Array.from({ length: n }, (_, i) => item(i)),
          history: Array.from({ length: h }, (_, i) => write(500 + i)),
        }
        const after = edited(before.items, before.history, edits)
        const a = memoryLines(before.items, before.history)
        const b = memoryLines(after.items, after.history)
        const hunks = await repo.lineDiff(blob(a), blob(b))
        expect(hunks).toBeDefined()
        const patched = patchList(before, hunks!, PATH, LIMITS)
        const whole = readMemoryLines(b, PATH, LIMITS)
        expect(patched).toBeDefined()
        expect(patched!.items).toEqual(whole.items)
        expect(patched!.history).toEqual(whole.history)
        expect(patched!.delta).toEqual(userDelta(before, whole))
      },
    ),
    fcParams(60),
  )
})

it('parses only the changed lines: one fact among thousands is one line read', async () => {
  const before = { items: Array.from({ length: 5_000 }, (_, i) => item(i)), history: [write(9_000)] }
  const after = { items: [...before.items, item(7_777)], history: [...before.history, write(9_001)] }
  const hunks = await repo.lineDiff(
    blob(memoryLines(before.items, before.history)),
    blob(memoryLines(after.items, after.history)),
  )
  expect(hunks!.flatMap((x) => x.lines).filter((l) => l.op === '+')).toHaveLength(2)
  const patched = patchList(before, hunks!, PATH, LIMITS)!
  // The unchanged items are the store's own objects, not read again.
  expect(patched.items.slice(0, 5_000).every((it, i) => it === before.items[i])).toBe(true)
  // The history's new entry alone: the store keeps the entries it has.
  expect(patched.delta).toEqual({ put: [item(7_777)], history: { drop: 0, add: [write(9_001)] } })
})

it('looks at none of the items before the first changed line: one fact pulled into 5,000', async () => {
  let looked = 0
  // Items that count each read of their id: comparing, checking or ordering an item reads it.
  const items = Array.from({ length: 5_000 }, (_, i) => {
    const { id, ...rest } = item(i)
    return Object.defineProperty(rest, 'id', { enumerable: true, get: () => (looked++, id) }) as MemoryItem
  })
  const before = { items, history: [write(9_000)] }
  const hunks = await repo.lineDiff(
    blob(memoryLines(items, before.history)),
    blob(memoryLines([...items, item(7_777)], [...before.history, write(9_001)])),
  )
  // A list in the store had its ids looked up by the command that made it (lib/commands/item-list.ts).
  itemById(items, 'm0')
  looked = 0
  const patched = patchList(before, hunks!, PATH, LIMITS)!
  expect(looked).toBe(0)
  expect(patched.items.slice(0, 5_000).every((it, i) => it === items[i])).toBe(true)
  expect(patched.delta).toEqual({ put: [item(7_777)], history: { drop: 0, add: [write(9_001)] } })
})

it('refuses an added line that breaks a rule, naming the file and its line', async () => {
  const before = { items: [item(1), item(2)], history: [] }
  const bad = `${memoryLines(before.items, [])}{"id":"m9","text":"","source":"user","at":1}\n`
  const hunks = await repo.lineDiff(blob(memoryLines(before.items, [])), blob(bad))
  expect(() => patchList(before, hunks!, PATH, LIMITS)).toThrow(/profiles\/p\/memory\.jsonl:3/)
  const twice = `${memoryLines([item(3), ...before.items], [])}${memoryLines([item(3)], [])}`
  const again = await repo.lineDiff(blob(memoryLines(before.items, [])), blob(twice))
  expect(() => patchList(before, again!, PATH, LIMITS)).toThrow(/profiles\/p\/memory\.jsonl:4.id: repeats the id "m3"/)
})

it('leaves to the whole read an added line that repeats the id of an item before the changed lines', async () => {
  const before = { items: [item(1), item(2)], history: [] }
  const twice = `${memoryLines(before.items, [])}${memoryLines([item(1)], [])}`
  const hunks = await repo.lineDiff(blob(memoryLines(before.items, [])), blob(twice))
  expect(patchList(before, hunks!, PATH, LIMITS)).toBeUndefined()
  expect(() => readMemoryLines(twice, PATH, LIMITS)).toThrow(/profiles\/p\/memory\.jsonl:3.id: repeats the id "m1"/)
})

it('does not apply a diff made from another version than the store holds', async () => {
  const store = { items: [item(1), item(2), item(3)], history: [] }
  const other = memoryLines([item(1), item(5), item(3)], [])
  const hunks = await repo.lineDiff(blob(other), blob(memoryLines([item(1), item(3)], [])))
  expect(patchList(store, hunks!, PATH, LIMITS)).toBeUndefined()
})
