/**
 * The schemas of the model's tools (zod 4): `memory_save` and `memory_search`, their arguments and their results.
 * The JSON Schema each tool declares to the model is made from these ({@link toolJsonSchema}), and the results'
 * types are theirs. The descriptions are model-facing and Chinese by design. The tools' own parsers (lib/memory)
 * stay lenient where a model often slips (a lone string for `facts`) and answer in the model's language.
 */
import * as z from 'zod'
import { LIMITS, MEMORY_LAYERS } from '../state/model.ts'
import { SEARCH_QUERY_CHARS } from '../shared/wire-replies.ts'

/** Facts one `memory_save` call may save. */
export const FACTS_PER_CALL = 5

/** Items one `memory_search` call answers at most, and by default. */
export const SEARCH_RESULTS = { max: 20, default: 8 } as const

const layer = z.enum(MEMORY_LAYERS as [(typeof MEMORY_LAYERS)[number], ...(typeof MEMORY_LAYERS)[number][]])

/** `memory_save`'s arguments. */
export const MemorySaveArgs = z.object({
  facts: z
    .array(z.string().max(LIMITS.memoryItem))
    .min(1)
    .max(FACTS_PER_CALL)
    .describe(`要记住的事实，每条一句话（1–${FACTS_PER_CALL} 条）`),
  scope: layer
    .optional()
    .describe(
      '"user"：关于用户本人、所有配置共用；"profile"（默认）：存入当前智能体配置；"conversation"：只存入本对话',
    ),
  replaces: z
    .string()
    .max(LIMITS.memoryItem)
    .optional()
    .describe('可选：被这条新事实推翻的旧记忆的原文（只能配一条 facts）；只在本对话看得到的记忆里查找'),
})

/** `memory_save`'s canonical result, also what the conversation view renders. */
export const MemorySaveResultSchema = z.strictObject({
  scope: layer,
  /** Human label of where the facts went, e.g. 「通用助手」的长期记忆. */
  where: z.string(),
  stored: z.array(z.string()),
  duplicates: z.array(z.string()),
  /** The profile asks first: `stored` are suggestions awaiting the user's approval, not memories yet. */
  pending: z.boolean().optional(),
  /** The facts the stored one replaced (they left the prompt; the memory history keeps them, revertible). */
  replaced: z.array(z.string()).optional(),
  /** Set when `replaces` named no fact the conversation can see: the new fact was stored beside the old ones. */
  unresolved: z.string().optional(),
})

/** `memory_search`'s arguments. */
export const MemorySearchArgs = z.object({
  query: z
    .string()
    .max(SEARCH_QUERY_CHARS)
    .describe(`要查找的内容：关键词或一句短问题（不超过 ${SEARCH_QUERY_CHARS} 字）`),
  limit: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_RESULTS.max)
    .optional()
    .describe(`最多返回几条（默认 ${SEARCH_RESULTS.default}）`),
})

/** One item as `memory_search` answers it. */
export const SearchHitSchema = z.strictObject({
  id: z.string(),
  text: z.string(),
  layer,
  /** The day it was saved, YYYY-MM-DD (local time). */
  date: z.string(),
  /** Condensed out of the core by a compression: not in the system prompt. */
  archived: z.literal(true).optional(),
})

/** `memory_search`'s canonical result. */
export const MemorySearchResultSchema = z.strictObject({ query: z.string(), results: z.array(SearchHitSchema) })

/**
 * The JSON Schema a tool declares for `schema`: arguments as the model writes them (`io: 'input'`), results as the
 * tool returns them; without the `$schema` line, which only costs the model tokens.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _draft, ...json } = z.toJSONSchema(schema, { io })
  return json
}
