/**
 * Property: a profile exported as Markdown reads back as the same profile, whatever its texts hold — random unicode
 * (astral characters, combining marks, U+2028), blank and whitespace-only lines, indentation, list markers, headings,
 * backslashes, code fences closed or not, CRLF, lone CR and tabs — in memory items and every text field. fast-check
 * shrinks a failure to a small profile and prints its seed (test/support/fuzz.ts).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { markdownToProfile, profileToMarkdown } from '../../lib/interop/markdown.ts'
import type { Profile } from '../../lib/state/model.ts'
import { fcParams } from '../support/fuzz.ts'
import { isInvisible, withoutBidi } from '../../lib/shared/safe-text.ts'

/** Pieces lines are made of: Markdown syntax that a naive reader would take for structure, and plain text. */
const PIECES = [
  '- ',
  '* ',
  '+ ',
  '1. ',
  '2) ',
  '  ',
  '    ',
  '\t',
  '#',
  '## ',
  '### 标题',
  '\\',
  '\\#',
  '```',
  '~~~',
  '```js',
  '  ```',
  '---',
  '...',
  '> ',
  '|',
  '**粗体**',
  '`code`',
  'word',
  '中文',
  '記憶',
  '🦊',
  '👩‍💻',
  'é',
  'e\u0301',
  '\u2028',
  '\u00a0',
  ' ',
  ':',
  '：',
  '"',
  "'",
  '<b>',
  '&amp;',
  '\r',
]

/** A line: up to four pieces, most of them syntax, the rest any character of the first planes; no control characters. */
const line = fc
  .array(
    fc.oneof(
      { weight: 7, arbitrary: fc.constantFrom(...PIECES) },
      { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x20 + 0x2ffe }).map((c) => String.fromCodePoint(c)) },
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join('').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, ''))

type Eol = 'lf' | 'crlf' | 'mixed'

/** A text of up to `maxLines` lines (often blank) joined by LF, CRLF or a mix. */
function text(maxLines: number, eol: Eol): fc.Arbitrary<string> {
  const row = fc.tuple(
    fc.boolean(),
    fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 3, arbitrary: line }),
  )
  return fc.array(row, { minLength: 1, maxLength: maxLines }).map((rows) =>
    rows
      .map(([crlf, l], i) => {
        const end = eol === 'crlf' || (eol === 'mixed' && crlf) ? '\r\n' : '\n'
        return i === 0 ? l : end + l
      })
      .join(''),
  )
}

/** A random profile whose texts all use one line-end style. */
const randomProfile: fc.Arbitrary<Profile> = fc.constantFrom<Eol>('lf', 'crlf', 'mixed').chain((eol) => {
  const field = fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 4, arbitrary: text(8, eol) })
  const items = fc.array(text(6, eol), { maxLength: 5 }).map((texts) =>
    texts.map((t, i) => ({
      id: `m${i}`,
      text: t.trim() === '' ? `item ${i}${t}` : t,
      source: 'user' as const,
      at: i,
    })),
  )
  // A name as the store keeps one: no direction controls, and something visible (an invisible-only name is empty).
  const name = line.map((l) => {
    const n = withoutBidi(l.replace(/[\r\n\u2028]/g, ''))
      .trim()
      .slice(0, 40)
      .trim()
    return n === '' || isInvisible(n) ? 'x' : n
  })
  return fc
    .record({
      name,
      role: field,
      personality: field,
      speakingStyle: field,
      rules: field,
      memoryEnabled: fc.boolean(),
      summary: field,
      items,
    })
    .map(({ summary, items: list, ...rest }): Profile => ({
      id: 'p',
      emoji: '🙂',
      avatar: '',
      ...rest,
      memory: { summary, items: list },
      createdAt: 1,
      updatedAt: 1,
    }))
})

describe('Markdown export → import', () => {
  it('is the identity on 1000 random profiles', () => {
    fc.assert(
      fc.property(randomProfile, (p) => {
        for (const lang of ['zh', 'en'] as const) {
          const { profile } = markdownToProfile(profileToMarkdown(p, lang), 'f')
          const got = {
            ...profile,
            memory: { summary: profile.memory.summary, items: profile.memory.items.map((it) => it.text) },
          }
          const want = {
            name: p.name,
            emoji: p.emoji,
            role: p.role,
            personality: p.personality,
            speakingStyle: p.speakingStyle,
            rules: p.rules,
            memoryEnabled: p.memoryEnabled,
            memory: { summary: p.memory.summary, items: p.memory.items.map((it) => it.text) },
          }
          expect(got, lang).toEqual(want)
        }
      }),
      fcParams(1000),
    )
  })

  it('keeps the count and text of memory items holding YAML, nested lists, rules, headings and fences', () => {
    // Lines as a card's lorebook holds them: YAML keys and lists nested at any depth, numbered lists, `---` and
    // `...`, YAML comments, headings, quotes and fenced code, each the first line of an item or any later one.
    const yamlLine = fc
      .tuple(
        fc.constantFrom('', '  ', '    ', '      ', '\t', ' '),
        fc.constantFrom(
          '- ',
          '* ',
          '+ ',
          '1. ',
          '2) ',
          '键: ',
          '# ',
          '## ',
          '> ',
          '',
          '---',
          '...',
          '```',
          '```yaml',
          '~~~',
        ),
        fc.constantFrom('', '姓名: 林晚', '读书', 'a: 1', '- 嵌套', 'word', '{{char}}'),
      )
      .map(([indent, mark, rest]) => `${indent}${mark}${rest}`)
    const itemText = fc
      .array(yamlLine, { minLength: 1, maxLength: 12 })
      .map((lines) => lines.join('\n'))
      .filter((t) => t.trim() !== '')
    fc.assert(
      fc.property(fc.array(itemText, { minLength: 1, maxLength: 15 }), (texts) => {
        const p: Profile = {
          id: 'p',
          name: 'x',
          emoji: '🙂',
          avatar: '',
          role: '',
          personality: '',
          speakingStyle: '',
          rules: '',
          memoryEnabled: true,
          memory: { summary: '', items: texts.map((text, i) => ({ id: `m${i}`, text, source: 'import', at: i })) },
          createdAt: 1,
          updatedAt: 1,
        }
        for (const lang of ['zh', 'en'] as const) {
          const back = markdownToProfile(profileToMarkdown(p, lang), 'f').profile.memory.items
          expect(
            back.map((it) => it.text),
            lang,
          ).toEqual(texts)
        }
      }),
      fcParams(500),
    )
  })

  it('writes CRLF line ends when the texts use CRLF, and reads them back as CRLF', () => {
    const p: Profile = {
      id: 'p',
      emoji: '🙂',
      avatar: '',
      createdAt: 1,
      updatedAt: 1,
      name: 'x',
      memoryEnabled: true,
      role: 'a\r\nb',
      personality: '',
      speakingStyle: '',
      rules: '',
      memory: { summary: '', items: [{ id: 'm', text: 'x\r\n\r\n- y', source: 'user', at: 1 }] },
    }
    const md = profileToMarkdown(p, 'en')
    expect(md).toBe(
      '---\r\nname: x\r\nemoji: 🙂\r\nmemory: on\r\n---\r\n\r\n## Role\r\n\r\na\r\nb\r\n\r\n## Memory\r\n\r\n- x\r\n  \r\n  - y\r\n',
    )
    expect(markdownToProfile(md, 'f').profile).toMatchObject({
      role: 'a\r\nb',
      memory: { items: [{ text: 'x\r\n\r\n- y' }] },
    })
  })
})
