/**
 * Markdown profile files ⇄ profiles: front matter (name, emoji, memory on/off) and one `##` section per field, with
 * Chinese or English headings. Owns the heading vocabulary, the escaping of field lines that would read as headings,
 * and the best-effort reading of hand-written files (what it cannot place is reported, never silently dropped).
 * Pure. The front matter is read by hand: it is three scalar keys, and no YAML library is a dependency.
 */
import { LIMITS, type Profile } from '../shared/model.ts'
import { ImportError, asText, fit } from '../shared/card-text.ts'
import type { MemoryItemImport } from './card-book.ts'
import type { ProfileImport } from './cards.ts'

/** Characters of a Markdown file we read; a profile at every limit is about 0.6 M. */
export const MARKDOWN_LIMIT = 1_000_000

type Section = 'role' | 'personality' | 'speakingStyle' | 'rules' | 'summary' | 'items'

/** Headings each section answers to, compared case-insensitively; the first of each language is what export writes. */
const HEADINGS: Record<Section, { zh: string[]; en: string[] }> = {
  role: { zh: ['身份', '角色', '角色设定', '角色定位', '身份设定'], en: ['Role', 'Identity'] },
  personality: { zh: ['性格特点', '性格', '个性'], en: ['Personality', 'Character'] },
  speakingStyle: { zh: ['说话习惯', '说话风格', '说话方式', '语气', '口吻', '表达风格'], en: ['Speaking style', 'Style', 'Voice', 'Tone', 'Speech'] },
  rules: { zh: ['行为准则', '准则', '规则', '原则', '守则'], en: ['Ground rules', 'Rules', 'Guidelines', 'Instructions'] },
  summary: { zh: ['记忆摘要', '摘要'], en: ['Memory summary', 'Summary'] },
  items: { zh: ['记忆条目', '记忆', '长期记忆'], en: ['Memory', 'Memories', 'Memory items'] },
}
const SECTIONS = Object.keys(HEADINGS) as Section[]

const FRONT_KEYS: Record<string, 'name' | 'emoji' | 'memory'> = {
  name: 'name', title: 'name', 名称: 'name', 名字: 'name', 名称或名字: 'name',
  emoji: 'emoji', icon: 'emoji', 表情: 'emoji', 图标: 'emoji',
  memory: 'memory', memoryenabled: 'memory', 记忆: 'memory',
}
const ON = ['on', 'true', 'yes', 'y', '1', '开', '开启', '启用', '是']
const OFF = ['off', 'false', 'no', 'n', '0', '关', '关闭', '停用', '否']

const normal = (s: string) => s.trim().replace(/[:：]$/, '').replace(/\s+/g, ' ').toLowerCase()

function sectionOf(title: string): Section | undefined {
  // "身份 / Role" and "Role | 身份" name the same section in both languages.
  const parts = title.split(/\s*[/|｜]\s*/).map(normal)
  return SECTIONS.find((s) => parts.some((p) => [...HEADINGS[s].zh, ...HEADINGS[s].en].some((h) => h.toLowerCase() === p)))
}

