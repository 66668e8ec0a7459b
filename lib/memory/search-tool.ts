/**
 * The `memory_search` tool: the model looks something up in the long-term memory the calling conversation reads (its
 * profile's items, archived ones included, the user layer, the conversation's own) and gets the matching items with
 * their id, text, layer and the day each was saved. Owns the tool's wording, its argument checks and its bounded
 * result. It never returns another profile's item or a suggestion awaiting approval, and never writes.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { ContentBlock } from '@deepseek-ai/dsh-llm'
import type { ToolDefinition, ToolRunContext } from '@deepseek-ai/dsh-tools'
import { SEARCH_QUERY_CHARS } from '../shared/wire-replies.ts'
import { createTurnReader, type TurnReader } from '../turn/reader.ts'
import type { ProfileStore } from '../store/store.ts'
import { offerToConversations } from './offer.ts'
import type * as z from 'zod'
import {
  MemorySearchArgs,
  MemorySearchResultSchema,
  SEARCH_RESULTS,
  SearchHitSchema,
  toolJsonSchema,
} from './schema-tools.ts'
import { byRelevance, localDate, recallQuery, type Scored } from './recall.ts'
import { scopeLists, searchLists } from './search.ts'
import type { Log } from '../shared/log.ts'

/** The tool's name, as the model sees it. */
export const SEARCH_TOOL = 'memory_search'

/** Items one call answers at most, and by default. */
export { SEARCH_RESULTS } from './schema-tools.ts'

/** Characters of item text one answer carries at most (a whole answer stays a few KB). */
const SEARCH_RESULT_CHARS = 6_000

/** One item as the tool answers it. */
type SearchHit = z.output<typeof SearchHitSchema>

/** The tool's canonical result. */
type MemorySearchResult = z.output<typeof MemorySearchResultSchema>

const DESCRIPTION = [
  '在长期记忆里查找与问题相关的条目，包括已被压缩归档、不在系统提示里的旧记忆；只查本对话能读到的记忆（关于用户的、当前配置的、本对话的）。',
  '何时使用：用户问起以前说过或做过的事、提到记忆里可能有的人名、地名、日期或经历，而系统提示的“长期记忆”和对话里的“相关记忆”都没有答案时；或者需要确认某件事是什么时候记下的。',
  '不要用它查本对话里刚刚说过的内容，也不要反复用同一个查询。查询写成关键词或一句短问题，中英文都可以。',
  '结果每条带 id、文字、所在层（user / profile / conversation）和记下的日期；没有结果说明记忆里没有相关内容，不要编造。',
].join('\n')

const PARAMETERS = toolJsonSchema(MemorySearchArgs, 'input')

const OUTPUT_SCHEMA = toolJsonSchema(MemorySearchResultSchema, 'output')

class Refusal extends Error {}

function queryOf(args: unknown): string {
  const raw = (args as { query?: unknown } | null)?.query
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new Refusal('query 不能为空：请写出要查找的关键词或一句短问题。')
  const q = raw.trim()
  if (q.length > SEARCH_QUERY_CHARS)
    throw new Refusal(`query 有 ${q.length} 字，超过 ${SEARCH_QUERY_CHARS} 字的上限；请只写关键词。`)
  return q
}

function limitOf(args: unknown): number {
  const raw = (args as { limit?: unknown } | null)?.limit
  if (raw === undefined || raw === null) return SEARCH_RESULTS.default
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > SEARCH_RESULTS.max) {
    throw new Refusal(`limit 必须是 1 到 ${SEARCH_RESULTS.max} 的整数，收到的是 ${JSON.stringify(raw)}。`)
  }
  return raw
}

/** The hits of one query in `agent`'s scope, best first, bounded by `limit` and {@link SEARCH_RESULT_CHARS}. */
function searchMemory(
  store: ProfileStore,
  agentId: string,
  query: string,
  limit: number,
  now = Date.now(),
  turns: TurnReader = createTurnReader(store),
): SearchHit[] {
  const { speaker: profile, setting } = turns.of(agentId)
  const lists = scopeLists(store.state, profile, agentId, setting)
  let hits: Scored[] = searchLists(store, lists, recallQuery(query, [], now).weights, limit * 3)
  if (hits.length === 0) {
    // A query with no terms of its own (one or two characters, only common words): substring matches, newest first.
    const words = query.toLowerCase().split(/\s+/).filter(Boolean)
    hits = lists.flatMap((l) =>
      l.items
        .filter((it) => words.every((w) => it.text.toLowerCase().includes(w)))
        .map((item) => ({ item, layer: l.layer, score: 0 })),
    )
  }
  const out: SearchHit[] = []
  let chars = 0
  for (const h of hits.filter((x) => x.item.pending !== true).sort(byRelevance)) {
    if (out.length >= limit || chars + h.item.text.length > SEARCH_RESULT_CHARS) break
    chars += h.item.text.length
    out.push({
      id: h.item.id,
      text: h.item.text,
      layer: h.layer,
      date: localDate(h.item.at),
      ...(h.item.archived === true ? { archived: true as const } : {}),
    })
  }
  return out
}

function render(_args: unknown, value: unknown): ContentBlock[] {
  const r = value as MemorySearchResult
  const text =
    r.results.length === 0
      ? `记忆里没有找到与“${r.query}”相关的内容。`
      : [
          `与“${r.query}”相关的记忆（${r.results.length} 条，最相关的在前）：`,
          ...r.results.map(
            (h) => `- [${h.id}] （${h.date} 记下 · ${h.layer}${h.archived ? ' · 已归档' : ''}）${h.text}`,
          ),
        ].join('\n')
  return [{ type: 'text', text }]
}

/** Offer `memory_search` to every top-level conversation. Returns how many searches ran. */
export function installSearchTool(
  ctx: Context,
  store: ProfileStore,
  log: Log,
  turns: TurnReader = createTurnReader(store),
): { searches(): number } {
  let searches = 0
  const agents = ctx.get('agents')
  if (!ctx.get('tools') || !agents) return { searches: () => searches }

  function run(args: unknown, exec: ToolRunContext): MemorySearchResult {
    const agent = exec.agent
    if (!agent) throw new Refusal('memory_search 只能在对话中调用。')
    const query = queryOf(args)
    const limit = limitOf(args)
    const { speaker: profile } = turns.of(agent.id)
    if (!profile.memoryEnabled)
      throw new Refusal(`当前配置「${profile.name}」关闭了长期记忆，没有可查的记忆；不要再尝试查找。`)
    searches++
    return { query, results: searchMemory(store, agent.id, query, limit, Date.now(), turns) }
  }

  const definition: ToolDefinition = {
    name: SEARCH_TOOL,
    description: DESCRIPTION,
    parameters: PARAMETERS,
    output: {
      schema: OUTPUT_SCHEMA as ToolDefinition['output']['schema'],
      render: render as ToolDefinition['output']['render'],
    },
    execute: async (args, exec) => run(args, exec),
  }
  offerToConversations(ctx, agents, definition, log)
  return { searches: () => searches }
}
