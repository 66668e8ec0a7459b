/**
 * `memory.paste {target, text, origin?}`: a pasted list of facts (lib/learn/paste.ts) becomes memory items directly,
 * one a line, each the user's own (source `import`, like a file they imported) with where it came from (`origin`,
 * worded by the page in the user's language: "pasted, ChatGPT"); a line ending `｜检索词：杭州, Hangzhou` gives its fact those
 * search keys (lib/shared/memory-keys.ts), kept as the other import paths keep them. Adding is `memory.add`'s, so a line that says what the
 * list already says, or what an earlier line said, is counted as a duplicate and not added, and the list's limit holds.
 * It never asks first: the user chose these lines.
 */
import { LIMITS } from '../state/model.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { invalid } from '../validate/state.ts'
import { pastedFacts } from '../learn/paste.ts'
import { splitKeys } from '../shared/memory-keys.ts'
import { applyMemoryCommand } from './memory.ts'
import type { OpContext, OpResult } from './kit.ts'
import type { State } from '../state/model.ts'

/** Add the facts of a pasted list to the target's memory. */
export function pasteFacts(state: State, cmd: CommandOf<'memory.paste'>, ctx: OpContext): OpResult {
  const facts = pastedFacts(cmd.text).map(splitKeys)
  if (facts.length === 0) throw invalid('text', 'has no line with a fact')
  const long = facts.findIndex((f) => f.text.length > LIMITS.memoryItem)
  if (long >= 0)
    throw invalid(
      'text',
      `line ${long + 1} is ${facts[long]!.text.length} characters, over the limit of ${LIMITS.memoryItem} a fact`,
      LIMITS.memoryItem,
    )
  const origin = cmd.origin === undefined || cmd.origin.trim() === '' ? {} : { origin: cmd.origin }
  return applyMemoryCommand(
    state,
    {
      op: 'memory.add',
      target: cmd.target,
      items: facts.map(({ text, keys }) => ({
        text,
        source: 'import',
        ...origin,
        ...(keys === undefined ? {} : { keys }),
      })),
    },
    ctx,
  )
}
