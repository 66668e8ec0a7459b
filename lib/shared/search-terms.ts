/**
 * The words a memory item is found by: text (and its search keys) → normalised search terms, the same for a stored
 * fact and for a question, so that the index (lib/store/db/memory-index.ts) and recall (lib/memory/recall.ts) agree.
 * Owns the tokenisation (Chinese character bigrams, English words lightly stemmed, stop words dropped), the date
 * forms (2025-03-04, 2025年3月4日, 3月4日, March 4, 2025 → one `d…` term per precision) and the small bilingual
 * concept table. Pure and linear in the text's length (no backtracking pattern); it never reads the store.
 */

/** Characters of text tokenised at most: a memory item is at most 1,000, a question is cut to this. */
const TEXT_CAP = 4_000

/** English words that say nothing about what a fact is about. */
const EN_STOP = new Set(
  (
    'a an the and or but if of to in on at by for with from as is are was were be been being am do does did ' +
    'have has had i me my mine we our us you your he him his she her it its they them their this that these those there here ' +
    'what which who whom whose when where why how not no yes so very can could will would shall should may might must ' +
    'about into over under again just also than then too any some all each more most other such only own same s t ' +
    'please tell know remember said say user users'
  ).split(' '),
)

/** Chinese bigrams that occur in almost any sentence (function words, pronouns, question words), and 用户: almost
 * every stored fact is about the user and says so. */
const ZH_STOP = new Set(
  (
    '用户 我们 你们 他们 她们 它们 什么 怎么 为什么 哪里 哪儿 哪个 这个 那个 这些 那些 一个 一下 一些 可以 就是 还是 但是 ' +
    '因为 所以 如果 或者 然后 已经 没有 不是 知道 觉得 记得 是不 是什 么时 时候 的时 了吗 我的 你的 他的 她的 是的 了一 我是 你是 ' +
    '我在 我想 我要 请问 告诉 一直 现在 以前 之前 的话 有没 有什 一次 谢谢 好的 你好 没问 问题 帮我 一下 今天 昨天 前天 去年 今年 上个 个月'
  ).split(' '),
)

/**
 * Concepts said in different words in either language: every word of a group stands for the group's term as well as
 * for itself, so "我住在哪里" finds "I live in Hangzhou" and "my job" finds "我在银行工作". Kept small and general
 * (the things people tell an assistant about themselves), never fitted to a data set.
 */
const CONCEPTS: readonly (readonly string[])[] = [
  ['live', 'lives', 'living', 'reside', 'home', 'moved', 'move', '住在', '居住', '搬到', '搬家', '老家', '住址'],
  [
    'work',
    'job',
    'career',
    'employ',
    'employer',
    'office',
    'company',
    'colleague',
    '工作',
    '上班',
    '公司',
    '职业',
    '同事',
    '单位',
  ],
  ['like', 'love', 'enjoy', 'favorite', 'favourite', 'prefer', '喜欢', '爱好', '最爱', '偏好', '爱吃', '喜爱'],
  ['dislike', 'hate', 'allergic', 'allergy', 'avoid', '讨厌', '不喜欢', '过敏', '忌口', '不吃'],
  ['pet', 'dog', 'cat', 'puppy', 'kitten', '宠物', '小狗', '小猫', '养狗', '养猫', '狗狗', '猫咪', '狗', '猫', '犬'],
  [
    'family',
    'wife',
    'husband',
    'son',
    'daughter',
    'mother',
    'father',
    'mom',
    'dad',
    'parent',
    'sister',
    'brother',
    'kid',
    'child',
    'children',
    '家人',
    '妻子',
    '老婆',
    '丈夫',
    '老公',
    '儿子',
    '女儿',
    '妈妈',
    '母亲',
    '爸爸',
    '父亲',
    '孩子',
    '姐姐',
    '妹妹',
    '哥哥',
    '弟弟',
    '闺女',
    '媳妇',
    '爱人',
    '宝宝',
  ],
  ['birthday', 'born', '生日', '出生'],
  [
    'travel',
    'trip',
    'vacation',
    'holiday',
    'visit',
    'visited',
    'flight',
    '旅行',
    '旅游',
    '出差',
    '度假',
    '去了',
    '飞往',
  ],
  [
    'study',
    'school',
    'university',
    'college',
    'degree',
    'major',
    'student',
    '学习',
    '学校',
    '大学',
    '专业',
    '毕业',
    '读书',
    '上学',
  ],
  ['health', 'doctor', 'hospital', 'sick', 'ill', 'medicine', '身体', '医生', '医院', '生病', '看病', '吃药'],
  [
    'sport',
    'run',
    'running',
    'gym',
    'exercise',
    'swim',
    'swimming',
    'hike',
    'hiking',
    '运动',
    '跑步',
    '健身',
    '游泳',
    '爬山',
    '徒步',
  ],
  ['food', 'eat', 'cook', 'cooking', 'restaurant', 'dish', 'meal', '吃饭', '做饭', '餐厅', '美食', '菜'],
  ['name', 'called', '名字', '叫做', '姓名'],
  ['car', 'drive', 'driving', '开车', '汽车', '车子'],
  ['music', 'song', 'band', 'concert', 'guitar', 'piano', '音乐', '歌曲', '乐队', '演唱会', '吉他', '钢琴'],
  ['book', 'read', 'reading', 'novel', '看书', '读书', '小说', '书'],
  ['buy', 'bought', 'purchase', 'shopping', '买了', '购买', '购物'],
  ['wedding', 'married', 'marry', 'engaged', '结婚', '婚礼', '订婚'],
  ['language', 'speak', 'english', 'chinese', 'japanese', '语言', '英语', '中文', '日语', '说话'],
]

