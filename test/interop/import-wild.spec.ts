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
import type { FileResult } from '../../lib/shared/contract.ts'
import { profileFile } from '../../lib/commands/file-export.ts'
import type { ExportFormat } from '../../lib/interop/file-export.ts'
import { markdownToProfile } from '../../lib/interop/markdown.ts'
import type { Profile } from '../../lib/state/model.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { charx, charxCard, lyingSizes, pngCard, richV2, textRecord, withTexts, zip } from '../support/card-fixtures.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'
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

type Reply = { imported: number; files: FileResult[] }
type File = { name: string; format: string; text?: string; data?: string }

const fileOf = (name: string, bytes: Buffer): File => (/\.(png|charx)$/.test(name)
  ? { name, format: 'card', data: bytes.toString('base64') }
  : { name, format: name.endsWith('.md') ? 'markdown' : 'card', text: bytes.toString('utf8') })

async function importInto(s: ProfileStore, ...files: File[]): Promise<Reply> {
  return (await s.command({ op: 'profiles.importFiles', files } as unknown as Command)) as unknown as Reply
}
const importFiles = (...files: File[]) => importInto(store, ...files)
const one = async (name: string, bytes: Buffer = fixture(name)): Promise<{ p: Profile; warnings: string[] }> => {
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
    const out = JSON.parse(profileFile(store.state, p.id, 'card-json', null).body.toString())
    expect(out.data.character_book.entries.map((e: { content: string }) => e.content)).toEqual(
      JSON.parse(fixture('lorebook-v2.json').toString()).data.character_book.entries.map((e: { content: string }) => e.content))
  })

  it('keeps only the chunks that draw a card picture: a 3.5 MB application chunk no longer costs the avatar', async () => {
    const pic = png(300, 450, 8)
    const heavy = Buffer.concat([pic.subarray(0, -12), chunk('prVw', Buffer.alloc(3_500_000, 1)), textRecord('Software', 'a painter'), pic.subarray(-12)])
    const file = pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat', heavy)
    const cardChunks = records(file).filter((r) => r.type === 'tEXt' && /^(chara|ccv3)\0/.test(r.data.toString('latin1', 0, 6))).reduce((n, r) => n + r.record.length, 0)
    const { p } = await one('heavy.png', file)
    const avatar = Buffer.from(p.avatar.split(',')[1]!, 'base64')
    expect(avatar).toEqual(pic)
    console.log(`card picture with a 3.5 MB application chunk: avatar ${file.length - cardChunks} bytes before stripping, ${avatar.length} after`)
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
      'file: read as a Tavern-like card (firstMessage → first_mes, exampleDialogue → mes_example, systemPrompt → system_prompt, postHistoryInstructions → post_history_instructions, creatorNotes → creator_notes)',
      'file.avatarStyle: 37 characters of text that no profile field takes; kept for export, not shown to the model',
      "greeting: the card's greeting (first_mes, 39 characters) is not used here, as a profile does not open a conversation; kept, so an exported card carries it",
    ])
    const out = JSON.parse(profileFile(store.state, p.id, 'card-json', null).body.toString())
    expect(out.data).toMatchObject({ first_mes: "Coffee's on. Sit anywhere but my chair.", avatarStyle: 'watercolour portrait, harbour at dawn' })
  })

  it('reads a chat app\'s role file (its prompt under a key of its own) and names what it leaves out', async () => {
    const { p, warnings } = await one('role-file-zh.json')
    expect(p.name).toBe('古文翻译官')
    expect(p.role).toMatch(/^你是一位精通先秦到明清文言的翻译官。/)
    expect(warnings).toEqual([
      'file: not a character card; read as a role file (prompt, 角色名称, greeting)',
      'file.category: 2 characters of text not imported',
      'file.intro: 15 characters of text not imported',
      "greeting: the card's greeting (first_mes, 12 characters) is not used here, as a profile does not open a conversation; kept, so an exported card carries it",
    ])
  })

  it('finds the prompt of a nested agent file', async () => {
    const { p, warnings } = await one('lobe-agent.json')
    expect(p).toMatchObject({ name: 'SQL Tutor', role: expect.stringMatching(/^You are a patient SQL tutor\./) })
    expect(warnings.slice(1)).toEqual([
      'file.identifier: 9 characters of text not imported',
      'file.meta.description: 30 characters of text not imported',
      'file.meta.avatar: 3 characters of text not imported',
      'file.meta.tags: 12 characters of text not imported',
      'file.config.model: 10 characters of text not imported',
    ])
  })

  it('refuses JSON with nothing usable, saying what it looked like, and changes nothing', async () => {
    const e = await expectRefused(store, { op: 'profiles.importFiles', files: [fileOf('not-a-persona.json', fixture('not-a-persona.json'))] }, { code: 'invalid', field: 'files[0].file' })
    expect(e.message).toMatch(/is not a character card: it is an object with the keys "version", "items", "updated", with no card field/)
    const list = await expectRefused(store, { op: 'profiles.importFiles', files: [{ name: 'l.json', format: 'card', text: '[{"name":"a"},{"name":"b"}]' }] }, { code: 'invalid' })
    expect(list.message).toMatch(/is a list of 2 items, not a character card/)
  })
})

