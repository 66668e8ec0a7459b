/**
 * Files from the wild through the real store's `profiles.importFiles`: a lorebook with macros, Markdown memory with
 * blank lines, lists and code inside items, CRLF, persona files with headings of their own (SOUL.md-style, Chinese),
 * coding tools' agent files (YAML front matter, tools), AGENTS.md, JSON that is not a card (Tavern-like camelCase,
 * a Chinese app's role file, a nested agent file, and one with nothing usable), CHARX (honest, bombs, path tricks),
 * a card picture with a huge application chunk; and, for every fixture, how many profile fields survive
 * import → export → import. Fixture files are in test/support/fixtures/wild/ (written for these tests); binary ones are made
 * in test/support/card-fixtures.ts.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CHARX_LIMITS } from '../../lib/interop/card-charx.ts'
import { findProfile } from '../../lib/commands/kit.ts'
import { exportFile } from '../../lib/interop/file-export.ts'
import type { ExportFormat } from '../../lib/interop/file-export.ts'
import { markdownToProfile } from '../../lib/interop/markdown.ts'
import type { Profile } from '../../lib/state/model.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { charx, charxCard, lyingSizes, pngCard, richV2, textRecord, withTexts, zip } from '../support/card-fixtures.ts'
import { expectFileFailed, freshStore, importFilesInto } from '../support/store-helpers.ts'
import type { ImportNote } from '../../lib/shared/import-notes.ts'
import { chunk, png, records } from '../support/png.ts'

const FIXTURES = join(import.meta.dirname, '..', 'support', 'fixtures', 'wild')
const fixture = (name: string) => readFileSync(join(FIXTURES, name))

let store: ProfileStore
let dispose: () => Promise<void>
beforeEach(async () => {
  ;({ store, dispose } = await freshStore())
})
afterEach(async () => {
  await dispose()
})

type File = { name: string; format: string; text?: string; data?: string }

const fileOf = (name: string, bytes: Buffer): File =>
  /\.(png|charx)$/.test(name)
    ? { name, format: 'card', data: bytes.toString('base64') }
    : { name, format: name.endsWith('.md') ? 'markdown' : 'card', text: bytes.toString('utf8') }

const importFiles = (...files: File[]) => importFilesInto(store, ...files)
const one = async (name: string, bytes: Buffer = fixture(name)): Promise<{ p: Profile; warnings: ImportNote[] }> => {
  const r = await importFiles(fileOf(name, bytes))
  expect(r.files[0]!.error).toBeUndefined()
  return { p: store.state.profiles.find((x) => x.id === r.files[0]!.profileIds[0])!, warnings: r.files[0]!.warnings }
}

describe('cards', () => {
  it('substitutes {{char}}/{{user}} in lorebook entries like in every other field, and exports the entries as they came', async () => {
    const { p } = await one('lorebook-v2.json')
    expect(p.memory.items.map((it) => it.text)).toEqual([
      'Marlow lights the lamp at dusk; Marlow never lets it go out.',
      'Marlow owes the user three letters and the user knows it.',
      "In the storm of '09 Marlow rowed out alone.",
    ])
    expect(renderProfile(p).text).not.toMatch(/\{\{(char|user)\}\}|<BOT>|<USER>/i)
    const out = JSON.parse(exportFile(findProfile(store.state, p.id, 'id'), 'card-json', null).body.toString())
    expect(out.data.character_book.entries.map((e: { content: string }) => e.content)).toEqual(
      JSON.parse(fixture('lorebook-v2.json').toString()).data.character_book.entries.map(
        (e: { content: string }) => e.content,
      ),
    )
  })

  it('keeps only the chunks that draw a card picture: a 3.5 MB application chunk no longer costs the avatar', async () => {
    const pic = png(300, 450, 8)
    const heavy = Buffer.concat([
      pic.subarray(0, -12),
      chunk('prVw', Buffer.alloc(3_500_000, 1)),
      textRecord('Software', 'a painter'),
      pic.subarray(-12),
    ])
    const file = pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat', heavy)
    const cardChunks = records(file)
      .filter((r) => r.type === 'tEXt' && /^(chara|ccv3)\0/.test(r.data.toString('latin1', 0, 6)))
      .reduce((n, r) => n + r.record.length, 0)
    const { p } = await one('heavy.png', file)
    const avatar = Buffer.from(p.avatar.split(',')[1]!, 'base64')
    expect(avatar).toEqual(pic)
    console.log(
      `card picture with a 3.5 MB application chunk: avatar ${file.length - cardChunks} bytes before stripping, ${avatar.length} after`,
    )
  })
})

describe('JSON that is not a card', () => {
  it('maps the camelCase Tavern-like shape, and names each key with text it does not use', async () => {
    const { p, warnings } = await one('tavern-like.json')
    expect(p).toMatchObject({
      name: 'Captain Ines',
      rules: 'Stay in character as Ines. Never break the fourth wall.\n\nKeep replies under four sentences.',
      speakingStyle: "<START>\nthe user: What's good today?\nCaptain Ines: Whatever I burnt least.",
    })
    expect(warnings).toEqual([
      { key: 'tavernLike' },
      { key: 'unusedText', params: { where: 'cardField', key: 'avatarStyle', length: 37 } },
      { key: 'greetings', params: { length: 39, count: 0 } },
    ])
    const out = JSON.parse(exportFile(findProfile(store.state, p.id, 'id'), 'card-json', null).body.toString())
    expect(out.data).toMatchObject({
      first_mes: "Coffee's on. Sit anywhere but my chair.",
      avatarStyle: 'watercolour portrait, harbour at dawn',
    })
  })

  it("reads a chat app's role file (its prompt under a key of its own) and names what it leaves out", async () => {
    const { p, warnings } = await one('role-file-zh.json')
    expect(p.name).toBe('古文翻译官')
    expect(p.role).toMatch(/^你是一位精通先秦到明清文言的翻译官。/)
    expect(warnings).toEqual([
      { key: 'roleFile' },
      { key: 'notImported', params: { where: 'cardField', key: 'category', length: 2 } },
      { key: 'notImported', params: { where: 'cardField', key: 'intro', length: 15 } },
      { key: 'greetings', params: { length: 12, count: 0 } },
    ])
  })

  it('finds the prompt of a nested agent file', async () => {
    const { p, warnings } = await one('lobe-agent.json')
    expect(p).toMatchObject({ name: 'SQL Tutor', role: expect.stringMatching(/^You are a patient SQL tutor\./) })
    expect(warnings.slice(1)).toEqual([
      { key: 'notImported', params: { where: 'cardField', key: 'identifier', length: 9 } },
      { key: 'notImported', params: { where: 'description', length: 30 } },
      { key: 'notImported', params: { where: 'cardField', key: 'avatar', length: 3 } },
      { key: 'notImported', params: { where: 'tags', length: 12 } },
      { key: 'notImported', params: { where: 'model', length: 10 } },
    ])
  })

  it('refuses JSON with nothing usable, saying what it looked like, and changes nothing', async () => {
    await expectFileFailed(store, [fileOf('not-a-persona.json', fixture('not-a-persona.json'))], {
      key: 'notCard',
      field: 'file',
    })
    await expectFileFailed(store, [{ name: 'l.json', format: 'card', text: '[{"name":"a"},{"name":"b"}]' }], {
      key: 'notCard',
    })
  })
})

describe('Markdown from the wild', () => {
  it('reads a SOUL.md-style persona: every heading of its own kept, in the field its meaning names', async () => {
    const { p, warnings } = await one('soul.md')
    expect(p.name).toBe('SOUL')
    expect(p.role).toBe('You are not a search box. You are becoming someone.')
    expect(p.personality).toBe(
      '### Core Truths\n- Be useful, not performatively useful.\n- Have opinions, and say when you are unsure.',
    )
    expect(p.speakingStyle).toBe(
      '### Vibe\nPlain words. Short sentences.\nNo exclamation marks unless something is on fire.',
    )
    expect(p.rules).toBe(
      '### Boundaries\n- Private things stay private.\n- Ask before acting on anything that leaves the machine.\n\n### Continuity\nEach session you wake up fresh; these files are your memory.',
    )
    expect(warnings).toContainEqual({ key: 'sectionRules', params: { title: 'Continuity' } })
  })

  it('reads Chinese headings by meaning as well as by name', async () => {
    const { p } = await one('风格.md')
    expect(p).toMatchObject({
      name: '茶馆老板',
      role: '### 背景\n在成都开了二十年茶馆，认识半条街的人。',
      personality: '热情，爱打听，嘴硬心软。',
      speakingStyle: '### 风格\n说四川话，句尾常带“嘛”“噻”。',
      rules: '### 底线\n- 不传别人的闲话\n- 不劝人借钱\n\n### 常客\n王婆婆每天下午三点来，只喝花茶。',
    })
  })

  it.each([
    ['身份', 'Role', 'role'],
    ['人设', 'Persona', 'role'],
    ['性格特点', 'Personality', 'personality'],
    ['性格特征', 'Traits', 'personality'],
    ['说话习惯', 'Speaking style', 'speakingStyle'],
    ['口吻', 'Voice', 'speakingStyle'],
    ['行为准则', 'Ground rules', 'rules'],
    ['指令', 'System prompt', 'rules'],
    ['记忆摘要', 'Summary', 'summary'],
  ] as const)('matches the Chinese heading %s and the English %s to the same field', (zh, en, field) => {
    for (const h of [zh, en]) {
      const { profile, warnings } = markdownToProfile(`# x\n## ${h}\ntext\n`, 'f')
      expect(field === 'summary' ? profile.memory.summary : profile[field], h).toBe('text')
      expect(warnings, h).toEqual([])
    }
  })

  it("imports a coding tool's agent file: the body as the prompt, tools mapped to a custom tool profile of host tools", async () => {
    const { p, warnings } = await one('reviewer-agent.md')
    expect(p.name).toBe('code-reviewer')
    expect(p.role).toBe(
      'Reviews changed code for bugs, unclear names and missing tests. Use after writing or modifying code.',
    )
    expect(p.rules).toMatch(
      /^You are a senior reviewer\. When invoked:\n\n1\. Run `git diff`[^]*   - nit\n\n```bash\ngit diff --stat\n```\n\nNever edit files yourself\.$/,
    )
    expect(p.tools).toEqual({ profile: 'custom', add: ['read', 'grep', 'glob', 'bash', 'web_fetch'], remove: [] })
    expect(warnings).toEqual([
      { key: 'toolsUnknown', params: { names: 'Task', count: 1, more: 0 } },
      { key: 'modelNoProvider', params: { value: 'sonnet' } },
      { key: 'frontUnknownKey', params: { key: 'color' } },
      { key: 'noSections', params: { into: 'rules' } },
    ])
  })

  it('reads front matter as YAML says (lists, block text, quotes), and hand-written front matter YAML refuses line by line', () => {
    const yaml = markdownToProfile(
      "---\nname: 'It''s me'\ndescription: |\n  Line one\n  line two\ntools:\n  - Read\n  - web-search\nmemory: false\n---\nBody\n",
      'f',
    )
    expect(yaml.profile).toMatchObject({
      name: "It's me",
      role: 'Line one\nline two',
      rules: 'Body',
      memoryEnabled: false,
      tools: { profile: 'custom', add: ['read', 'web_search'], remove: [] },
    })
    const loose = markdownToProfile(
      '---\nname: helper\ndescription: Use when: the user asks "why?" <example>x</example>\n---\nBody\n',
      'f',
    )
    expect(loose.profile).toMatchObject({ name: 'helper', role: 'Use when: the user asks "why?" <example>x</example>' })
    expect(loose.warnings[0]).toEqual({ key: 'frontNotYaml' })
  })

  it('reads AGENTS.md: its sections kept under their headings', async () => {
    const { p } = await one('AGENTS.md')
    expect(p.role).toBe('Guidance for coding agents working in this repository.')
    expect(p.rules).toBe(
      '### Build & test\n- `npm ci` once, then `npm test`.\n- Run a single spec with `npx vitest run path/to/spec.ts`.\n\n### Code style\nTypeScript strict, two-space indent, no default exports.\n\n### Pull requests\nTitle: `area: what changed`. Describe the reason in the body.',
    )
  })

  it('keeps memory items whole (blank lines, lists, code) and writes the same file back', async () => {
    const { p } = await one('memory-heavy.md')
    expect(p.memory.items.map((it) => it.text)).toEqual([
      'Release checklist:\n\n1. bump the version\n2. tag\n\nThen announce it.',
      'A code sample the user saved:\n```js\n\n// blank line above is part of the sample\n- not a list item\n```',
      'Indented list, kept as one item:\n- alpha\n  - beta',
      'Plain item.',
    ])
    expect(exportFile(findProfile(store.state, p.id, 'id'), 'markdown', 'en').body).toEqual(fixture('memory-heavy.md'))
  })

  it('keeps CRLF line ends: the texts hold them, and the file written back is the same bytes', async () => {
    const { p } = await one('crlf-notes.md')
    expect(p.role).toBe('You take meeting notes.\r\nOne line per decision.')
    expect(p.memory.items.map((it) => it.text)).toEqual([
      'The team meets on Mondays.',
      'Decisions go in the wiki:\r\n\r\n1. title\r\n2. owner',
    ])
    expect(exportFile(findProfile(store.state, p.id, 'id'), 'markdown', 'en').body).toEqual(fixture('crlf-notes.md'))
  })
})

describe('CHARX', () => {
  it('reads card.json and the main icon (its picture without text chunks) as the avatar, and exports CHARX back', async () => {
    const icon = png(30, 45, 2)
    const withText = withTexts(icon, [{ keyword: 'Comment', text: 'made by a painter' }], 'after-idat')
    const { p, warnings } = await one('sera.charx', charx(charxCard(), withText))
    expect(warnings).toEqual([
      { key: 'bookDisabled', params: { count: 1 } },
      { key: 'bookArchivedAll', params: { count: 2 } },
      { key: 'greetings', params: { length: 42, count: 2 } },
    ])
    expect(p.name).toBe('Seraphina V3')
    expect(Buffer.from(p.avatar.split(',')[1]!, 'base64')).toEqual(icon)
    const out = unzipSync(exportFile(findProfile(store.state, p.id, 'id'), 'charx', null).body)
    expect(Object.keys(out).sort()).toEqual(['assets/icon/images/main.png', 'card.json'])
    const card = JSON.parse(new TextDecoder().decode(out['card.json']))
    expect(card).toMatchObject({
      spec: 'chara_card_v3',
      data: {
        name: 'Seraphina V3',
        nickname: 'Sera',
        assets: [{ type: 'icon', name: 'main', uri: 'embeded://assets/icon/images/main.png' }],
      },
    })
    expect(Buffer.from(out['assets/icon/images/main.png']!)).toEqual(icon)
  })

  it('refuses a zip bomb, whether it declares its size or lies about it, and changes nothing', async () => {
    const bomb = zip({ 'card.json': new Uint8Array(CHARX_LIMITS.card + 1024 * 1024) })
    expect(bomb.length).toBeLessThan(100_000)
    const honest = await expectFileFailed(store, [fileOf('bomb.charx', bomb)], {
      key: 'charxEntryTooBig',
      field: 'card.json',
      limit: CHARX_LIMITS.card,
    })
    expect(honest.params).toEqual({ size: CHARX_LIMITS.card + 1024 * 1024, limit: CHARX_LIMITS.card })
    const liar = await expectFileFailed(store, [fileOf('liar.charx', lyingSizes(bomb, 1000))], {
      key: 'zipBomb',
      field: 'card.json',
    })
    expect(liar.params).toMatchObject({ size: 1000 })
  })

  it('refuses a CHARX with an entry name that points outside the archive', async () => {
    for (const name of ['../../.bashrc', '/etc/passwd', 'assets/../../x.png', 'C:\\evil.png']) {
      const file = zip({ 'card.json': JSON.stringify(charxCard()), [name]: 'x' })
      await expectFileFailed(store, [fileOf('t.charx', file)], { key: 'charxOutside', field: 'file' })
    }
  })

  it('refuses a zip without card.json, naming what is missing', async () => {
    await expectFileFailed(store, [fileOf('x.charx', zip({ 'readme.txt': 'hi' }))], { key: 'charxNoCard' })
  })
})

describe('import → export → import', () => {
  const FIELDS = [
    'name',
    'emoji',
    'avatar',
    'role',
    'personality',
    'speakingStyle',
    'rules',
    'memoryEnabled',
    'summary',
    'items',
    'tools',
  ] as const
  const value = (p: Profile, f: (typeof FIELDS)[number]) =>
    f === 'summary' ? p.memory.summary : f === 'items' ? p.memory.items.map((it) => it.text) : p[f]
  const cases: [string, () => Buffer, ExportFormat][] = [
    ['lorebook-v2.json', () => fixture('lorebook-v2.json'), 'card-json'],
    ['lorebook-yaml-zh.json', () => fixture('lorebook-yaml-zh.json'), 'markdown'],
    ['tavern-like.json', () => fixture('tavern-like.json'), 'card-json'],
    ['role-file-zh.json', () => fixture('role-file-zh.json'), 'card-json'],
    ['lobe-agent.json', () => fixture('lobe-agent.json'), 'card-json'],
    ['soul.md', () => fixture('soul.md'), 'markdown'],
    ['风格.md', () => fixture('风格.md'), 'markdown'],
    ['reviewer-agent.md', () => fixture('reviewer-agent.md'), 'card-json'],
    ['AGENTS.md', () => fixture('AGENTS.md'), 'markdown'],
    ['memory-heavy.md', () => fixture('memory-heavy.md'), 'markdown'],
    ['crlf-notes.md', () => fixture('crlf-notes.md'), 'markdown'],
    ['card.png', () => pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat', png(40, 60, 3)), 'card-png'],
    ['sera.charx', () => charx(charxCard(), png(30, 45, 2)), 'charx'],
  ]

  it('keeps every field Markdown, cards and CHARX carry, for every fixture', async () => {
    const rows: string[] = []
    for (const [name, bytes, format] of cases) {
      const { p } = await one(name, bytes())
      const body = exportFile(findProfile(store.state, p.id, 'id'), format, 'en').body
      const other = await freshStore()
      try {
        const r = await importFilesInto(
          other.store,
          fileOf(
            `back.${format === 'markdown' ? 'md' : format === 'card-json' ? 'json' : format === 'charx' ? 'charx' : 'png'}`,
            body,
          ),
        )
        const q = other.store.state.profiles.find((x) => x.id === r.files[0]!.profileIds[0])!
        // Markdown carries no avatar and no tool settings: those are not fields of that format.
        const carried = FIELDS.filter((f) => !(format === 'markdown' && (f === 'avatar' || f === 'tools')))
        const kept = carried.filter((f) => JSON.stringify(value(q, f)) === JSON.stringify(value(p, f)))
        const filled = carried.filter((f) => {
          const v = value(p, f)
          return v !== '' && v !== undefined && !(Array.isArray(v) && v.length === 0)
        })
        rows.push(
          `${name.padEnd(20)} via ${format.padEnd(9)} ${kept.length}/${carried.length} fields (${filled.filter((f) => kept.includes(f)).length}/${filled.length} with content)`,
        )
        expect(kept, name).toEqual(carried)
      } finally {
        await other.dispose()
      }
    }
    console.log(rows.join('\n'))
  })
})
