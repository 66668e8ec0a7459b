/**
 * The offline demo's answers: what `npm start` without an API key shows a newcomer. Not an AI and says so — but every
 * request gets the answer a good model would give in shape: a chat turn says it is offline, in the language of the
 * person's message (Chinese when it has Chinese characters, else English; a turn handed over to the next profile the
 * person named answers that person's message); "记住 … / remember …" calls `memory_save` with the user's own words; the background extraction gets facts the user stated about
 * themselves (or "无") in the answer protocol; compression gets a valid, shorter memory; the host's title request gets
 * a short title. Deterministic: the same request always gets the same answer. Pure; it never reaches the network.
 */
import { MEMORY } from '../memory/compress.ts'
import { KNOWN_HEADER, MATERIAL, knownLineText } from '../memory/job.ts'
import { unframe } from '../memory/lines.ts'
import { normalizeMemory } from '../shared/memory-text.ts'
import { dateTerms } from '../shared/search-terms.ts'
import { MEMORY_TOOL } from '../memory/tool.ts'
import { RELAY_OPENING } from '../prompt/speakers.ts'
import { isAddedText, isTitleRequest, textOf, type RecordedRequest, type Reply } from './requests.ts'

/** How every chat reply starts, so a reader of the conversation can never mistake it for a model's answer. */
const OFFLINE_MARK = '（离线模型）'
/** The same mark on a reply to a message in English (or any language but Chinese). */
const OFFLINE_MARK_EN = '(offline model)'

/** Facts one extraction answer lists at most. */
const FACTS_PER_ANSWER = 5

const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u
const END_PUNCT = /[\s。.!！?？，,；;：:…~～]+$/u

/** "请记住我喜欢乌龙茶" → "我喜欢乌龙茶"; "Please remember that I like tea." → "I like tea". */
const REMEMBER = [
  /^(?:请你?|麻烦你?|你)?(?:帮我)?(?:记住|记一下|记下)(?:一下)?[：:，,、\s]*(.*)$/su,
  /^(?:please[\s,]+)?remember(?:\s+that)?[\s:,]+(.*)$/isu,
]

