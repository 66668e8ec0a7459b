/**
 * Markdown profile files ⇄ profiles: front matter (markdown-front.ts) and one `##` section per field, with Chinese or
 * English headings. Owns the heading vocabulary (exact names, and words that say what a heading means), the escaping
 * that makes export → import give back every text exactly (line ends, blank lines, indentation, list markers and code
 * fences inside memory items), and the best-effort reading of files from the wild: agent files whose body is a prompt,
 * persona files with headings of their own. Text it cannot map is kept in the closest field under its own heading and
 * reported; a non-empty file never becomes an empty profile. Pure.
 */
import { LIMITS, type Profile } from '../state/model.ts'
import { cleanName, fit } from '../shared/card-text.ts'
import { note, type ImportNote } from '../shared/import-notes.ts'
import { isInvisible, wellFormed } from '../shared/safe-text.ts'
import { Warnings } from './bounds.ts'
import type { MemoryItemImport } from './card-book.ts'
import type { ProfileImport } from './card-to-profile.ts'
import { withoutEmphasis } from './markdown-emphasis.ts'
import { readFront, yamlScalar, type Front } from './markdown-front.ts'
import { splitKeys, withKeys } from '../shared/memory-keys.ts'
import { ImportError } from '../shared/errors.ts'

/** Characters of a Markdown file we read; a profile at every limit is about 0.6 M. */
const MARKDOWN_LIMIT = 1_000_000
/**
 * Lines of a Markdown file we read. Reading costs per line (about 2 ms per thousand on a loaded 2-core machine), and
 * a host that reads 500,000 one-character lines holds every page and conversation for 100 ms or more; a profile with
 * 500 memories of a few lines each is a few thousand.
 */
export const MARKDOWN_LINE_LIMIT = 20_000

type Section = 'role' | 'personality' | 'speakingStyle' | 'rules' | 'summary' | 'items'

/** Headings that name a section exactly, compared case-insensitively; the first of each language is what export writes. */
const HEADINGS: Record<Section, { zh: string[]; en: string[] }> = {
  role: {
    zh: ['身份', '角色', '角色设定', '角色定位', '身份设定', '人设'],
    en: ['Role', 'Identity', 'Persona', 'Character role', 'Who you are', 'Profile'],
  },
  personality: {
    zh: ['性格特点', '性格', '个性', '性格特征', '人格'],
    en: ['Personality', 'Character', 'Traits', 'Personality traits', 'Temperament'],
  },
  speakingStyle: {
    zh: ['说话习惯', '说话风格', '说话方式', '语气', '口吻', '表达风格'],
    en: ['Speaking style', 'Style', 'Voice', 'Tone', 'Speech', 'Manner of speaking'],
  },
  rules: {
    zh: ['行为准则', '准则', '规则', '原则', '守则', '指令'],
    en: ['Ground rules', 'Rules', 'Guidelines', 'Instructions', 'Principles', 'System prompt'],
  },
  summary: { zh: ['记忆摘要', '摘要'], en: ['Memory summary', 'Summary'] },
  items: { zh: ['记忆条目', '记忆', '长期记忆'], en: ['Memory', 'Memories', 'Memory items'] },
}
const SECTIONS = Object.keys(HEADINGS) as Section[]
/** Each exact heading (lower case) and its section; where a file's heading could name two, the first section wins. */
const BY_HEADING = new Map<string, Section>()
for (const s of SECTIONS)
  for (const h of [...HEADINGS[s].zh, ...HEADINGS[s].en])
    if (!BY_HEADING.has(h.toLowerCase())) BY_HEADING.set(h.toLowerCase(), s)
/** Sections a file is read as at most; a real profile file has a dozen, and the headings past these are text. */
const SECTION_LIMIT = 200

