/**
 * The scan of a top-level array fed in chunks (lib/learn/json-split.ts), as an export's conversations.json arrives
 * from the inflater: whatever the chunks' sizes — a string, an escape, a byte order mark or an element cut anywhere —
 * it finds the same elements as the text read whole, refuses a text cut short, and checks its limits across chunks.
 */
import { describe, expect, it } from 'vitest'
import { ArraySplitter, type SplitLimits } from '../../lib/learn/json-split.ts'
import { ImportError } from '../../lib/shared/errors.ts'

const LIMITS: SplitLimits = { depth: 64, values: 1_000_000, elementValues: 100_000, elements: 10_000 }

/** The elements `text` splits into when it is fed in chunks of `size` bytes (0: at once). */
function elements(text: string | Uint8Array, size: number, limits = LIMITS): unknown[] {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text
  const found: unknown[] = []
  const decoder = new TextDecoder()
  const s = new ArraySplitter('conversations.json', limits, (e) => found.push(JSON.parse(decoder.decode(e))))
  if (size === 0) s.push(bytes)
  else for (let at = 0; at < bytes.length; at += size) s.push(bytes.slice(at, at + size))
  s.end()
  return found
}

const refusal = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    if (e instanceof ImportError) return e.note.key
    throw e
  }
  return 'none'
}

describe('splitting an array fed in chunks', () => {
  const values = [
    {
      title: 'a "quoted" word, a \\ backslash and \\"',
      parts: ['[not an array]', '{not an object}', ',', '\u4e2d\u6587'],
    },
    'a string element with ] and } and , inside',
    [1, [2, [3, { deep: [] }]], -0.5e3, true, null],
    { emoji: '\ud83d\ude00', escapes: '\n\t\u0001\\\\"' },
    {},
    [],
  ]
  const text = ` \n${JSON.stringify(values, null, 1)}\n`

  it('finds the same elements whatever size the chunks are, as the text read whole', () => {
    expect(elements(text, 0)).toEqual(values)
    for (let size = 1; size <= 40; size++) expect(elements(text, size)).toEqual(values)
    expect(elements(text, 1_000_000)).toEqual(values)
  })

  it('reads past a byte order mark cut between chunks', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)])
    for (const size of [0, 1, 2, 3, 5]) expect(elements(bom, size)).toEqual(values)
  })

  it('refuses a text cut short anywhere, and one that is no array', () => {
    for (const cut of [text.indexOf('quoted'), text.indexOf('backslash') + 5, text.lastIndexOf(']') - 1])
      for (const size of [0, 1, 7]) expect(refusal(() => elements(text.slice(0, cut), size))).toBe('notJson')
    expect(refusal(() => elements(' {"a": 1}', 1))).toBe('exportNotExport')
    expect(refusal(() => elements('   ', 1))).toBe('exportNotExport')
  })

  it('checks the nesting and the count of values across chunks', () => {
    const deep = `[${'['.repeat(70)}${']'.repeat(70)}]`
    expect(refusal(() => elements(deep, 3))).toBe('exportTooDeep')
    const many = JSON.stringify(Array.from({ length: 50 }, () => ({ a: [1, 2] })))
    expect(refusal(() => elements(many, 4, { ...LIMITS, elements: 49 }))).toBe('exportTooManyConversations')
    expect(refusal(() => elements(many, 4, { ...LIMITS, values: 60 }))).toBe('exportTooManyValues')
    const big = JSON.stringify([Array.from({ length: 100 }, () => [])])
    expect(refusal(() => elements(big, 5, { ...LIMITS, elementValues: 50 }))).toBe('exportConversationTooBig')
  })
})
