/**
 * The row config's refusal (lib/config/config.ts): the message for the log names the field and what it accepts, and
 * the refusal carries the same as data — the option's path, the rule it broke, the bounds or choices — for the page
 * to word in the user's language.
 */
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../lib/config/config.ts'
import { ConfigError } from '../../lib/config/errors.ts'

/** The refusal resolveConfig throws for `raw`. */
function refused(raw: unknown): ConfigError {
  try {
    resolveConfig(raw)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`)
}

describe('a refused row config', () => {
  it.each([
    [
      { memory: { everyTurns: 0 } },
      { code: 'invalid', field: 'memory.everyTurns', rule: 'config.integer', min: 1, limit: 1000 },
    ],
    [{ recallBudget: 1.5 }, { code: 'invalid', field: 'recallBudget', rule: 'config.integer', min: 0, limit: 20_000 }],
    [{ subagents: 'all' }, { code: 'invalid', field: 'subagents', rule: 'config.choice', values: ['none', 'inherit'] }],
    [{ cacheStableMemory: 'yes' }, { code: 'invalid', field: 'cacheStableMemory', rule: 'config.flag' }],
    [{ memory: 3 }, { code: 'invalid', field: 'memory', rule: 'config.section' }],
    [7, { code: 'invalid', field: 'config', rule: 'config.section' }],
    [{ dataFile: '  ' }, { code: 'invalid', field: 'dataFile', rule: 'config.path' }],
  ])('%j is refused as data the page words: %j', (raw, refusal) => {
    expect(refused(raw).refusal).toEqual(refusal)
  })

  it('keeps the English for the log, naming the field and what it accepts', () => {
    expect(refused({ memory: { everyTurns: 0 } }).message).toBe(
      'agent-profiles: config: memory.everyTurns must be an integer from 1 to 1000, got 0',
    )
    expect(refused({ subagents: 'all' }).message).toBe(
      'agent-profiles: config: subagents must be "none" or "inherit", got "all"',
    )
  })
})