/** Words in a heading that say which field its text belongs to, in the order they are tried. */
const MEANINGS: [Section, RegExp][] = [
  ['items', /\b(facts?|memories|remember)\b|记住|事实|往事/i],
  [
    'speakingStyle',
    /\b(vibe|tone|voice|speech|speak\w*|talk\w*|writing|communicat\w*|language|wording|phrasing)\b|语气|语言|说话|口吻|表达|沟通|措辞|文风|风格/i,
  ],
  [
    'personality',
    /\b(personality|traits?|values?|truths?|beliefs?|soul|nature|temperament|character|attitude|mindset|quirks?)\b|性格|个性|价值|信念|灵魂|脾气|特点|特质/i,
  ],
  [
    'rules',
    /\b(rules?|boundar\w*|limits?|constraints?|guidelines?|instructions?|principles?|never|always|must|don'?ts?|safety|policy|policies|workflow|process|conventions?)\b|规则|边界|底线|禁止|限制|约束|要求|注意|原则|规范|流程|须知/i,
  ],
  [
    'role',
    /\b(who|about|identity|background|backstory|story|history|purpose|mission|goals?|job|context|scenario|setting|overview|introduction|bio)\b|身份|背景|简介|介绍|关于|经历|目标|使命|职责|任务|场景|设定/i,
  ],
]

/**
 * Characters of a heading's title that are matched against the heading words. A real heading is a few words; a
 * longer one is read by its start, so no pattern ever runs over a 40,000-character title.
 */
const TITLE_MATCH = 200

const normal = (s: string) =>
  s
    .trim()
    .replace(/[:：]$/, '')
    .replace(/\s+/g, ' ')
    .toLowerCase()

/** The section a heading names exactly: "身份 / Role" and "Role | 身份" name the same section in both languages. */
function sectionOf(title: string): Section | undefined {
  // Split on the separator alone and trimmed after: `\s*[/|｜]\s*` retries every run of spaces from each of its
  // spaces, which is quadratic in the run.
  const parts = title
    .slice(0, TITLE_MATCH)
    .split(/[/|｜]/)
    .map(normal)
  for (const p of parts) {
    const s = BY_HEADING.get(p)
    if (s !== undefined) return s
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------
// Lines: fences, escaping

const isBlank = (c: string | undefined) => c === ' ' || c === '\t'

/** Characters that separate a file name from a title in a heading ("SOUL.md - Who You Are"). */
const NAME_SEPARATORS = new Set(['-', '–', '—', ':', '：', '|', '｜', '·'])
/** Extensions of the text files a title may start with; "Node.js - …" names a persona, not a file. */
const FILE_EXTENSIONS = new Set(['md', 'markdown', 'mdx', 'txt'])

/**
 * The name a file's `#` title gives: the file name's stem when the title starts with a file name ("SOUL.md - Who You
 * Are" and "SOUL.md" give "SOUL"), else the title. The stem, not the words after the separator: those describe the
 * file (a heading such as "Who You Are" is what a role section is called), while the file name is what the persona
 * is known by. Scanned by hand over at most {@link TITLE_MATCH} characters, so a long title costs nothing more.
 */
function titleName(title: string): string {
  const head = title.slice(0, TITLE_MATCH)
  let end = 0
  while (end < head.length && !isBlank(head[end]) && head[end] !== '\u3000') end++
  let token = head.slice(0, end)
  let separated = false
  if (token.endsWith(':') || token.endsWith('：')) {
    token = token.slice(0, -1)
    separated = true
  }
  const dot = token.lastIndexOf('.')
  if (dot < 1 || !FILE_EXTENSIONS.has(token.slice(dot + 1).toLowerCase())) return title
  let at = end
  while (at < head.length && isBlank(head[at])) at++
  if (!separated && at < head.length && !NAME_SEPARATORS.has(head[at]!)) return title
  // A file name alone, or a file name, a separator and a title: the stem. A file name then words without a separator
  // ("notes.md is the place") is a sentence, kept whole (returned above).
  return token.slice(0, dot)
}

/**
 * An ATX heading (`## Title ##`): its level and title, read by hand in one pass. The pattern this replaces,
 * `^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t\r]*$`, tried every split of a long run of spaces (seconds for 40,000).
 */
function headingOf(line: string): { level: number; title: string } | undefined {
  let level = 0
  while (level < line.length && line[level] === '#') level++
  if (level < 1 || level > 6 || !isBlank(line[level])) return undefined
  let end = line.length
  while (end > level && (isBlank(line[end - 1]) || line[end - 1] === '\r')) end--
  // A closing run of `#` counts only after a space or tab (or when it is all the title has).
  let hashes = end
  while (hashes > level && line[hashes - 1] === '#') hashes--
  if (hashes < end && isBlank(line[hashes - 1])) {
    end = hashes
    while (end > level && isBlank(line[end - 1])) end--
  }
  let start = level
  while (start < end && isBlank(line[start])) start++
  return { level, title: line.slice(start, end) }
}

/** The fence a line opens or closes (its character and length, and whether anything follows it), if it is one. */
function fenceOf(line: string): { char: string; size: number; bare: boolean } | undefined {
  const m = /^ {0,3}(`{3,}|~{3,})(.*)$/s.exec(line)
  if (m === null || (m[1]![0] === '`' && m[2]!.includes('`'))) return undefined
  return { char: m[1]![0]!, size: m[1]!.length, bare: m[2]!.trim() === '' }
}

/** The fence open after `line`, given the one open before it (CommonMark's rule: the same character, at least as long). */
function fenceAfter(open: { char: string; size: number } | null, line: string): { char: string; size: number } | null {
  const f = fenceOf(line)
  if (f === undefined) return open
  if (open === null) return f
  return f.char === open.char && f.size >= open.size && f.bare ? null : open
}

/** A line a reader would take for a heading or a fence, or that already starts with the escape: one `\` more. */
const ESCAPED = /^\\*(#| {0,3}(`{3,}|~{3,}))/
/** Undo one level of escaping. */
const unescape = (line: string) => (/^\\+(#| {0,3}(`{3,}|~{3,}))/.test(line) ? line.slice(1) : line)

/**
 * A text's lines as they are written, through `indent` (the list-item layout), escaped so that reading them back gives
 * the same lines: lines starting with `#` (or an escape) get a `\`, and so does a fence the text never closes, which a
 * reader would otherwise let run over the headings after it.
 */
function writeLines(lines: string[], indent: (line: string, i: number) => string): string[] {
  const escaped = lines.map((l) => (ESCAPED.test(l) && !fenceOf(l) ? `\\${l}` : l))
  for (;;) {
    const written = escaped.map(indent)
    let open: { char: string; size: number } | null = null
    let opener = -1
    written.forEach((l, i) => {
      const next = fenceAfter(open, l)
      if (open === null && next !== null) opener = i
      open = next
    })
    if (open === null) return written
    escaped[opener] = `\\${escaped[opener]!}`
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

/** One block of lines for a field: a section's own text, or a folded section's text under its heading. */
interface Part {
  heading?: string
  lines: string[]
  /** Text from a section our export never writes (before the first heading, or under a heading of its own). */
  wild?: boolean
}

/** Fields whose wild text loses its emphasis marks: prose the prompt gives as it is, where the marks are only noise. */
const PLAIN: ReadonlySet<Section> = new Set(['role', 'personality', 'speakingStyle'])

/** Lines without emphasis marks, those in code blocks kept as they are. */
function plainLines(lines: string[]): string[] {
  let fence: { char: string; size: number } | null = null
  return lines.map((line) => {
    const inside = fence !== null
    fence = fenceAfter(fence, line)
    return inside || fence !== null ? line : withoutEmphasis(line)
  })
}

/** A section's lines without the one blank line export writes on each side. */
function inner(lines: string[]): string[] {
  let from = 0
  let to = lines.length
  if (to > 0 && lines[0]!.trim() === '') from++
  if (to > from && lines[to - 1]!.trim() === '') to--
  return lines.slice(from, to)
}

/** Memory items from lines: `-`/`*`/`+`/`1.` items (continued by lines indented two spaces), or else paragraphs. */
function listItems(lines: string[], eol: string): string[] {
  const texts: string[][] = []
  let current: string[] | null = null
  let blanks = 0
  for (const line of lines) {
    const bullet = /^ ?(?:[-*+]|\d{1,9}[.)])(?:[ \t](.*))?$/s.exec(line)
    if (current !== null && /^( {2}|\t)/.test(line)) {
      for (; blanks > 0; blanks--) current.push('')
      current.push(line.startsWith('\t') ? line.slice(1) : line.slice(2))
    } else if (line.trim() === '') {
      if (current !== null) blanks++
    } else if (bullet !== null) {
      current = [bullet[1] ?? '']
      texts.push(current)
      blanks = 0
    } else if (current !== null && blanks === 0) {
      current.push(line) // A paragraph's lazy continuation line.
    } else {
      current = [line]
      texts.push(current)
      blanks = 0
    }
  }
  return texts.map((t) => t.map(unescape).join(eol)).filter((t) => t.trim() !== '')
}

/** What a Markdown file gives, and what was not quite right in it. */
export interface MarkdownImport {
  profile: ProfileImport
  warnings: ImportNote[]
}

/** A file's lines, split at its own line end, within the size and line limits (else {@link ImportError}). */
function sourceLines(input: string): { lines: string[]; eol: string } {
  if (input.length > MARKDOWN_LIMIT)
    throw new ImportError('file', 'tooLong', { length: input.length, limit: MARKDOWN_LIMIT })
  const source = wellFormed(input).replace(/^\uFEFF/, '')
  // The file's own line end; texts keep whatever other line ends they hold.
  const eol = /^[^\n]*\r\n/.test(source) ? '\r\n' : '\n'
  const lines = source.split(eol, MARKDOWN_LINE_LIMIT + 1)
  if (lines.length > MARKDOWN_LINE_LIMIT) throw new ImportError('file', 'tooManyLines', { limit: MARKDOWN_LINE_LIMIT })
  return { lines, eol }
}

/** The front matter (empty when the file has none) and the lines after it; an empty file is {@link ImportError}. */
function splitFront(lines: string[], w: Warnings): { front: Front; body: string[] } {
  let at = 0
  let front = readFront('', w)
  if (lines[0]?.trim() === '---') {
    const close = lines.findIndex((l, i) => i > 0 && (l.trim() === '---' || l.trim() === '...'))
    if (close < 0) throw new ImportError('front matter', 'frontUnclosed')
    front = readFront(lines.slice(1, close).join('\n'), w)
    at = close + 1
  }
  const body = lines.slice(at)
  if (at === 0 && body.every((l) => l.trim() === '')) throw new ImportError('file', 'empty')
  return { front, body }
}

/** A heading of the body, at its line. */
interface Mark {
  index: number
  level: number
  title: string
}

/** The headings outside code blocks, in one pass over the body. */
function headingsOf(body: string[]): Mark[] {
  const headings: Mark[] = []
  let fence: { char: string; size: number } | null = null
  body.forEach((line, index) => {
    const inside = fence !== null
    fence = fenceAfter(fence, line)
    const h = inside || fenceOf(line) !== undefined ? undefined : headingOf(line)
    if (h !== undefined) headings.push({ index, ...h })
  })
  return headings
}

/** The blocks of each field, and the `#` title before the first section (when sections are `##`). */
interface Sections {
  parts: Partial<Record<Section, Part[]>>
  titleMark: Mark | undefined
}

/**
 * The body cut into sections at its `##` headings (or its `#` ones, when it has no `##` and several `#`), at most
 * {@link SECTION_LIMIT}; each section's text given to the field its heading names or means, said in a warning when
 * it is not one our export writes.
 */
function sectionsOf(body: string[], front: Front, w: Warnings): Sections {
  const headings = headingsOf(body)
  const level = !headings.some((h) => h.level === 2) && headings.filter((h) => h.level === 1).length >= 2 ? 1 : 2
  const all = headings.filter((h) => h.level === level)
  const marks = all.slice(0, SECTION_LIMIT)
  if (all.length > SECTION_LIMIT)
    w.push(note('headingsCut', { count: all.length, level: '#'.repeat(level), limit: SECTION_LIMIT }))
  const titleMark =
    level === 2 ? headings.find((h) => h.level === 1 && h.index < (marks[0]?.index ?? Infinity)) : undefined
  const parts: Partial<Record<Section, Part[]>> = {}
  const add = (s: Section, part: Part) => (parts[s] ??= []).push(part)
  const stray = body.slice(0, marks[0]?.index ?? body.length).filter((_, i) => i !== titleMark?.index)
  if (stray.some((l) => l.trim() !== '')) {
    const into: Section = front.agent ? 'rules' : 'role'
    add(into, { lines: stray, wild: true })
    w.push(marks.length > 0 ? note('textBefore', { level: '#'.repeat(level), into }) : note('noSections', { into }))
  }
  const seen = new Set<Section>()
  marks.forEach((mark, i) => {
    const lines = body.slice(mark.index + 1, marks[i + 1]?.index ?? body.length)
    const title = mark.title.trim()
    const exact = sectionOf(title)
    if (exact !== undefined) {
      if (seen.has(exact)) w.push(note('sectionTwice', { title: title.slice(0, 40) }))
      seen.add(exact)
      add(exact, { lines })
      return
    }
    const { section, part, warning } = meantSection(title, lines)
    add(section, part)
    w.push(warning)
  })
  return { parts, titleMark }
}

/** Where the text under a heading no field is named by goes: the field its words mean, else the rules. */
function meantSection(title: string, lines: string[]): { section: Section; part: Part; warning: ImportNote } {
  const meant = MEANINGS.find(([, re]) => re.test(title.slice(0, TITLE_MATCH)))?.[0]
  const short = title.slice(0, 40)
  if (meant === 'items') return { section: 'items', part: { lines }, warning: note('sectionMemory', { title: short }) }
  if (meant !== undefined)
    return {
      section: meant,
      part: { heading: title, lines, wild: true },
      warning: note('sectionAs', { title: short, into: meant }),
    }
  return { section: 'rules', part: { heading: title, lines }, warning: note('sectionRules', { title: short }) }
}

/** One field's text: its blocks unescaped and joined, each folded section under its own `###` heading. */
function sectionText(parts: Sections['parts'], s: Section, eol: string): string {
  return (parts[s] ?? [])
    .map((p) => {
      const read = inner(p.lines).map(unescape)
      const own = (p.wild === true && PLAIN.has(s) ? plainLines(read) : read).join(eol)
      return p.heading === undefined ? own : `### ${p.heading}${own === '' ? '' : eol + own}`
    })
    .filter((t) => t !== '')
    .join(eol + eol)
}

/** The profile's name: the front matter's, else the `#` title's, cleaned; `fallbackName` when it draws nothing. */
function nameOf(front: Front, titleMark: Mark | undefined, fallbackName: string, w: Warnings): string {
  const titled = titleMark === undefined ? '' : titleName(titleMark.title)
  if (front.name === undefined && titleMark !== undefined && titled !== titleMark.title) {
    w.push(note('titleFileName', { title: titleMark.title.slice(0, 40), name: titled }))
  }
  // Line breaks in a name become one space; split and trimmed, as `\s*[\r\n]\s*` would be quadratic in a run of spaces.
  const name = cleanName(
    (front.name ?? titled)
      .split(/[\r\n\u2028\u2029]/)
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .join(' '),
    'name',
    w,
  )
  if (!isInvisible(name)) return name
  w.push(note('unnamed', { name: fallbackName }))
  return fallbackName
}

/** The memory items of the item sections, at most the item limit, each with the search keys its last line names. */
function itemsOf(parts: Sections['parts'], eol: string, w: Warnings): MemoryItemImport[] {
  const itemTexts = (parts.items ?? []).flatMap((p) => listItems(inner(p.lines), eol))
  if (itemTexts.length > LIMITS.memoryItems)
    w.push(note('memoryItems', { count: itemTexts.length, limit: LIMITS.memoryItems }))
  return itemTexts.slice(0, LIMITS.memoryItems).map((line, i): MemoryItemImport => {
    // An item's last line may end with its search keys (`｜检索词：…`), as our own Markdown export writes them.
    const { text: t, keys } = splitKeys(line)
    const item: MemoryItemImport = { text: fit(t, LIMITS.memoryItem, `memory item ${i + 1}`, w), source: 'import' }
    return keys === undefined ? item : { ...item, keys }
  })
}

/**
 * Read a Markdown profile, agent or persona file. Throws {@link ImportError} when it is empty or malformed. Linear in
 * the file: each piece reads the lines once, or the lines of its own section.
 */
export function markdownToProfile(input: string, fallbackName: string): MarkdownImport {
  const { lines, eol } = sourceLines(input)
  const w = new Warnings()
  const { front, body } = splitFront(lines, w)
  const { parts, titleMark } = sectionsOf(body, front, w)
  const text = (s: Section) => sectionText(parts, s, eol)
  let role = text('role')
  if (front.description !== undefined)
    role = role === '' ? front.description : `${front.description}${eol}${eol}${role}`
  const name = nameOf(front, titleMark, fallbackName, w)
  const emoji = (front.emoji ?? '').trim()
  const items = itemsOf(parts, eol, w)
  const profile: ProfileImport = {
    name: fit(name, LIMITS.name, 'name', w),
    emoji: emoji === '' || /[\r\n]/.test(emoji) ? '🙂' : fit(emoji, LIMITS.emoji, 'emoji', w),
    role: fit(role, LIMITS.role, 'role', w),
    personality: fit(text('personality'), LIMITS.personality, 'personality', w),
    speakingStyle: fit(text('speakingStyle'), LIMITS.speakingStyle, 'speaking style', w),
    rules: fit(text('rules'), LIMITS.rules, 'ground rules', w),
    memoryEnabled: front.memory ?? true,
    memory: { summary: fit(text('summary'), LIMITS.summary, 'memory summary', w), items },
  }
  if (front.tools !== undefined) profile.tools = front.tools
  if (front.model !== undefined) profile.model = front.model
  return { profile, warnings: w }
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

/**
 * A profile as a Markdown file with headings in `lang`. Memory provenance is not written (the envelope keeps it); an
 * item's search keys are, after its text (`｜检索词：…`), so the file read back keeps them.
 * Texts are written as they are, whatever line ends they hold; the file's own line ends are CRLF when every text
 * that has line breaks uses CRLF, so a Windows file read and written back keeps its line ends.
 */
export function profileToMarkdown(p: Profile, lang: 'zh' | 'en' = 'zh'): string {
  const texts = [
    p.role,
    p.personality,
    p.speakingStyle,
    p.rules,
    p.memory.summary,
    ...p.memory.items.map((it) => it.text),
  ]
  const crlf = texts.some((t) => t.includes('\r\n')) && texts.every((t) => !/(^|[^\r])\n/.test(t))
  const eol = crlf ? '\r\n' : '\n'
  const out = [
    '---',
    `name: ${yamlScalar(p.name)}`,
    `emoji: ${yamlScalar(p.emoji)}`,
    `memory: ${p.memoryEnabled ? 'on' : 'off'}`,
    ...(p.model === undefined ? [] : [`model: ${yamlScalar(`${p.model.provider}/${p.model.model}`)}`]),
    '---',
  ]
  const block = (s: Section, lines: string[]) => {
    if (lines.length > 0) out.push('', `## ${HEADINGS[s][lang][0]}`, '', ...lines)
  }
  const field = (s: Section, text: string) => block(s, text === '' ? [] : writeLines(text.split(eol), (l) => l))
  field('role', p.role)
  field('personality', p.personality)
  field('speakingStyle', p.speakingStyle)
  field('rules', p.rules)
  field('summary', p.memory.summary)
  // Every line after an item's first is indented two spaces, blank ones too, so blank lines, indentation and list
  // markers inside an item read back as part of it.
  block(
    'items',
    p.memory.items.flatMap((it) =>
      writeLines(withKeys(it.text, it.keys).split(eol), (l, i) => (i === 0 ? `- ${l}` : `  ${l}`)),
    ),
  )
  return `${out.join(eol)}${eol}`
}