describe('Markdown from the wild', () => {
  it('reads a SOUL.md-style persona: every heading of its own kept, in the field its meaning names', async () => {
    const { p, warnings } = await one('soul.md')
    expect(p.name).toBe('SOUL')
    expect(p.role).toBe('You are not a search box. You are becoming someone.')
    expect(p.personality).toBe('### Core Truths\n- Be useful, not performatively useful.\n- Have opinions, and say when you are unsure.')
    expect(p.speakingStyle).toBe('### Vibe\nPlain words. Short sentences.\nNo exclamation marks unless something is on fire.')
    expect(p.rules).toBe('### Boundaries\n- Private things stay private.\n- Ask before acting on anything that leaves the machine.\n\n### Continuity\nEach session you wake up fresh; these files are your memory.')
    expect(warnings).toContain('section "Continuity" is not a profile field; kept in the ground rules under its own heading')
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
    ['身份', 'Role', 'role'], ['人设', 'Persona', 'role'], ['性格特点', 'Personality', 'personality'], ['性格特征', 'Traits', 'personality'],
    ['说话习惯', 'Speaking style', 'speakingStyle'], ['口吻', 'Voice', 'speakingStyle'], ['行为准则', 'Ground rules', 'rules'], ['指令', 'System prompt', 'rules'],
    ['记忆摘要', 'Summary', 'summary'],
  ] as const)('matches the Chinese heading %s and the English %s to the same field', (zh, en, field) => {
    for (const h of [zh, en]) {
      const { profile, warnings } = markdownToProfile(`# x\n## ${h}\ntext\n`, 'f')
      expect(field === 'summary' ? profile.memory.summary : profile[field], h).toBe('text')
      expect(warnings, h).toEqual([])
    }
  })

  it('imports a coding tool\'s agent file: the body as the prompt, tools mapped to a custom tool profile of host tools', async () => {
    const { p, warnings } = await one('reviewer-agent.md')
    expect(p.name).toBe('code-reviewer')
    expect(p.role).toBe('Reviews changed code for bugs, unclear names and missing tests. Use after writing or modifying code.')
    expect(p.rules).toMatch(/^You are a senior reviewer\. When invoked:\n\n1\. Run `git diff`[^]*   - nit\n\n```bash\ngit diff --stat\n```\n\nNever edit files yourself\.$/)
    expect(p.tools).toEqual({ profile: 'custom', add: ['read', 'grep', 'glob', 'bash', 'web_fetch'], remove: [] })
    expect(warnings).toEqual([
      'front matter tools: Task is not a tool this host has; left out of the profile\'s tools',
      'front matter model: "sonnet" names no provider ("provider/model"); left out, the conversation\'s model answers',
      'front matter color: is not name, emoji, memory, description, tools or model; left out',
      'the file has no "##" sections; its text is read as the ground rules',
    ])
  })

  it('reads front matter as YAML says (lists, block text, quotes), and hand-written front matter YAML refuses line by line', () => {
    const yaml = markdownToProfile("---\nname: 'It''s me'\ndescription: |\n  Line one\n  line two\ntools:\n  - Read\n  - web-search\nmemory: false\n---\nBody\n", 'f')
    expect(yaml.profile).toMatchObject({ name: "It's me", role: 'Line one\nline two', rules: 'Body', memoryEnabled: false, tools: { profile: 'custom', add: ['read', 'web_search'], remove: [] } })
    const loose = markdownToProfile('---\nname: helper\ndescription: Use when: the user asks "why?" <example>x</example>\n---\nBody\n', 'f')
    expect(loose.profile).toMatchObject({ name: 'helper', role: 'Use when: the user asks "why?" <example>x</example>' })
    expect(loose.warnings[0]).toMatch(/^front matter: is not valid YAML \(.+\); read line by line as "key: value"$/)
  })

  it('reads AGENTS.md: its sections kept under their headings', async () => {
    const { p } = await one('AGENTS.md')
    expect(p.role).toBe('Guidance for coding agents working in this repository.')
    expect(p.rules).toBe('### Build & test\n- `npm ci` once, then `npm test`.\n- Run a single spec with `npx vitest run path/to/spec.ts`.\n\n### Code style\nTypeScript strict, two-space indent, no default exports.\n\n### Pull requests\nTitle: `area: what changed`. Describe the reason in the body.')
  })

  it('keeps memory items whole (blank lines, lists, code) and writes the same file back', async () => {
    const { p } = await one('memory-heavy.md')
    expect(p.memory.items.map((it) => it.text)).toEqual([
      'Release checklist:\n\n1. bump the version\n2. tag\n\nThen announce it.',
      'A code sample the user saved:\n```js\n\n// blank line above is part of the sample\n- not a list item\n```',
      'Indented list, kept as one item:\n- alpha\n  - beta',
      'Plain item.',
    ])
    expect(profileFile(store.state, p.id, 'markdown', 'en').body).toEqual(fixture('memory-heavy.md'))
  })

  it('keeps CRLF line ends: the texts hold them, and the file written back is the same bytes', async () => {
    const { p } = await one('crlf-notes.md')
    expect(p.role).toBe('You take meeting notes.\r\nOne line per decision.')
    expect(p.memory.items.map((it) => it.text)).toEqual(['The team meets on Mondays.', 'Decisions go in the wiki:\r\n\r\n1. title\r\n2. owner'])
    expect(profileFile(store.state, p.id, 'markdown', 'en').body).toEqual(fixture('crlf-notes.md'))
  })
})

