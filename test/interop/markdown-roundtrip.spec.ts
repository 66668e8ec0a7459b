/**
 * Property: a profile exported as Markdown reads back as the same profile, whatever its texts hold — random unicode
 * (astral characters, combining marks, U+2028), blank and whitespace-only lines, indentation, list markers, headings,
 * backslashes, code fences closed or not, CRLF, lone CR and tabs — in memory items and every text field. A small seeded
 * generator, so a failure names the seed that shows it.
 */
import { describe, expect, it } from 'vitest'
import { markdownToProfile, profileToMarkdown } from '../../lib/interop/markdown.ts'
import type { Profile } from '../../lib/state/model.ts'

/** mulberry32: a tiny seeded PRNG, enough to make a case repeatable. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Pieces lines are made of: Markdown syntax that a naive reader would take for structure, and plain text. */
const PIECES = ['- ', '* ', '+ ', '1. ', '2) ', '  ', '    ', '\t', '#', '## ', '### 标题', '\\', '\\#', '```', '~~~', '```js', '  ```', '---', '...',
  '> ', '|', '**粗体**', '`code`', 'word', '中文', '記憶', '🦊', '👩‍💻', 'é', 'e\u0301', '\u2028', '\u00a0', ' ', ':', '：', '"', "'", '<b>', '&amp;', '\r']

function line(r: () => number): string {
  let out = ''
  const n = Math.floor(r() * 5)
  for (let i = 0; i < n; i++) out += r() < 0.7 ? PIECES[Math.floor(r() * PIECES.length)]! : String.fromCodePoint(0x20 + Math.floor(r() * 0x2fff))
  return out.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
}

/** A random text: lines (often blank) joined by LF, CRLF or a mix. */
function text(r: () => number, maxLines: number, eol: 'lf' | 'crlf' | 'mixed'): string {
  const n = 1 + Math.floor(r() * maxLines)
  let out = ''
  for (let i = 0; i < n; i++) {
    if (i > 0) out += eol === 'crlf' || (eol === 'mixed' && r() < 0.5) ? '\r\n' : '\n'
    out += r() < 0.25 ? '' : line(r)
  }
  return out
}

function randomProfile(seed: number): Profile {
  const r = rng(seed)
  const eol = (['lf', 'crlf', 'mixed'] as const)[seed % 3]!
  const field = () => (r() < 0.2 ? '' : text(r, 8, eol))
  const items = Array.from({ length: Math.floor(r() * 6) }, (_, i) => {
    let t = text(r, 6, eol)
    if (t.trim() === '') t = `item ${i}${t}`
    return { id: `m${i}`, text: t, source: 'user' as const, at: i }
  })
  const name = (line(r).replace(/[\r\n\u2028]/g, '').trim() || 'x').slice(0, 40)
  return {
    id: 'p', name, emoji: '🙂', avatar: '', role: field(), personality: field(), speakingStyle: field(), rules: field(),
    memoryEnabled: r() < 0.5, memory: { summary: field(), items }, createdAt: 1, updatedAt: 1,
  }
}

describe('Markdown export → import', () => {
  it('is the identity on 1000 random profiles (seeds 1–1000)', () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const p = randomProfile(seed)
      for (const lang of ['zh', 'en'] as const) {
        const { profile } = markdownToProfile(profileToMarkdown(p, lang), 'f')
        const got = { ...profile, memory: { summary: profile.memory.summary, items: profile.memory.items.map((it) => it.text) } }
        const want = {
          name: p.name, emoji: p.emoji, role: p.role, personality: p.personality, speakingStyle: p.speakingStyle, rules: p.rules,
          memoryEnabled: p.memoryEnabled, memory: { summary: p.memory.summary, items: p.memory.items.map((it) => it.text) },
        }
        expect(got, `seed ${seed} (${lang})`).toEqual(want)
      }
    }
  })

  it('writes CRLF line ends when the texts use CRLF, and reads them back as CRLF', () => {
    const p: Profile = { ...randomProfile(3), name: 'x', memoryEnabled: true, role: 'a\r\nb', personality: '', speakingStyle: '', rules: '', memory: { summary: '', items: [{ id: 'm', text: 'x\r\n\r\n- y', source: 'user', at: 1 }] } }
    const md = profileToMarkdown(p, 'en')
    expect(md).toBe('---\r\nname: x\r\nemoji: 🙂\r\nmemory: on\r\n---\r\n\r\n## Role\r\n\r\na\r\nb\r\n\r\n## Memory\r\n\r\n- x\r\n  \r\n  - y\r\n')
    expect(markdownToProfile(md, 'f').profile).toMatchObject({ role: 'a\r\nb', memory: { items: [{ text: 'x\r\n\r\n- y' }] } })
  })
})
