/**
 * Markdown profile files: front matter (name, emoji, memory on/off) and `##` sections with Chinese, English or
 * bilingual headings; what a hand-written file gets wrong is reported, not silently dropped; several files (and an
 * envelope) at once through `profiles.importFiles`; and ours → Markdown → ours keeps every field Markdown carries.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { FileResult } from '../../lib/shared/import-report.ts'
import { findProfile } from '../../lib/commands/kit.ts'
import { exportFile } from '../../lib/interop/file-export.ts'
import { markdownToProfile, profileToMarkdown } from '../../lib/interop/markdown.ts'
import { LIMITS, type Profile } from '../../lib/state/model.ts'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { expectFileFailed, expectRefused, freshStore } from '../support/store-helpers.ts'

describe('reading a Markdown profile', () => {
  it('reads Chinese headings and front matter', () => {
    const { profile, warnings } = markdownToProfile(
      [
        '---',
        'name: 小林',
        'emoji: 🦊',
        'memory: off',
        '---',
        '',
        '## 身份',
        '你是书店店员。',
        '',
        '## 性格特点',
        '耐心，细致。',
        '## 说话习惯',
        '短句。',
        '## 行为准则',
        '- 不推荐盗版',
        '- 不编造书目',
        '## 记忆摘要',
        '老顾客多。',
        '## 记忆',
        '- 用户喜欢科幻',
        '- 用户住在杭州',
        '  离书店很近',
      ].join('\n'),
      'file',
    )
    expect(warnings).toEqual([])
    expect(profile).toEqual({
      name: '小林',
      emoji: '🦊',
      memoryEnabled: false,
      role: '你是书店店员。',
      personality: '耐心，细致。',
      speakingStyle: '短句。',
      rules: '- 不推荐盗版\n- 不编造书目',
      memory: {
        summary: '老顾客多。',
        items: [
          { text: '用户喜欢科幻', source: 'import' },
          { text: '用户住在杭州\n离书店很近', source: 'import' },
        ],
      },
    })
  })

  it('reads English and bilingual headings, CRLF line ends, quoted values and a name from the H1', () => {
    const { profile } = markdownToProfile(
      '# Reviewer\r\n\r\n## Role / 身份\r\nYou review code.\r\n## personality:\r\nBlunt.\r\n## Speaking Style\r\nTerse.\r\n## Ground rules\r\nCite lines.\r\n',
      'file',
    )
    expect(profile).toMatchObject({
      name: 'Reviewer',
      role: 'You review code.',
      personality: 'Blunt.',
      speakingStyle: 'Terse.',
      rules: 'Cite lines.',
      memoryEnabled: true,
    })
    expect(
      markdownToProfile('---\nname: "A: B # not a comment"\nemoji: \'🙂\'\nmemory: 开\n---\n', 'f').profile,
    ).toMatchObject({ name: 'A: B # not a comment', emoji: '🙂', memoryEnabled: true })
  })

  it('does not take "##" inside a code block for a section', () => {
    const { profile } = markdownToProfile('---\nname: x\n---\n## Rules\n```\n## Role\nnot a heading\n```\nafter\n', 'f')
    expect(profile.role).toBe('')
    expect(profile.rules).toBe('```\n## Role\nnot a heading\n```\nafter')
  })

  it('keeps what it cannot place exactly, in the closest field, and says where it went', () => {
    const { profile, warnings } = markdownToProfile(
      '---\nname: x\ncolour: red\nmemory: maybe\n---\nstray line\n## Hobbies\nchess\n## Role\nok\n## Role\nmore\n',
      'f',
    )
    expect(profile.role).toBe('stray line\n\nok\n\nmore')
    expect(profile.rules).toBe('### Hobbies\nchess')
    expect(warnings).toEqual([
      { key: 'frontUnknownKey', params: { key: 'colour' } },
      { key: 'memorySwitch', params: { value: 'maybe' } },
      { key: 'textBefore', params: { level: '##', into: 'role' } },
      { key: 'sectionRules', params: { title: 'Hobbies' } },
      { key: 'sectionTwice', params: { title: 'Role' } },
    ])
  })

  it('names a profile after its file when the file names none, and fits over-long fields with a warning', () => {
    const { profile, warnings } = markdownToProfile(`## 身份\n${'长'.repeat(LIMITS.role + 1)}\n`, '店员')
    expect(profile.name).toBe('店员')
    expect(profile.role).toHaveLength(LIMITS.role)
    expect(warnings).toEqual([
      { key: 'unnamed', params: { name: '店员' } },
      { key: 'cut', params: { where: 'role', length: LIMITS.role + 1, limit: LIMITS.role } },
    ])
  })

  it('names a persona whose title starts with a file name ("SOUL.md - Who You Are") after the file name\'s stem, and says so', () => {
    const name = (title: string) => markdownToProfile(`# ${title}\n\n## Role\nx\n`, 'fallback')
    for (const title of [
      'SOUL.md - Who You Are',
      'SOUL.md — Who You Are',
      'soul.MD: Who you are',
      'SOUL.md | 你是谁',
      'SOUL.md',
    ]) {
      expect(name(title).profile.name, title).toBe(title.slice(0, 4))
    }
    expect(name('SOUL.md - Who You Are').warnings).toEqual([
      { key: 'titleFileName', params: { title: 'SOUL.md - Who You Are', name: 'SOUL' } },
    ])
    // Not a file name, or a file name inside a sentence: the title is the name, as before.
    for (const title of ['Node.js - helper', 'notes.md is where I write', 'Dr. Who', '.md - x', 'Reviewer - strict']) {
      expect(name(title).profile.name, title).toBe(title)
      expect(name(title).warnings, title).toEqual([])
    }
    // Front matter's name wins over the title; a 40,000-character title is read by its start and kept as it was.
    expect(markdownToProfile('---\nname: Kit\n---\n# SOUL.md - Who\n## Role\nx\n', 'f').profile.name).toBe('Kit')
    expect(name(`${'a'.repeat(40_000)}.md - x`).profile.name).toHaveLength(LIMITS.name)
  })

  it("takes emphasis marks out of a persona's role, personality and speaking style, keeping every mark that is not emphasis", () => {
    const role = (text: string) =>
      markdownToProfile(`# Kit\n\n${text}\n\n## Vibe\n**Calm**, _dry_.\n\n## Boundaries\n**Never** lie.\n`, 'f').profile
    expect(role('_You are not a search box._ You are *becoming* **someone**.').role).toBe(
      'You are not a search box. You are becoming someone.',
    )
    expect(role('**Bold with _inner_ stress** and __old bold__').role).toBe('Bold with inner stress and old bold')
    // Not emphasis: inside words, alone between spaces, bullets, runs of three, escaped, unclosed, in code.
    for (const text of [
      'use snake_case_names',
      '2 * 3 * 4',
      '* a bullet',
      '***three***',
      '\\*not\\*',
      'an *open mark',
      '`*code*` and *x*',
      'a_b and _c',
    ]) {
      expect(role(text).role, text).toBe(text)
    }
    expect(role('```\n*in a fence*\n```\n*out*').role).toBe('```\n*in a fence*\n```\nout')
    const p = role('x')
    expect(p.speakingStyle).toBe('### Vibe\nCalm, dry.')
    // Ground rules keep the author's marks: there they stress an instruction.
    expect(p.rules).toBe('### Boundaries\n**Never** lie.')
    // A section under a field's own heading is read as written: export writes those, and gives back every text exactly.
    expect(markdownToProfile('## Role\n_kept_ as *written*\n', 'f').profile.role).toBe('_kept_ as *written*')
  })

  it('refuses an empty file and front matter that never closes; any other text becomes a profile', () => {
    expect(markdownToProfile('# notes\n', 'f').profile.name).toBe('notes')
    expect(markdownToProfile('just some notes\n\n### sub\n', 'f').profile.role).toBe('just some notes\n\n### sub')
    expect(() => markdownToProfile(' \n\n', 'f')).toThrow(/^file: empty$/)
    expect(() => markdownToProfile('---\nname: x\n## Role\n', 'f')).toThrow(/^front matter: frontUnclosed$/)
  })
})

describe('ours → Markdown → ours', () => {
  const p: Profile = {
    id: 'p1',
    name: 'on',
    emoji: '#️⃣',
    avatar: '',
    role: '第一行\n## 看着像标题\n\\## 本来就有反斜杠',
    personality: '# 一级',
    speakingStyle: '```\n## in code\n```',
    rules: '- a\n- b',
    memoryEnabled: false,
    memory: {
      summary: '摘要',
      items: [
        { id: 'm1', text: '一条', source: 'user', at: 1 },
        { id: 'm2', text: '两行\n# 第二行', source: 'tool', at: 2 },
      ],
    },
    createdAt: 1,
    updatedAt: 2,
  }

  it.each(['zh', 'en'] as const)(
    'keeps name, emoji, memory switch, every text field and the memory texts (%s headings)',
    (lang) => {
      const md = profileToMarkdown(p, lang)
      const { profile, warnings } = markdownToProfile(md, 'f')
      expect(warnings).toEqual([])
      const { memory, ...rest } = profile
      expect(rest).toEqual({
        name: 'on',
        emoji: '#️⃣',
        role: p.role,
        personality: p.personality,
        speakingStyle: p.speakingStyle,
        rules: p.rules,
        memoryEnabled: false,
      })
      expect(memory).toEqual({
        summary: '摘要',
        items: p.memory.items.map((it) => ({ text: it.text, source: 'import' })),
      })
    },
  )

  it("keeps the profile's model as `model: provider/model`; its body is still read by its sections", () => {
    const md = profileToMarkdown({
      ...p,
      model: { provider: 'deepseek-official', model: 'org/deepseek-v4-pro', temperature: 0.5 },
    })
    expect(md).toContain('\nmodel: deepseek-official/org/deepseek-v4-pro\n')
    const { profile, warnings } = markdownToProfile(md, 'f')
    expect(warnings).toEqual([])
    expect(profile.model).toEqual({ provider: 'deepseek-official', model: 'org/deepseek-v4-pro' })
    expect(profile.role).toBe(p.role)
  })

  it('writes the headings the prompt uses, and no empty sections', () => {
    const md = profileToMarkdown({ ...p, personality: '', memory: { summary: '', items: [] } })
    expect(md).toMatch(/^---\nname: "on"\nemoji: "#️⃣"\nmemory: off\n---\n\n## 身份\n/)
    expect(md).not.toMatch(/性格特点|记忆/)
  })
})

describe('several files at once through the store', () => {
  let store: ProfileStore
  let dispose: () => Promise<void>
  beforeEach(async () => {
    ;({ store, dispose } = await freshStore())
  })
  afterEach(async () => {
    await dispose()
  })

  it('imports a folder of Markdown files and an envelope, merged beside what is there', async () => {
    const envelope = JSON.stringify(store.exportEnvelope(['general']))
    const factory = store.state.profiles.map((x) => x.name)
    const files = [
      { name: 'team/a.md', format: 'markdown', text: '---\nname: 甲\n---\n## 身份\n甲的身份\n' },
      { name: 'team/b.md', format: 'markdown', text: '# 乙\n## Role\nB\n' },
      { name: 'backup.json', format: 'envelope', text: envelope },
    ]
    const r = (await store.command({ op: 'profiles.importFiles', files } as unknown as Command)) as unknown as {
      imported: number
      files: FileResult[]
      notice: { key: string; params: unknown }
    }
    expect(r.imported).toBe(2)
    expect(store.state.profiles.map((x) => x.name)).toEqual([...factory, '甲', '乙'])
    expect(r.files[2]).toMatchObject({ imported: 0, profileIds: [], unchanged: [{ id: 'general', name: factory[0] }] })
    expect(r.notice).toEqual({
      key: 'files.imported',
      params: { count: 2, files: 3, unchanged: 1, conflicts: 0, userAdded: 0, failed: 0, warned: 0 },
    })
    const md = exportFile(findProfile(store.state, r.files[0]!.profileIds[0]!, 'id'), 'markdown', null).body.toString()
    expect(md).toBe('---\nname: 甲\nemoji: 🙂\nmemory: on\n---\n\n## 身份\n\n甲的身份\n')
  })

  it('answers a batch in which no file is a profile with the reason, changing nothing, and refuses malformed arguments', async () => {
    await expectFileFailed(store, [{ name: 'notes.md', format: 'markdown', text: '\n' }], {
      key: 'empty',
      field: 'file',
    })
    await expectRefused(store, { op: 'profiles.importFiles', files: [] }, { code: 'invalid', field: 'files' })
    await expectRefused(
      store,
      { op: 'profiles.importFiles', files: [{ name: 'x.md', format: 'yaml', text: '' }] },
      { code: 'invalid', field: 'files[0].format' },
    )
  })
})