describe('CHARX', () => {
  it('reads card.json and the main icon (its picture without text chunks) as the avatar, and exports CHARX back', async () => {
    const icon = png(30, 45, 2)
    const withText = withTexts(icon, [{ keyword: 'Comment', text: 'made by a painter' }], 'after-idat')
    const { p, warnings } = await one('sera.charx', charx(charxCard(), withText))
    expect(warnings).toEqual(['data.character_book: 1 disabled entry left out of memory', 'data.character_book: 2 memory items go to the archive, recalled when their keys come up in a conversation', "greeting: the card's greeting (first_mes, 42 characters) and 2 alternate greetings are not used here, as a profile does not open a conversation; kept, so an exported card carries them"])
    expect(p.name).toBe('Seraphina V3')
    expect(Buffer.from(p.avatar.split(',')[1]!, 'base64')).toEqual(icon)
    const out = unzipSync(profileFile(store.state, p.id, 'charx', null).body)
    expect(Object.keys(out).sort()).toEqual(['assets/icon/images/main.png', 'card.json'])
    const card = JSON.parse(new TextDecoder().decode(out['card.json']))
    expect(card).toMatchObject({ spec: 'chara_card_v3', data: { name: 'Seraphina V3', nickname: 'Sera', assets: [{ type: 'icon', name: 'main', uri: 'embeded://assets/icon/images/main.png' }] } })
    expect(Buffer.from(out['assets/icon/images/main.png']!)).toEqual(icon)
  })

  it('refuses a zip bomb, whether it declares its size or lies about it, and changes nothing', async () => {
    const bomb = zip({ 'card.json': new Uint8Array(CHARX_LIMITS.card + 1024 * 1024) })
    expect(bomb.length).toBeLessThan(100_000)
    const honest = await expectRefused(store, { op: 'profiles.importFiles', files: [fileOf('bomb.charx', bomb)] }, { code: 'invalid', field: 'files[0].card.json', limit: CHARX_LIMITS.card })
    expect(honest.message).toContain(`says it expands to ${CHARX_LIMITS.card + 1024 * 1024} bytes, over the limit of ${CHARX_LIMITS.card}`)
    const liar = await expectRefused(store, { op: 'profiles.importFiles', files: [fileOf('liar.charx', lyingSizes(bomb, 1000))] }, { code: 'invalid', field: 'files[0].card.json' })
    expect(liar.message).toMatch(/expands past 1000 bytes \(the size its archive entry declares\); the archive looks like a zip bomb and is refused/)
  })

  it('refuses a CHARX with an entry name that points outside the archive', async () => {
    for (const name of ['../../.bashrc', '/etc/passwd', 'assets/../../x.png', 'C:\\evil.png']) {
      const file = zip({ 'card.json': JSON.stringify(charxCard()), [name]: 'x' })
      const e = await expectRefused(store, { op: 'profiles.importFiles', files: [fileOf('t.charx', file)] }, { code: 'invalid', field: 'files[0].file' })
      expect(e.message).toContain('points outside the archive; the CHARX is refused')
    }
  })

  it('refuses a zip without card.json, naming what is missing', async () => {
    const e = await expectRefused(store, { op: 'profiles.importFiles', files: [fileOf('x.charx', zip({ 'readme.txt': 'hi' }))] }, { code: 'invalid' })
    expect(e.message).toMatch(/is a zip without a card\.json/)
  })
})