/** A YAML scalar as plain text: double-quoted (JSON rules), single-quoted ('' is a quote) or plain (` #` starts a comment). */
function scalar(raw: string, field: string, w: string[]): string {
  const v = raw.trim()
  if (v.startsWith('"')) {
    try {
      return String(JSON.parse(v))
    } catch {
      w.push(`${field}: the quoted value is not closed properly; read as written`)
      return v.slice(1).replace(/"$/, '')
    }
  }
  if (v.startsWith("'") && v.endsWith("'") && v.length > 1) return v.slice(1, -1).replace(/''/g, "'")
  return v.replace(/\s+#.*$/, '').trim()
}

/** A value as a YAML scalar, quoted only when plain YAML would read it differently. */
function yamlScalar(v: string): string {
  const plain = v !== '' && v === v.trim() && !/^[-?:,[\]{}#&*!|>'"%@`~]/.test(v) && !/:\s|:$|\s#/.test(v)
    && !/^(true|false|yes|no|on|off|null|y|n|[-+]?[\d.]+)$/i.test(v)
  return plain ? v : JSON.stringify(v)
}

interface Front {
  name?: string
  emoji?: string
  memory?: boolean
}

function frontMatter(lines: string[], w: string[]): Front {
  const front: Front = {}
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue
    const m = /^([^:：]+)[:：](.*)$/.exec(line)
    const key = m === null ? undefined : FRONT_KEYS[normal(m[1]!).replace(/\s/g, '')]
    if (m === null || key === undefined) {
      w.push(`front matter line ${i + 2}: "${line.trim().slice(0, 40)}" is not name, emoji or memory; left out`)
      continue
    }
    const value = asText(scalar(m[2]!, `front matter ${key}`, w), `front matter ${key}`, w)
    if (key === 'memory') {
      const v = value.toLowerCase()
      if (ON.includes(v)) front.memory = true
      else if (OFF.includes(v)) front.memory = false
      else w.push(`front matter memory: "${value.slice(0, 20)}" is neither on nor off; memory stays on`)
    } else {
      front[key] = value
    }
  }
  return front
}

/** Undo export's escaping: one backslash before a line's leading `#` goes. */
const unescape = (line: string) => (/^\\+#/.test(line) ? line.slice(1) : line)
/** Escape a field line that a reader would take for a heading (and lines already starting with `\…#`). */
const escape = (line: string) => (/^\\*#/.test(line) ? `\\${line}` : line)

/** Memory items from a section: list items (with indented continuation lines) or, failing that, paragraphs. */
function listItems(lines: string[], w: string[]): MemoryItemImport[] {
  const texts: string[] = []
  let current: string[] | null = null
  for (const line of lines) {
    const bullet = /^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line)
    if (bullet !== null) {
      current = [bullet[1]!]
      texts.push('')
    } else if (line.trim() === '') {
      current = null
      continue
    } else if (current !== null && /^\s{2,}/.test(line)) {
      current.push(line.replace(/^\s{2}/, ''))
    } else if (current !== null) {
      current.push(line)
    } else {
      current = [line]
      texts.push('')
    }
    texts[texts.length - 1] = current.map(unescape).join('\n')
  }
  const items = texts.map((t) => t.trim()).filter((t) => t !== '')
    .map((t, i): MemoryItemImport => ({ text: fit(t, LIMITS.memoryItem, `memory item ${i + 1}`, w), source: 'import' }))
  if (items.length > LIMITS.memoryItems) {
    w.push(`memory: ${items.length} items, only the first ${LIMITS.memoryItems} kept (the limit)`)
    return items.slice(0, LIMITS.memoryItems)
  }
  return items
}

/** What a Markdown file gives, and what was not quite right in it. */
export interface MarkdownImport {
  profile: ProfileImport
  warnings: string[]
}

/** Read a Markdown profile file. Throws {@link ImportError} when it holds nothing that makes a profile. */
export function markdownToProfile(input: string, fallbackName: string): MarkdownImport {
  if (input.length > MARKDOWN_LIMIT) throw new ImportError('file', `is ${input.length} characters, over the limit of ${MARKDOWN_LIMIT}`, MARKDOWN_LIMIT)
  const w: string[] = []
  const lines = input.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n')
  let at = 0
  let front: Front = {}
  if (lines[0]?.trim() === '---') {
    const close = lines.findIndex((l, i) => i > 0 && (l.trim() === '---' || l.trim() === '...'))
    if (close < 0) throw new ImportError('front matter', 'starts with "---" but has no closing "---" line')
    front = frontMatter(lines.slice(1, close), w)
    at = close + 1
  }
  const sections: Partial<Record<Section, string[]>> = {}
  let title: string | undefined
  let target: string[] | null = null
  let fence: string | null = null
  let skipping = false
  const stray: string[] = []
  for (const line of lines.slice(at)) {
    const fenceMark = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === null && fenceMark !== undefined) fence = fenceMark[0]!
    else if (fence !== null && fenceMark?.[0] === fence) fence = null
    const heading = fence === null && fenceMark === undefined ? /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line) : null
    if (heading !== null && heading[1] === '#' && title === undefined && target === null) {
      title = heading[2]!
      continue
    }
    if (heading !== null && heading[1] === '##') {
      const section = sectionOf(heading[2]!)
      if (section === undefined) {
        w.push(`section "${heading[2]!.slice(0, 40)}" is not a profile field; its text is left out`)
        target = null
        skipping = true
        continue
      }
      if (sections[section] !== undefined) w.push(`section "${heading[2]}" appears twice; the texts are joined`)
      target = sections[section] ??= []
      if (target.length > 0) target.push('')
      continue
    }
    if (target !== null) target.push(line)
    else if (!skipping && line.trim() !== '') stray.push(line)
  }
  if (stray.length > 0) w.push(`${stray.length} line(s) before the first "##" section are not in any field; left out`)
  const found = SECTIONS.filter((s) => sections[s] !== undefined)
  if (at === 0 && title === undefined && found.length === 0) {
    throw new ImportError('file', 'is not a profile: it has no front matter and no "##" section named after a profile field (身份/Role, 性格特点/Personality, 说话习惯/Speaking style, 行为准则/Ground rules, 记忆/Memory)')
  }
  const body = (s: Section) => (sections[s] ?? []).map(unescape).join('\n').trim()
  let name = (front.name ?? title ?? '').replace(/\s+/g, ' ').trim()
  if (name === '') {
    name = fallbackName
    w.push(`name: the file names no profile; named "${name}" after the file`)
  }
  const emoji = (front.emoji ?? '').trim()
  const profile: ProfileImport = {
    name: fit(name, LIMITS.name, 'name', w),
    emoji: emoji === '' || /[\r\n]/.test(emoji) ? '🙂' : fit(emoji, LIMITS.emoji, 'emoji', w),
    role: fit(body('role'), LIMITS.role, 'role', w),
    personality: fit(body('personality'), LIMITS.personality, 'personality', w),
    speakingStyle: fit(body('speakingStyle'), LIMITS.speakingStyle, 'speaking style', w),
    rules: fit(body('rules'), LIMITS.rules, 'ground rules', w),
    memoryEnabled: front.memory ?? true,
    memory: { summary: fit(body('summary'), LIMITS.summary, 'memory summary', w), items: listItems(sections.items ?? [], w) },
  }
  return { profile, warnings: w }
}

/** A profile as a Markdown file with headings in `lang`. Memory provenance is not written (the envelope keeps it). */
export function profileToMarkdown(p: Profile, lang: 'zh' | 'en' = 'zh'): string {
  const out = ['---', `name: ${yamlScalar(p.name)}`, `emoji: ${yamlScalar(p.emoji)}`, `memory: ${p.memoryEnabled ? 'on' : 'off'}`, '---']
  const block = (s: Section, text: string) => {
    if (text.trim() === '') return
    out.push('', `## ${HEADINGS[s][lang][0]}`, '', text.replace(/\r\n?/g, '\n').split('\n').map(escape).join('\n'))
  }
  block('role', p.role)
  block('personality', p.personality)
  block('speakingStyle', p.speakingStyle)
  block('rules', p.rules)
  block('summary', p.memory.summary)
  block('items', p.memory.items.map((it) => `- ${it.text.replace(/\r\n?/g, '\n').split('\n').map(escape).join('\n  ')}`).join('\n'))
  return `${out.join('\n')}\n`
}