const CONCEPT_OF = new Map<string, string>()
CONCEPTS.forEach((group, i) => {
  for (const w of group) CONCEPT_OF.set(w, `c${i}`)
})
/** Chinese concept words, by their first character, for the scan over a Han run. */
const ZH_CONCEPTS = new Map<string, string[]>()
for (const w of CONCEPT_OF.keys()) {
  if (!/^[\u4e00-\u9fff]/.test(w)) continue
  const list = ZH_CONCEPTS.get(w[0]!) ?? []
  list.push(w)
  ZH_CONCEPTS.set(w[0]!, list)
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const ZH_DIGITS: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 }

const pad = (n: number) => String(n).padStart(2, '0')

/** A number written in digits or in Chinese numerals up to 三十一 (十 = 10, 二十三 = 23). */
function zhNumber(v: string): number {
  if (/\d/.test(v)) return Number(v)
  let n = 0
  let digit = 0
  for (const c of v) {
    if (c === '十') {
      n += (digit === 0 ? 1 : digit) * 10
      digit = 0
    } else digit = ZH_DIGITS[c] ?? 0
  }
  return n + digit
}
const isHan = (c: number) => (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf)
const isWord = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)

/** A light English stem: enough that "cats", "hiking" and "visited" meet "cat", "hike" and "visit". */
function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3)
  if (w.endsWith('ed') && w.length > 4) return w.slice(0, -2)
  if (w.endsWith('es') && /(sh|ch|x|ss)es$/.test(w)) return w.slice(0, -2)
  if (w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1)
  return w
}

/** The date terms of a text: `d2025`, `d2025-03`, `d2025-03-04`, `d03-04` (a day without a year), `m03` (a month). */
export function dateTerms(text: string): string[] {
  const s = text.length > TEXT_CAP ? text.slice(0, TEXT_CAP) : text
  const out: string[] = []
  const add = (y: number | undefined, m: number | undefined, d: number | undefined) => {
    if (m !== undefined && (m < 1 || m > 12)) return
    if (d !== undefined && (d < 1 || d > 31)) return
    if (y !== undefined) out.push(`d${y}`)
    if (m === undefined) return
    out.push(`m${pad(m)}`)
    if (y !== undefined) out.push(`d${y}-${pad(m)}`)
    if (d !== undefined) {
      out.push(`d${pad(m)}-${pad(d)}`)
      if (y !== undefined) out.push(`d${y}-${pad(m)}-${pad(d)}`)
    }
  }
  // Every pattern is anchored on digits or month names and has no nested repetition: linear in the text.
  for (const x of s.matchAll(
    /(\d{4})\s*[-/.年]\s*(\d{1,2}|[一二三四五六七八九十]{1,2}(?=月))(?:\s*[-/.月]\s*(\d{1,2}|[一二三四五六七八九十]{1,3}(?=[日号])))?/g,
  )) {
    add(Number(x[1]), zhNumber(x[2]!), x[3] === undefined ? undefined : zhNumber(x[3]))
  }
  for (const x of s.matchAll(
    /(^|[^\d年])(\d{1,2}|[一二三四五六七八九十]{1,2})月(?:(\d{1,2}|[一二三四五六七八九十]{1,3})[日号])?/g,
  )) {
    add(undefined, zhNumber(x[2]!), x[3] === undefined ? undefined : zhNumber(x[3]))
  }
  const lower = s.toLowerCase()
  for (const x of lower.matchAll(
    /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?/g,
  )) {
    add(x[3] === undefined ? undefined : Number(x[3]), MONTHS.indexOf(x[1]!) + 1, Number(x[2]))
  }
  for (const x of lower.matchAll(
    /\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b(?:,?\s+(\d{4}))?/g,
  )) {
    add(x[3] === undefined ? undefined : Number(x[3]), MONTHS.indexOf(x[2]!) + 1, Number(x[1]))
  }
  for (const x of lower.matchAll(
    /\b(january|february|march|april|june|july|august|september|october|november|december)\s+(\d{4})\b/g,
  )) {
    add(Number(x[2]), MONTHS.indexOf(x[1]!.slice(0, 3)) + 1, undefined)
  }
  for (const x of s.matchAll(/(\d{4})年(?!\s*\d)/g)) add(Number(x[1]), undefined, undefined)
  return out
}