/** A sentence in which the user says something lasting about themselves. */
const ABOUT_ME = [
  /^我(?!们)(?:的|是|叫|姓|住|在|正在|一直|喜欢|不喜欢|更喜欢|爱|讨厌|习惯|偏好|希望|打算|有|养|用|来自|从事|做|每天|经常)/u,
  /^(?:i am|i'm|i live|i like|i love|i prefer|i hate|i work|i use|i have|i usually|my )/i,
]
const QUESTION = /[?？吗呢]$|^我想(?:问|知道)|^(?:i wonder|i want to know)/iu
/**
 * A clause that asks rather than tells, read with its own closing mark: a question mark or 吗/呢 at its end, "我想知道…",
 * a question word (我住在哪里 asks where the user lives; it says nothing about it), or an English question's opening.
 */
const ASKS = [
  /[?？]\s*$|[吗呢][\s?？]*$/u,
  /^我想(?:问|知道)|哪里|哪儿|哪个|哪些|什么|为什么|怎么|怎样|如何|多少|几[个岁点号次]|是谁|谁是/u,
  /^(?:i wonder|i want to know|where|what|who|how|why|when|which|do|does|did|is|are|am|can|could|would|should)\b/iu,
]
const asks = (clause: string): boolean => ASKS.some((p) => p.test(clause.trim()))

/** The sentences of `text`, each with its closing mark (so a question keeps its ？); never cut at a comma. */
function sentences(text: string): string[] {
  return (text.match(/[^\n。！？!?；;]+[。！？!?；;]*/gu) ?? []).map((s) => s.trim()).filter((s) => s !== '')
}

/**
 * What one sentence states about the user, whole: from its first clause about the user, up to (not including) a
 * clause that asks. "我住在北京，在一家书店上班" is one fact, not two halves; "我是后端工程师，我想知道怎么学 Go" is
 * "我是后端工程师"; "我住在哪里" is none.
 */
function statement(sentence: string): string | undefined {
  const clauses = sentence.match(/[^，,]+[，,]*/gu) ?? []
  const first = clauses.findIndex((c) => !asks(c) && ABOUT_ME.some((p) => p.test(c.trim())))
  if (first < 0) return undefined
  let end = first + 1
  while (end < clauses.length && !asks(clauses[end]!)) end++
  return clauses.slice(first, end).join('').trim().replace(END_PUNCT, '') || undefined
}

/** The words after "记住" / "remember", cut to one line, or `undefined` when the user asked for nothing to be remembered. */
export function rememberedWords(text: string): string | undefined {
  if (QUESTION.test(text.trim())) return undefined
  for (const pattern of REMEMBER) {
    const m = pattern.exec(text.trim())
    if (m) return m[1]!.split(/\r?\n/)[0]!.trim().replace(END_PUNCT, '') || undefined
  }
  return undefined
}

/**
 * The person's message a chat turn answers: the last one, or — in a turn a relay handed to the next profile the
 * person named (a plugin message the model reads, in Chinese) — the person's message before it.
 */
function askedIn(r: RecordedRequest): string {
  if (!r.lastUser.trimStart().startsWith(RELAY_OPENING)) return r.lastUser.trim()
  for (let i = r.lastUserAt - 1; i >= 0; i--) {
    const m = r.messages[i]!
    const text = textOf(m).trim()
    if (m.role === 'user' && !text.startsWith(RELAY_OPENING) && !isAddedText(text)) return text
  }
  return r.lastUser.trim()
}

function chat(r: RecordedRequest): Reply {
  const asked = askedIn(r)
  const zh = CJK.test(asked) || asked === ''
  const words = rememberedWords(asked)
  const head = zh
    ? `${OFFLINE_MARK}已收到：${asked.slice(0, 200) || '…'}`
    : `${OFFLINE_MARK_EN} Received: ${asked.slice(0, 200)}`
  if (words !== undefined) {
    const result = r.messages.slice(r.lastUserAt + 1).find((m) => m.role === 'tool')
    if (result) {
      // The tool's answer is written for the model, in Chinese: an English reply names what was asked instead.
      return {
        text: zh
          ? `${OFFLINE_MARK}已用 memory_save 保存了你的原话。工具的结果：${textOf(result).slice(0, 300)}`
          : `${OFFLINE_MARK_EN} Asked memory_save to keep your own words: "${words}". Its answer is in the memory row above.`,
      }
    }
    if (r.tools.some((t) => t.function.name === MEMORY_TOOL))
      return { toolCalls: [{ name: MEMORY_TOOL, arguments: { facts: [words] } }] }
    return {
      text: zh
        ? `${head}\n\n这个对话没有提供 memory_save 工具（可能是它的智能体配置关掉了记忆或限制了工具），所以什么都没有保存。`
        : `${head}\n\nThis conversation offers no memory_save tool (its profile may have memory off or a restricted tool set), so nothing was saved.`,
    }
  }
  return {
    text: zh
      ? `${head}\n\n这是本项目的离线演示模型：不联网，也不会真正回答问题。说“请记住……”可以试试长期记忆；设置 DEEPSEEK_API_KEY 后重新 npm start 即可使用真实的 DeepSeek 模型。`
      : `${head}\n\nThis is the project's offline demo model: no network, no real answers. Say "remember …" to try long-term memory; set DEEPSEEK_API_KEY and run npm start again for the real DeepSeek model.`,
  }
}

/** The known-memory lines of an extraction request ("- …" under its header, up to the first blank line). */
function knownOf(prompt: string): Set<string> {
  const at = prompt.indexOf(KNOWN_HEADER)
  const block =
    at < 0
      ? []
      : prompt
          .slice(at + KNOWN_HEADER.length)
          .split('\n\n')[0]!
          .split('\n')
  return new Set(block.filter((l) => l.startsWith('- ')).map((l) => normalizeMemory(knownLineText(l))))
}

/** Facts the user stated about themselves in the excerpt, newest last, not already known, not asked to be remembered. */
function extraction(prompt: string, excerpt: string): Reply {
  const known = knownOf(prompt)
  const facts: string[] = []
  for (const line of excerpt.split('\n')) {
    if (!line.startsWith('用户：')) continue
    const said = line.slice('用户：'.length)
    // What the user asked to remember went through memory_save already.
    if (rememberedWords(said) !== undefined) continue
    for (const sentence of sentences(said)) {
      const fact = statement(sentence)
      if (fact === undefined) continue
      const key = normalizeMemory(fact)
      if (known.has(key)) continue
      known.add(key)
      facts.push(fact)
    }
  }
  const kept = facts.slice(-FACTS_PER_ANSWER)
  return { text: kept.length > 0 ? kept.map((f) => `- ${f}${keysOf(f)}`).join('\n') : '无' }
}

/**
 * The search keys the demo writes after a fact, as the extraction protocol asks (` ｜检索词：…`): the dates the fact
 * names, in standard form (2025-03-04, 2025-03). An offline model knows no synonyms nor the other language; '' when
 * the fact names no dated year.
 */
function keysOf(fact: string): string {
  const dates = dateTerms(fact)
    .filter((t) => /^d\d{4}-\d{2}(?:-\d{2})?$/.test(t))
    .map((t) => t.slice(1))
  const keys = [...new Set(dates)]
  return keys.length > 0 ? ` ｜检索词：${keys.join(', ')}` : ''
}

/**
 * A shorter memory: repeated items merged, then the newest items that fit in the requested size, and a summary that
 * says honestly how many older ones were left out (the settings page's undo brings them back).
 */
function compression(system: string, body: string): Reply {
  const lines = body.split('\n')
  const oldSummary = (lines[0] ?? '').replace(/^摘要：/, '')
  const seen = new Set<string>()
  const items: string[] = []
  for (const line of lines.slice(1).reverse()) {
    const text = line.replace(/^- /, '').trim()
    const key = normalizeMemory(text)
    if (text === '' || seen.has(key)) continue
    seen.add(key)
    items.push(text)
  }
  const input =
    (oldSummary === '（无）' ? 0 : oldSummary.length) +
    lines.slice(1).reduce((n, l) => n + l.replace(/^- /, '').length, 0)
  // Room for the summary line written below, so the whole answer stays under both the asked size and the input.
  const budget = Math.min(Number(/不超过 (\d+) 字/.exec(system)?.[1] ?? 2500), input - 1) - 80
  const kept: string[] = []
  let used = 0
  for (const text of items) {
    if (used + text.length > budget) break
    kept.unshift(text)
    used += text.length
  }
  const omitted = items.length - kept.length
  const summary = `离线演示模型的压缩：合并重复，保留最新的 ${kept.length} 条${omitted > 0 ? `，省略较早的 ${omitted} 条（可在设置页撤销这次压缩找回）` : ''}。`
  return { text: [`摘要：${summary}`, ...kept.map((t) => `- ${t}`)].join('\n') }
}

/** A short title from the first human message the host framed as JSON, about as long as the host asked for. */
function title(r: RecordedRequest): Reply {
  let first = ''
  try {
    // The host frames the person's messages as a JSON array of `{ seq, text }` after one line of instruction.
    const framed = JSON.parse(r.lastUser.slice(r.lastUser.indexOf('\n') + 1)) as Array<{ text?: unknown }>
    first = typeof framed[0]?.text === 'string' ? framed[0].text : ''
  } catch {
    /* not the framing this host version uses: fall back to a fixed title */
  }
  const line =
    first
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l !== '')
      ?.replace(END_PUNCT, '') ?? ''
  if (line === '') return { text: 'Offline session' }
  const cjk = Number(/(\d+) CJK characters/.exec(r.system)?.[1] ?? 12)
  const words = Number(/about (\d+) words/.exec(r.system)?.[1] ?? 6)
  return { text: CJK.test(line) ? [...line].slice(0, cjk).join('') : line.split(/\s+/).slice(0, words).join(' ') }
}

/** The demo's answer to one request. */
export function demoReply(r: RecordedRequest): Reply {
  if (isTitleRequest(r)) return title(r)
  if (r.tools.length === 0) {
    const material = unframe(MATERIAL, r.lastUser)
    if (material) return extraction(r.lastUser, material.body)
    const memory = unframe(MEMORY, r.lastUser)
    if (memory) return compression(r.system, memory.body)
  }
  return chat(r)
}