describe('import → export → import', () => {
  const FIELDS = ['name', 'emoji', 'avatar', 'role', 'personality', 'speakingStyle', 'rules', 'memoryEnabled', 'summary', 'items', 'tools'] as const
  const value = (p: Profile, f: (typeof FIELDS)[number]) => (f === 'summary' ? p.memory.summary : f === 'items' ? p.memory.items.map((it) => it.text) : p[f])
  const cases: [string, () => Buffer, ExportFormat][] = [
    ['lorebook-v2.json', () => fixture('lorebook-v2.json'), 'card-json'],
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
      const body = profileFile(store.state, p.id, format, 'en').body
      const other = await freshStore()
      try {
        const r = await importInto(other.store, fileOf(`back.${format === 'markdown' ? 'md' : format === 'card-json' ? 'json' : format === 'charx' ? 'charx' : 'png'}`, body))
        const q = other.store.state.profiles.find((x) => x.id === r.files[0]!.profileIds[0])!
        // Markdown carries no avatar and no tool settings: those are not fields of that format.
        const carried = FIELDS.filter((f) => !(format === 'markdown' && (f === 'avatar' || f === 'tools')))
        const kept = carried.filter((f) => JSON.stringify(value(q, f)) === JSON.stringify(value(p, f)))
        const filled = carried.filter((f) => { const v = value(p, f); return v !== '' && v !== undefined && !(Array.isArray(v) && v.length === 0) })
        rows.push(`${name.padEnd(20)} via ${format.padEnd(9)} ${kept.length}/${carried.length} fields (${filled.filter((f) => kept.includes(f)).length}/${filled.length} with content)`)
        expect(kept, name).toEqual(carried)
      } finally {
        await other.dispose()
      }
    }
    console.log(rows.join('\n'))
  })
})