/**
 * The search terms of a text, with repeats (a term's count matters to the ranking): Chinese as overlapping character
 * bigrams (a lone character as itself) plus the concept words it holds, English and digits as lowercased, lightly
 * stemmed words without stop words, concept terms (`c…`) and date terms (`d…`, `m…`).
 */
function searchTerms(text: string): string[] {
  const s = (text.length > TEXT_CAP ? text.slice(0, TEXT_CAP) : text).normalize('NFKC').toLowerCase()
  const out: string[] = []
  let i = 0
  while (i < s.length) {
    const c = s.charCodeAt(i)
    if (isHan(c)) {
      let j = i
      while (j < s.length && isHan(s.charCodeAt(j))) j++
      const run = s.slice(i, j)
      if (run.length === 1) out.push(run)
      for (let k = 0; k + 1 < run.length; k++) {
        const bigram = run.slice(k, k + 2)
        if (!ZH_STOP.has(bigram)) out.push(bigram)
        for (const w of ZH_CONCEPTS.get(run[k]!) ?? []) if (run.startsWith(w, k)) out.push(CONCEPT_OF.get(w)!)
      }
      const last = ZH_CONCEPTS.get(run[run.length - 1]!)
      if (last?.includes(run[run.length - 1]!)) out.push(CONCEPT_OF.get(run[run.length - 1]!)!)
      i = j
    } else if (isWord(c)) {
      let j = i
      while (j < s.length && isWord(s.charCodeAt(j))) j++
      const w = s.slice(i, j)
      i = j
      // A one-letter word is a term like any other ("C", "R", "X" name a language, a film, a company); the one-letter
      // stop words (a, i, s, t) are dropped above.
      if (EN_STOP.has(w)) continue
      const concept = CONCEPT_OF.get(w) ?? CONCEPT_OF.get(stem(w))
      out.push(stem(w))
      if (concept !== undefined) out.push(concept)
    } else i++
  }
  for (const d of dateTerms(text)) out.push(d)
  return out
}

/** The distinct terms of a text, in first-seen order. */
export function distinctTerms(text: string): string[] {
  return [...new Set(searchTerms(text))]
}

/**
 * The version of these terms, kept by the index beside its rows: an index whose items were termed by an earlier
 * version is re-termed in the background (lib/store/db/index-reterm.ts). 2: one-letter Latin words are terms.
 */
export const TERMS_VERSION = 2

/** The separator before each term's code in the index's `terms` column. */
export const TERM_SEPARATOR = '|'

/**
 * A term as the index holds it: two characters from a hash of it (FNV-1a), so that the separator and the code make
 * exactly one trigram of the FTS5 trigram index. A term then costs one lookup, however long it is or however many
 * terms share its beginning (every date term starts `d20…`); two terms share a code about once in 440 million.
 */
export function termCode(term: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193) >>> 0
  const span = 0x9fff - 0x4e00 + 1
  return String.fromCharCode(0x4e00 + (h % span), 0x4e00 + (Math.floor(h / span) % span))
}

/**
 * The date terms of a moment (ms since the epoch), in the local calendar: the day it was saved, its month, and the
 * day without the year. Not the year alone nor the month alone: every item saved that year would match a question
 * naming it, which says nothing and costs a scan of them all.
 */
function savedTerms(at: number): string[] {
  const d = new Date(at)
  if (Number.isNaN(d.getTime()) || at <= 0) return []
  const y = d.getFullYear()
  const m = pad(d.getMonth() + 1)
  const day = pad(d.getDate())
  return [`d${y}-${m}`, `d${m}-${day}`, `d${y}-${m}-${day}`]
}

/**
 * The date terms a question means by a relative word (今天, 昨天, 前天, 上个月, 去年, yesterday, last month…), as seen
 * at `now`: "what did I say yesterday" then meets the facts saved yesterday.
 */
