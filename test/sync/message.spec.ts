/**
 * The commit message's memory counts (`memory: +2 -1 ~1 (name)`): what was added, removed and edited, whatever the
 * change (items added at the end or between others, removed, edited, moved, history lines added), found from the lines
 * that differ only, so a large memory file costs no more than a small one.
 */
import { describe, expect, it } from 'vitest'
import { commitMessage } from '../../lib/sync/message.ts'
import { folderOf, itemLine, memoryLines } from '../../lib/sync/layout.ts'
import type { MemoryItem, MemoryWrite } from '../../lib/state/model.ts'

const folder = folderOf('coder')
const mem = `${folder}/memory.jsonl`
const item = (id: string, text = `事实 ${id}`): MemoryItem => ({ id, text, source: 'user', at: 1 })
const write = (id: string): MemoryWrite => ({ id, at: 2, who: 'user', added: [item('w')], removed: [], edited: [] })

/** The counts as a naive reading of both whole files gives them. */
function expected(before: MemoryItem[], after: MemoryItem[]): string {
  const was = new Map(before.map((it) => [it.id, itemLine(it)]))
  const now = new Map(after.map((it) => [it.id, itemLine(it)]))
  const added = [...now.keys()].filter((id) => !was.has(id)).length
  const removed = [...was.keys()].filter((id) => !now.has(id)).length
  const edited = [...now].filter(([id, line]) => was.has(id) && was.get(id) !== line).length
  return [added && `+${added}`, removed && `-${removed}`, edited && `~${edited}`].filter(Boolean).join(' ')
}

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
}

describe('commitMessage counts', () => {
  it('counts what a change added, removed and edited, for random changes of a memory file', () => {
    const rnd = random(41)
    for (let round = 0; round < 300; round++) {
      const before = Array.from({ length: Math.floor(rnd() * 200) }, (_, i) => item(`m${i}`))
      let after = [...before]
      for (let k = Math.floor(rnd() * 4); k >= 0; k--) {
        const at = Math.floor(rnd() * (after.length + 1))
        const op = rnd()
        if (op < 0.35) after.splice(at, 0, item(`n${round}x${k}`))
        else if (op < 0.6 && after.length > 0) after.splice(Math.min(at, after.length - 1), 1)
        else if (op < 0.85 && after.length > 0) {
          const i = Math.min(at, after.length - 1)
          after[i] = item(after[i]!.id, `改过的 ${round}`)
        } else if (after.length > 1) after = [...after.slice(1), after[0]!]
      }
      const history = rnd() < 0.5 ? [write('h1')] : []
      const more = rnd() < 0.5 ? [...history, write(`h${round}`)] : history
      const message = commitMessage(
        new Map([[mem, memoryLines(before, history)]]),
        new Map([[mem, memoryLines(after, more)]]),
        () => '编程搭档',
      )
      const want = expected(before, after)
      if (want === '') expect(message).not.toMatch(/^memory:/)
      else expect(message, JSON.stringify({ round })).toBe(`memory: ${want} (编程搭档)`)
    }
  })

  it('counts one fact saved among 10,000', () => {
    const before = Array.from({ length: 10_000 }, (_, i) => item(`m${i}`))
    const after = [...before.slice(0, 5_000), item('new'), ...before.slice(5_000)]
    expect(commitMessage(new Map([[mem, memoryLines(before, [])]]), new Map([[mem, memoryLines(after, [])]]))).toBe(
      'memory: +1 (coder)',
    )
  })
})
