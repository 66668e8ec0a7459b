/**
 * Every line the plugin logs, host and browser alike, begins `agent-profiles: ` (lib/shared/log.ts): a search of the
 * host's log or the browser's console for the plugin finds every line of it. Checked on the source, so a new line
 * without the prefix fails here rather than in a user's log.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const LIB = fileURLToPath(new URL('../../lib/', import.meta.url))
const PREFIX = 'agent-profiles: '

/**
 * A call of a logger or `console` whose first argument is a string literal: `log.warn('…')`, `this.#log.error(\`…\`)`,
 * `console.warn('…', e)`, `warn(\`…\`)`, `this.#error(\`…\`)`. Captures the literal's first characters.
 */
const CALL =
  /(?:\bconsole\.(?:log|info|warn|error|debug)|(?:\blog|#log)\??\.(?:warn|error)|(?:\.|#|\b)(?:warn|error))\(\s*(['"`])((?:(?!\1).){0,20})/g

/** A template whose text comes first from elsewhere (`${message} …`): that text is made, and checked, where it is made. */
const MADE_ELSEWHERE = /^\$\{/

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sources(path)
    else if (/\.tsx?$/.test(entry.name)) yield path
  }
}

/** The log calls in `text` whose literal does not start with the prefix, as `line: text`. */
function unprefixed(text: string): string[] {
  const out: string[] = []
  text.split('\n').forEach((line, i) => {
    if (/^\s*(\*|\/\/)/.test(line)) return
    for (const m of line.matchAll(CALL)) {
      const literal = m[2]!
      if (!literal.startsWith(PREFIX) && !MADE_ELSEWHERE.test(literal))
        out.push(`${i + 1}: ${line.trim().slice(0, 120)}`)
    }
  })
  return out
}

describe('log lines', () => {
  it('the check finds a line without the prefix, in each form a line is logged', () => {
    expect(unprefixed("log.warn('agent-profiles: routes: ok')\nconsole.warn(`agent-profiles: x`, e)")).toEqual([])
    expect(unprefixed("log.warn('routes: no prefix')")).toHaveLength(1)
    expect(unprefixed('this.#log.error(`something failed: ${e}`)')).toHaveLength(1)
    expect(unprefixed("console.error('[dsh-agent-profiles] failed', error)")).toHaveLength(1)
    expect(unprefixed('this.#error(`change subscriber failed`)')).toHaveLength(1)
  })

  it('every line lib/ logs begins agent-profiles:', () => {
    const found: string[] = []
    for (const file of sources(LIB))
      for (const hit of unprefixed(readFileSync(file, 'utf8'))) found.push(`${relative(LIB, file)}:${hit}`)
    expect(found).toEqual([])
  })
})