export function relativeDateTerms(text: string, now: number): string[] {
  const s = text.length > TEXT_CAP ? text.slice(0, TEXT_CAP).toLowerCase() : text.toLowerCase()
  const day = 86_400_000
  const out: string[] = []
  const days = (n: number) => out.push(...savedTerms(now - n * day).slice(1))
  const month = (back: number) => {
    const d = new Date(now)
    d.setDate(1)
    d.setMonth(d.getMonth() - back)
    out.push(`d${d.getFullYear()}-${pad(d.getMonth() + 1)}`)
  }
  if (s.includes('今天') || /\btoday\b/.test(s)) days(0)
  if (s.includes('昨天') || /\byesterday\b/.test(s)) days(1)
  if (s.includes('前天')) days(2)
  if (s.includes('这个月') || s.includes('本月') || /\bthis month\b/.test(s)) month(0)
  if (s.includes('上个月') || s.includes('上月') || /\blast month\b/.test(s)) month(1)
  if (s.includes('上周') || s.includes('上个星期') || s.includes('上星期') || /\blast week\b/.test(s)) {
    // The seven days of the week before this one (weeks start on Monday).
    const monday = (new Date(now).getDay() + 6) % 7
    for (let n = monday + 1; n <= monday + 7; n++) days(n)
  }
  for (const season of seasonsAsked(s, new Date(now))) {
    for (const m of season.months) {
      const d = new Date(season.year, m, 1)
      out.push(`d${d.getFullYear()}-${pad(d.getMonth() + 1)}`)
    }
  }
  if (/去年(?![春夏秋冬])/.test(s) || /\blast year\b/.test(s)) out.push(`d${new Date(now).getFullYear() - 1}`)
  if (/今年(?![春夏秋冬])/.test(s) || /\bthis year\b/.test(s)) out.push(`d${new Date(now).getFullYear()}`)
  return out
}

/** The months of each season (0 = January; winter runs from December into the next year). */
const SEASONS: Record<string, number[]> = {
  spring: [2, 3, 4],
  summer: [5, 6, 7],
  autumn: [8, 9, 10],
  winter: [11, 12, 13],
}
const ZH_SEASONS: Record<string, string> = { 春: 'spring', 夏: 'summer', 秋: 'autumn', 冬: 'winter' }

/**
 * The seasons a question names with a year word (去年春天, 今年夏天, last spring, this winter, spring 2025) as seen
 * at `now`: each season's year (a winter's is the year of its December) and its months. "Last spring" is the latest
 * spring that has ended; "this spring" the one of this year. A season named alone says too little to ask for.
 */
function seasonsAsked(s: string, now: Date): { year: number; months: number[] }[] {
  const out: { year: number; months: number[] }[] = []
  const y = now.getFullYear()
  const m = now.getMonth()
  // The year of the latest `season` that has ended by now (its last month before this one).
  const latestEnded = (season: string) =>
    season === 'winter' ? (m > 1 ? y - 1 : y - 2) : SEASONS[season]!.at(-1)! < m ? y : y - 1
  for (const x of s.matchAll(/(去年|今年|前年)([春夏秋冬])(?:天|季)/g)) {
    const season = ZH_SEASONS[x[2]!]!
    const year = x[1] === '今年' ? y : x[1] === '去年' ? y - 1 : y - 2
    out.push({ year, months: SEASONS[season]! })
  }
  for (const x of s.matchAll(/\b(last|this)\s+(spring|summer|autumn|fall|winter)\b/g)) {
    const season = x[2] === 'fall' ? 'autumn' : x[2]!
    out.push({ year: x[1] === 'this' ? y : latestEnded(season), months: SEASONS[season]! })
  }
  for (const x of s.matchAll(/\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?(\d{4})\b/g)) {
    out.push({ year: Number(x[2]), months: SEASONS[x[1] === 'fall' ? 'autumn' : x[1]!]! })
  }
  return out
}

/**
 * The code that says a term is one of an item's search keys (beside its own code): a key says what the item is about
 * (a lorebook entry's key, the keys saved with a fact), which lib/memory/rank.ts weighs above a word of its text.
 */
export function keyCode(term: string): string {
  return termCode(`key:${term}`)
}

/**
 * The `terms` column of an item: the codes of its text's and its keys' terms and of the day it was saved, then the
 * key code of each distinct key term.
 */
export function termsColumn(text: string, keys?: string, at?: number): string {
  const keyTerms = keys === undefined ? [] : searchTerms(keys)
  const terms = [...searchTerms(text), ...keyTerms]
  if (at !== undefined) terms.push(...savedTerms(at))
  const codes = terms.map(termCode)
  for (const k of new Set(keyTerms)) codes.push(keyCode(k))
  return codes.map((c) => `${TERM_SEPARATOR}${c}`).join('')
}
